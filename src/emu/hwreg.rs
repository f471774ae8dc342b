//! The hardware registers `s_getreg_b32`, `s_setreg_b32` and
//! `s_setreg_imm32_b32` (SOPK 17, 18, 19) read and write.
//!
//! The operand (LLVM's `hwreg`, `llvm/docs/AMDGPU/gfx11_hwreg.rst`): bits
//! 5:0 the register id, 10:6 the first bit, 15:11 the size in bits minus 1.
//! The ids and names are llvm-mc-22's for gfx1100 (`s_getreg_b32 s1,
//! hwreg(N)` disassembles to `HW_REG_MODE` = 1, `HW_REG_STATUS` = 2,
//! `HW_REG_TRAPSTS` = 3, `HW_REG_GPR_ALLOC` = 5, `HW_REG_LDS_ALLOC` = 6,
//! `HW_REG_IB_STS` = 7, `HW_REG_SH_MEM_BASES` = 15,
//! `HW_REG_PERF_SNAPSHOT_PC_LO/HI` = 18/19, `HW_REG_FLAT_SCR_LO/HI` = 20/21,
//! `HW_REG_HW_ID1` = 23, `HW_REG_HW_ID2` = 24,
//! `HW_REG_PERF_SNAPSHOT_DATA` = 22, `HW_REG_SHADER_CYCLES` = 29).
//!
//! The RDNA3 ISA guide, §16.2 "SOPK Instructions":
//! - S_GETREG_B32: `hwRegId = SIMM16.u16[5 : 0]; offset = SIMM16.u16[10 :
//!   6]; size = SIMM16.u16[15 : 11].u + 1U; value = HW_REGISTERS[hwRegId];
//!   D0.u = 32'U(32'I(value >> offset.u) & ((1 << size) - 1))`;
//! - S_SETREG_B32: `mask = (1 << size) - 1; mask = (mask &
//!   32'I(writeableBitMask(hwRegId.u, WAVE_STATUS.PRIV))); value = ((S0.u
//!   << offset.u) & mask.u); value = (value | 32'U(HW_REGISTERS[hwRegId].i
//!   & ~mask)); HW_REGISTERS[hwRegId] = value.b` (S_SETREG_IMM32_B32: the
//!   literal SIMM32 for S0).
//!
//! The sources disagree on S_SETREG: the pseudocode's mask is not moved to
//! OFFSET (read literally, `hwreg(HW_REG_MODE, 4, 4)` would write nothing
//! and clear MODE's bits 3:0), while the operand's own description says
//! OFFSET is the "LSB offset of register bits to access" and LLVM sets the
//! FP denormal mode with `s_setreg_b32 hwreg(HW_REG_MODE, 4, 4)`
//! (SIISelLowering / SIModeRegister). [`POLICY_SETREG_MASK_AT_OFFSET`]:
//! the mask is `((1 << size) - 1) << offset`; a GPU run settles it.
//!
//! What dsxor models, and the named policies where the sources leave a value
//! to the device:
//! - MODE: read and written whole; starts at what the dispatcher loads from
//!   the kernel descriptor ([`mode_from_rsrc1`]).
//! - STATUS: SCC (bit 0), EXECZ (bit 9) and VCCZ (bit 10) computed from the
//!   wave; [`POLICY_STATUS_OTHER_BITS_ZERO`]. `s_setreg` writes SCC only
//!   (the Linux CWSR trap handler, `amdkfd/cwsr_trap_handler_gfx10.asm`,
//!   restores STATUS with `s_setreg_b32` and notes EXECZ and VCCZ are "not
//!   writable by s_setreg_b32").
//! - TRAPSTS: read and written whole, starts at 0 (no exception raised).
//! - HW_ID1 / HW_ID2: where the wave runs ([`POLICY_HW_ID_ONE_WGP`]); read
//!   only.
//! - SHADER_CYCLES: [`POLICY_SHADER_CYCLES_INSTRUCTIONS`]; read only.
//! - Every other id (GPR_ALLOC, LDS_ALLOC, IB_STS, SH_MEM_BASES, the perf
//!   snapshot and flat scratch registers, unnamed ids): not modelled — the
//!   wave stops with an error naming the register rather than read a
//!   made-up value.
//! - Writes to a read-only register change nothing
//!   ([`POLICY_READ_ONLY_WRITES_IGNORED`]).

/// `HW_REG_MODE`.
pub const MODE: u16 = 1;
/// `HW_REG_STATUS`.
pub const STATUS: u16 = 2;
/// `HW_REG_TRAPSTS`.
pub const TRAPSTS: u16 = 3;
/// `HW_REG_HW_ID1`.
pub const HW_ID1: u16 = 23;
/// `HW_REG_HW_ID2`.
pub const HW_ID2: u16 = 24;
/// `HW_REG_SHADER_CYCLES`.
pub const SHADER_CYCLES: u16 = 29;

/// STATUS bits other than SCC, EXECZ and VCCZ read as 0: they report
/// priorities, trap and debug state, export and barrier status that the
/// software device does not have (no trap handler, no debugger, no
/// graphics). The bit positions of SCC (0), EXECZ (9) and VCCZ (10) are the
/// RDNA ISA guides' STATUS table (the guide's text is not in the sources
/// dsxor can search; `tests/it/emu_exec_llvm.rs` holds the emulator to them and a
/// GPU run of the register's reads would settle any doubt).
pub const POLICY_STATUS_OTHER_BITS_ZERO: &str = "status-other-bits-zero";

/// HW_ID1/HW_ID2 place every workgroup on shader engine 0, shader array 0,
/// WGP 0, SIMD 0, queue/pipe/ME/VM 0 and workgroup slot 0, with WAVE_ID the
/// wave's index in its workgroup: a placement real hardware may choose
/// (the registers say where a wave runs, which the ISA leaves to the
/// dispatcher). Field layout: AMD's embers `include/embers/amdgpu/hwid.h`
/// (`GFX11P_*`: HW_ID1 WAVE_ID 4:0, SIMD_ID 9:8, WGP_ID 13:10, SA_ID 16,
/// SE_ID 20:18, DP_RATE 31:29).
pub const POLICY_HW_ID_ONE_WGP: &str = "hw-id-one-wgp";

/// SHADER_CYCLES counts the instructions the wave has executed (low 20
/// bits): the software device has no clock, and a counter that only grows
/// while the wave runs is what kernels timing themselves rely on.
pub const POLICY_SHADER_CYCLES_INSTRUCTIONS: &str = "shader-cycles-instructions";

/// S_SETREG writes the SIZE bits at OFFSET (the mask moved to OFFSET), not
/// the pseudocode's literal unshifted mask (see the module text).
pub const POLICY_SETREG_MASK_AT_OFFSET: &str = "setreg-mask-at-offset";

/// `s_setreg` of a read-only register (HW_ID1, HW_ID2, SHADER_CYCLES, the
/// computed STATUS bits) changes nothing.
pub const POLICY_READ_ONLY_WRITES_IGNORED: &str = "read-only-writes-ignored";

/// HW_ID1's WAVE_ID field (bits 4:0).
const HW_ID1_WAVE_ID_BITS: u32 = 0x1f;
/// STATUS bit numbers (see [`POLICY_STATUS_OTHER_BITS_ZERO`]).
const STATUS_SCC: u32 = 0;
const STATUS_EXECZ: u32 = 9;
const STATUS_VCCZ: u32 = 10;
/// SHADER_CYCLES width (see [`POLICY_SHADER_CYCLES_INSTRUCTIONS`]).
const SHADER_CYCLES_MASK: u64 = (1 << 20) - 1;

/// The per-wave hardware registers dsxor models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HwRegs {
    pub mode: u32,
    pub trapsts: u32,
    pub hw_id1: u32,
    pub hw_id2: u32,
}

impl HwRegs {
    /// The registers of wave `wave` of a workgroup, at dispatch.
    pub fn at_dispatch(mode: u32, wave: u32) -> HwRegs {
        HwRegs {
            mode,
            trapsts: 0,
            hw_id1: wave & HW_ID1_WAVE_ID_BITS,
            hw_id2: 0,
        }
    }
}

/// MODE as the dispatcher loads it from COMPUTE_PGM_RSRC1 (AMDGPUUsage,
/// "compute_pgm_rsrc1 for GFX6-GFX12": FLOAT_ROUND_MODE_32 13:12,
/// FLOAT_ROUND_MODE_16_64 15:14, FLOAT_DENORM_MODE_32 17:16,
/// FLOAT_DENORM_MODE_16_64 19:18 — "Used by CP to set up
/// COMPUTE_PGM_RSRC1.FLOAT_MODE" — ENABLE_DX10_CLAMP 21, ENABLE_IEEE_MODE
/// 23) into MODE's FP_ROUND 3:0, FP_DENORM 7:4, DX10_CLAMP 8 and IEEE 9
/// (LLVM reads the rounding mode as `hwreg(HW_REG_MODE, 0, 4)` and the
/// denormal mode as `hwreg(HW_REG_MODE, 4, 4)`: SIISelLowering.cpp,
/// lowerGET_ROUNDING and the FP_DENORM handling of SIModeRegister).
pub fn mode_from_rsrc1(rsrc1: u32) -> u32 {
    let float_mode = (rsrc1 >> 12) & 0xff;
    let dx10_clamp = (rsrc1 >> 21) & 1;
    let ieee = (rsrc1 >> 23) & 1;
    float_mode | dx10_clamp << 8 | ieee << 9
}

/// The fields of a `hwreg` operand: (id, offset, size in bits).
pub fn fields(simm16: u16) -> (u16, u32, u32) {
    (
        simm16 & 0x3f,
        (simm16 as u32 >> 6) & 0x1f,
        (simm16 as u32 >> 11) + 1,
    )
}

/// `(1 << size) - 1` for size 1..=32.
fn ones(size: u32) -> u32 {
    if size >= 32 {
        u32::MAX
    } else {
        (1u32 << size) - 1
    }
}

/// What a wave's state contributes to the computed registers.
#[derive(Clone, Copy, Debug)]
pub struct Live {
    pub scc: bool,
    pub exec_zero: bool,
    pub vcc_zero: bool,
    pub executed: u64,
}

/// The whole 32-bit value of register `id`, or None when dsxor does not
/// model it.
pub fn read(regs: &HwRegs, id: u16, live: Live) -> Option<u32> {
    Some(match id {
        MODE => regs.mode,
        STATUS => {
            (live.scc as u32) << STATUS_SCC
                | (live.exec_zero as u32) << STATUS_EXECZ
                | (live.vcc_zero as u32) << STATUS_VCCZ
        }
        TRAPSTS => regs.trapsts,
        HW_ID1 => regs.hw_id1,
        HW_ID2 => regs.hw_id2,
        SHADER_CYCLES => (live.executed & SHADER_CYCLES_MASK) as u32,
        _ => return None,
    })
}

/// S_GETREG_B32's result for operand `simm16`, or None when the register
/// is not modelled.
pub fn getreg(regs: &HwRegs, simm16: u16, live: Live) -> Option<u32> {
    let (id, offset, size) = fields(simm16);
    read(regs, id, live).map(|v| (v >> offset) & ones(size))
}

/// A register dsxor does not model, by id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmodelled(pub u16);

impl std::fmt::Display for Unmodelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: the register is not modelled", name(self.0))
    }
}

/// S_SETREG_B32 of `value` with operand `simm16`: updates `regs` and
/// returns the new SCC when the write reaches STATUS.SCC.
pub fn setreg(
    regs: &mut HwRegs,
    simm16: u16,
    value: u32,
    live: Live,
) -> Result<Option<bool>, Unmodelled> {
    let (id, offset, size) = fields(simm16);
    // A field past bit 31 keeps the bits that fit (the shifts are 32-bit).
    let mask = ones(size).checked_shl(offset).unwrap_or(0);
    let put = |old: u32| (old & !mask) | ((value << offset) & mask);
    match id {
        MODE => regs.mode = put(regs.mode),
        TRAPSTS => regs.trapsts = put(regs.trapsts),
        STATUS => {
            if mask & 1 << STATUS_SCC != 0 {
                let now = read(regs, STATUS, live).unwrap_or(0);
                return Ok(Some(put(now) & 1 << STATUS_SCC != 0));
            }
        }
        HW_ID1 | HW_ID2 | SHADER_CYCLES => {}
        _ => return Err(Unmodelled(id)),
    }
    Ok(None)
}

/// The register's name as llvm-mc prints it, for messages.
pub fn name(id: u16) -> String {
    let n = match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        18 => "HW_REG_PERF_SNAPSHOT_PC_LO",
        19 => "HW_REG_PERF_SNAPSHOT_PC_HI",
        20 => "HW_REG_FLAT_SCR_LO",
        21 => "HW_REG_FLAT_SCR_HI",
        22 => "HW_REG_PERF_SNAPSHOT_DATA",
        23 => "HW_REG_HW_ID1",
        24 => "HW_REG_HW_ID2",
        29 => "HW_REG_SHADER_CYCLES",
        _ => return format!("hwreg {id}"),
    };
    n.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIVE: Live = Live {
        scc: true,
        exec_zero: false,
        vcc_zero: true,
        executed: 0x12_3456,
    };

    #[test]
    fn getreg_takes_size_bits_from_offset() {
        let r = HwRegs {
            mode: 0xdead_beef,
            ..HwRegs::default()
        };
        // hwreg(HW_REG_MODE, 4, 8): size field 7.
        assert_eq!(getreg(&r, 1 | 4 << 6 | 7 << 11, LIVE), Some(0xee));
        // hwreg(HW_REG_MODE): offset 0, size 32.
        assert_eq!(getreg(&r, 1 | 31 << 11, LIVE), Some(0xdead_beef));
        assert_eq!(getreg(&r, STATUS | 31 << 11, LIVE), Some(1 | 1 << 10));
        assert_eq!(getreg(&r, SHADER_CYCLES | 31 << 11, LIVE), Some(0x2_3456));
        assert_eq!(getreg(&r, 5 | 31 << 11, LIVE), None);
    }

    #[test]
    fn setreg_writes_only_the_field() {
        let mut r = HwRegs {
            mode: 0xffff_0000,
            ..HwRegs::default()
        };
        // hwreg(HW_REG_MODE, 8, 4) = 0x35: only bits 11:8 take 0x5.
        assert_eq!(setreg(&mut r, 1 | 8 << 6 | 3 << 11, 0x35, LIVE), Ok(None));
        assert_eq!(r.mode, 0xffff_0500);
        // A field running past bit 31 keeps the bits that fit.
        assert_eq!(setreg(&mut r, 1 | 28 << 6 | 7 << 11, 0, LIVE), Ok(None));
        assert_eq!(r.mode, 0x0fff_0500);
        assert_eq!(setreg(&mut r, STATUS | 31 << 11, 0, LIVE), Ok(Some(false)));
        let before = r;
        assert_eq!(setreg(&mut r, HW_ID1 | 31 << 11, 7, LIVE), Ok(None));
        assert_eq!(r, before);
        assert_eq!(setreg(&mut r, 6 | 31 << 11, 7, LIVE), Err(Unmodelled(6)));
    }

    #[test]
    fn mode_comes_from_the_float_mode_dx10_and_ieee_bits() {
        // rsrc1 FLOAT_DENORM_MODE_16_64 = 3 (bits 19:18), DX10_CLAMP, IEEE.
        assert_eq!(
            mode_from_rsrc1(3 << 18 | 1 << 21 | 1 << 23),
            0xc0 | 0x100 | 0x200
        );
        assert_eq!(mode_from_rsrc1(0), 0);
    }
}
