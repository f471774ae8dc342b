//! The VOP1/VOP3 lane-permute, M0-relative and quad-SAD VALU instructions
//! of gfx11 (the [`VOp`]s of [`VOp::in_vext`], decoded in `decode/vector.rs`
//! as `Inst::Valu`): their semantics and the registers they use.
//!
//! Semantics are the RDNA3 ISA guide's pseudocode ("RDNA3 Instruction Set
//! Architecture Reference Guide", chapter 16 "Instructions": "VOP3 & VOP3SD
//! Instructions", "VOP1 Instructions"), as tinygrad's machine-readable
//! extract of the guide (`tinygrad/runtime/autogen/amd/rdna3/str_pcode.py`)
//! spells it; the pseudocode line is quoted at each op. Where the guide is
//! silent, a named policy (a constant below) says what this device does:
//!
//! - [`PERMLANE_INACTIVE_SOURCE`]: v_permlane*16 with fetch-inactive off and
//!   an inactive source lane.
//! - [`PERMLANE64_WAVE32`]: v_permlane64_b32 in wave32 is a no-op (the guide's
//!   own words).
//! - [`MOVREL_OUT_OF_RANGE`]: an M0-relative index past v255 is an error.
//!
//! The VOP3P instructions are `vop3p.rs`'s. This file sees a wave only
//! through [`WaveView`] (implemented by `wave::Wave`), as `ds.rs`,
//! `valu16.rs`, `vop3p.rs` and `wmma.rs` do.

use super::decode::{Src, VEnc, VOp, M0};
use super::view::WaveView;

/// Policy: the guide's v_permlane*16 pseudocode reads every lane's S0
/// ("tmp[i] = VGPR[i][SRC0.u32]" for all lanes), i.e. fetch-inactive
/// (op_sel[0]) set. With it clear and the selected source lane inactive,
/// this device does what DPP does with FI clear (RDNA3 guide, "DPP16":
/// a disabled source lane is invalid): with bound-ctrl (op_sel[1]) set the
/// lane gets 0, without it the lane keeps its old value (LLVM ties the
/// destination's old value as the intrinsic's `old` operand).
pub const PERMLANE_INACTIVE_SOURCE: &str = "permlane-inactive-source";
/// Policy: v_permlane64_b32 in wave32 does nothing (guide: "Supported in
/// wave64 ONLY; treated as scalar NOP in wave32").
pub const PERMLANE64_WAVE32: &str = "permlane64-wave32-nop";
/// Policy: an M0-relative VGPR index ("addr = SRC0.u32; addr +=
/// M0.u32[31 : 0]; VGPR[laneId][addr]") past v255 is an error of the
/// instruction (the guide does not say what the hardware does; the wave's
/// VGPR allocation is not modelled, so indexes up to v255 are in range).
pub const MOVREL_OUT_OF_RANGE: &str = "movrel-out-of-range-error";

/// Lane `l`'s 64-bit value of `s` (a VGPR pair, or a scalar operand).
fn rd64<W: WaveView + ?Sized>(w: &W, s: Src, l: usize) -> u64 {
    match s {
        Src::V(r) => w.vrow(r as usize)[l] as u64 | (w.vrow(r as usize + 1)[l] as u64) << 32,
        o => w.s64(o),
    }
}

/// "ABSDIFF = lambda(x, y) (x > y ? x - y : y - x); tmp = S2.u32; tmp +=
/// 32'U(ABSDIFF(S0.u32[7 : 0], S1.u32[7 : 0])); ..." (V_SAD_U8); with
/// `masked`, V_MSAD_U8's "tmp += S1.u32[7 : 0] == 8'0U ? 0U : ...".
fn sad(s0: u32, s1: u32, acc: u32, masked: bool) -> u32 {
    (0..4).fold(acc, |t, i| {
        let (a, b) = ((s0 >> (8 * i)) as u8, (s1 >> (8 * i)) as u8);
        if masked && b == 0 {
            t
        } else {
            t.wrapping_add(a.abs_diff(b) as u32)
        }
    })
}

/// An instruction of this file: the fields of its `Inst::Valu`.
#[derive(Clone, Copy, Debug)]
pub struct Operands<'a> {
    pub op: VOp,
    pub vdst: u8,
    pub src: &'a [Src; 3],
    /// v_permlane*16's op_sel: bit 0 fetch-inactive, bit 1 bound-ctrl.
    pub op_sel: u8,
}

/// Why an instruction of this file could not run.
#[derive(Debug)]
pub enum VxError {
    /// An opcode this file has no arm for (its mnemonic).
    NotHere(&'static str),
    /// The instruction's own stop (an M0-relative index past v255).
    Stop(String),
}

/// Execute `x` on `w`.
pub fn exec<W: WaveView + ?Sized>(w: &mut W, x: &Operands) -> Result<(), VxError> {
    use VOp::*;
    let lanes = w.lanes() as usize;
    let exec = w.exec();
    let active = |l: usize| exec >> l & 1 == 1;
    let op = x.op;
    match op {
        Permlane16B32 | Permlanex16B32 => {
            // "lanesel = { S2.u32, S1.u32 }; for i in 0 : WAVE32 ? 31 : 63 do
            // tmp[i] = VGPR[i][SRC0.u32] endfor; for row in 0 : WAVE32 ? 1 : 3
            // do for i in 0 : 15 do if EXEC[row * 16 + i].u1 then
            // VGPR[row * 16 + i][VDST.u32] = tmp[64'B(row * 16) +
            // lanesel[i * 4 + 3 : i * 4]]" (permlanex16: "altrow = { row[1],
            // ~row[0] }", tmp[64'B(altrow.i32 * 16) + ...]).
            let sel = (w.s32(x.src[2]) as u64) << 32 | w.s32(x.src[1]) as u64;
            let Src::V(s0) = x.src[0] else {
                return Err(VxError::Stop("v_permlane*16 src0 is not a VGPR".into()));
            };
            let tmp: Vec<u32> = w.vrow(s0 as usize)[..lanes].to_vec();
            let (fi, bc) = (x.op_sel & 1 == 1, x.op_sel & 2 == 2);
            let mut out: [u32; 64] = [0; 64];
            out[..lanes].copy_from_slice(&w.vrow(x.vdst as usize)[..lanes]);
            for l in (0..lanes).filter(|&l| active(l)) {
                let (row, i) = (l / 16, l % 16);
                let from_row = if op == Permlanex16B32 { row ^ 1 } else { row };
                let src = from_row * 16 + ((sel >> (4 * i)) & 0xf) as usize;
                out[l] = if fi || active(src) {
                    tmp[src]
                } else if bc {
                    // PERMLANE_INACTIVE_SOURCE.
                    0
                } else {
                    out[l]
                };
            }
            w.write_rows(x.vdst, &[out], exec);
        }
        Permlane64B32 => {
            // "if WAVE32 then s_nop(16'0U) else for lane in 0U : 63U do
            // tmp[lane] = VGPR[lane][SRC0.u32] endfor; for lane in 0U : 63U do
            // altlane = { ~lane[5], lane[4 : 0] }; if EXEC[lane].u1 then
            // VGPR[lane][VDST.u32] = tmp[altlane]".
            if lanes == 64 {
                let mut out = [0u32; 64];
                for (l, o) in out.iter_mut().enumerate() {
                    *o = w.lane32(x.src[0], l ^ 32);
                }
                w.write_rows(x.vdst, &[out], exec);
            }
        }
        MovrelsB32 | MovreldB32 | MovrelsdB32 | Movrelsd2B32 | SwaprelB32 => {
            movrel(w, x, exec, lanes)?;
        }
        QsadPkU16U8 | MqsadPkU16U8 | MqsadU32U8 => {
            // V_QSAD_PK_U16_U8: "tmp[63 : 48] = 16'B(v_sad_u8(S0[55 : 24],
            // S1[31 : 0], S2[63 : 48].u32)); tmp[47 : 32] = 16'B(v_sad_u8(S0[47
            // : 16], S1[31 : 0], S2[47 : 32].u32)); tmp[31 : 16] =
            // 16'B(v_sad_u8(S0[39 : 8], ...)); tmp[15 : 0] = 16'B(v_sad_u8(S0[31
            // : 0], ...)); D0.b64 = tmp.b64"; V_MQSAD_PK_U16_U8 the same with
            // v_msad_u8; V_MQSAD_U32_U8 with 32-bit fields of a 128-bit S2 and
            // D0.b128.
            let dw = op.widths().1 as usize;
            let mut out = vec![[0u32; 64]; dw];
            for l in (0..lanes).filter(|&l| active(l)) {
                let s0 = rd64(w, x.src[0], l);
                let s1 = w.lane32(x.src[1], l);
                let masked = op != QsadPkU16U8;
                if op == MqsadU32U8 {
                    let Src::V(r) = x.src[2] else {
                        return Err(VxError::Stop("v_mqsad_u32_u8 src2 is not a VGPR".into()));
                    };
                    for (k, o) in out.iter_mut().enumerate() {
                        let acc = w.vrow(r as usize + k)[l];
                        o[l] = sad((s0 >> (8 * k)) as u32, s1, acc, true);
                    }
                } else {
                    let s2 = rd64(w, x.src[2], l);
                    let mut d = 0u64;
                    for k in 0..4 {
                        let acc = (s2 >> (16 * k)) as u16 as u32;
                        d |= (sad((s0 >> (8 * k)) as u32, s1, acc, masked) as u16 as u64)
                            << (16 * k);
                    }
                    out[0][l] = d as u32;
                    out[1][l] = (d >> 32) as u32;
                }
            }
            w.write_rows(x.vdst, &out, exec);
        }
        other => return Err(VxError::NotHere(other.name())),
    }
    Ok(())
}

/// The VGPRs `(from, to)` an M0-relative move reads and writes for this
/// M0: `from` is None when SRC0 is read as an operand (V_MOVRELD). One
/// function for the interpreter and the hazard checker ([`uses`]), so both
/// see the same registers.
pub fn movrel_indices(x: &Operands, m0: u32) -> Result<(Option<usize>, usize), VxError> {
    use VOp::*;
    let src = match x.src[0] {
        Src::V(r) => Some(r as u32),
        _ => None,
    };
    // The index pair (source, destination), each `field + offset`.
    let (s_off, d_off) = match x.op {
        // "addrs += M0.u32[9 : 0].u32; addrd += M0.u32[25 : 16].u32"
        Movrelsd2B32 | SwaprelB32 => (m0 & 0x3ff, (m0 >> 16) & 0x3ff),
        // "addr += M0.u32[31 : 0]"
        _ => (m0, m0),
    };
    let idx = |base: u32, off: u32, what: &str| -> Result<usize, VxError> {
        match base.checked_add(off) {
            Some(a) if a < 256 => Ok(a as usize),
            _ => Err(VxError::Stop(format!(
                "{}: M0-relative {what} index v{base} + {off} is past v255 (policy {MOVREL_OUT_OF_RANGE})",
                x.op.name()
            ))),
        }
    };
    let need_src =
        || src.ok_or_else(|| VxError::Stop(format!("{} src0 is not a VGPR", x.op.name())));
    let vdst = x.vdst as u32;
    Ok(match x.op {
        // V_MOVRELS_B32: "addr = SRC0.u32; addr += M0.u32[31 : 0]; D0.b32 = VGPR[laneId][addr].b32"
        MovrelsB32 => (Some(idx(need_src()?, s_off, "source")?), vdst as usize),
        // V_MOVRELD_B32: "addr = DST.u32; addr += M0.u32[31 : 0]; VGPR[laneId][addr].b32 = S0.b32"
        MovreldB32 => (None, idx(vdst, d_off, "destination")?),
        // V_MOVRELSD_B32 / _2: "VGPR[laneId][addrd].b32 = VGPR[laneId][addrs].b32";
        // V_SWAPREL_B32: "tmp = VGPR[laneId][addrd].b32; VGPR[laneId][addrd].b32 =
        // VGPR[laneId][addrs].b32; VGPR[laneId][addrs].b32 = tmp".
        _ => (
            Some(idx(need_src()?, s_off, "source")?),
            idx(vdst, d_off, "destination")?,
        ),
    })
}

/// The M0-relative moves.
fn movrel<W: WaveView + ?Sized>(
    w: &mut W,
    x: &Operands,
    exec: u64,
    lanes: usize,
) -> Result<(), VxError> {
    use VOp::*;
    let (from, to) = movrel_indices(x, w.s32(Src::S(M0)))?;
    let mut vals = [0u32; 64];
    for (l, v) in vals.iter_mut().enumerate().take(lanes) {
        *v = match from {
            Some(f) => w.vrow(f)[l],
            None => w.lane32(x.src[0], l),
        };
    }
    let old_to: Vec<u32> = w.vrow(to)[..lanes].to_vec();
    w.write_rows(to as u8, &[vals], exec);
    if let (SwaprelB32, Some(f)) = (x.op, from) {
        let mut back = [0u32; 64];
        back[..lanes].copy_from_slice(&old_to);
        w.write_rows(f as u8, &[back], exec);
    }
    Ok(())
}

/// What [`uses`] lists: reads (operand, dwords), VGPR writes (first, dwords).
pub type Uses = (Vec<(Src, u32)>, Vec<(u8, u32)>);

/// Registers `x` reads (operand, dwords) and VGPRs it writes (first,
/// dwords), for the hazard checker, with `m0` the wave's M0 as `x` is
/// about to run: a movrel lists M0 and the registers the index lands on
/// (as [`movrel_indices`] gives them; an index past v255 lists only M0 and
/// the static operands, and the move itself stops the wave).
pub fn uses(x: &Operands, m0: u32) -> Uses {
    let (sw, dw) = x.op.widths();
    let mut rd: Vec<(Src, u32)> = (0..x.op.arity()).map(|k| (x.src[k], sw[k])).collect();
    let mut wr = vec![(x.vdst, dw)];
    // M0 as the table's column has it (LLVM `Uses = [M0, EXEC]` on the
    // M0-relative moves); EXEC the hazard checker adds itself.
    if x.op.implicit(VEnc::E64).reads_m0() {
        rd.push((Src::S(M0), 1));
    }
    match x.op {
        // The destination's old value is kept in lanes that do not write it.
        VOp::Permlane16B32 | VOp::Permlanex16B32 => rd.push((Src::V(x.vdst), 1)),
        _ if x.op.movrel() => {
            if let Ok((from, to)) = movrel_indices(x, m0) {
                if let Some(f) = from {
                    rd[0] = (Src::V(f as u8), 1);
                }
                wr = vec![(to as u8, 1)];
                // V_SWAPREL writes both and reads both.
                if x.op == VOp::SwaprelB32 {
                    if let Some(f) = from {
                        rd.push((Src::V(to as u8), 1));
                        wr.push((f as u8, 1));
                    }
                }
            } else {
                wr.clear();
            }
        }
        _ => {}
    }
    (rd, wr)
}
