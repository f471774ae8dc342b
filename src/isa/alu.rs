//! Integer SALU, VALU and VOPD encodings of gfx11 (RDNA3): SOP1, SOP2,
//! SOPC, SOPK, VOP1, VOP2, VOPC, VOP3 (and VOP3SD, whose 14:8 field is a
//! scalar destination) and VOPD, each instruction built from its operands
//! and printed in LLVM's syntax, for the programs `dsxor qualify` runs.
//! [`ALU_OPS`] is also the software device's opcode table: `emu::decode`
//! derives its opcode maps, operand counts and VOP3SD forms from it, so a
//! mnemonic's format and opcode are written here once.
//!
//! The opcodes and bit layouts are LLVM's (`SOPInstructions.td`,
//! `VOP1Instructions.td`, `VOP2Instructions.td`, `VOP3Instructions.td`,
//! `VOPCInstructions.td`, `VOPDInstructions.td` for GFX11); the table was
//! read from `llvm-mc-22 -mcpu=gfx1100 -show-encoding`, and
//! `tests/it/host_isa_llvm.rs` assembles every op's text with llvm-mc (the
//! split `s_waitcnt_*cnt` with their SGPR field `null`, the only operand
//! llvm-mc takes there: [`Kind::Null`]) and compares its bytes with
//! [`ProgramInst::encode`]'s, in both wave sizes. Layouts:
//!
//! | format | word 0 |
//! | --- | --- |
//! | SOP2 | `10` op\[29:23\] sdst\[22:16\] ssrc1\[15:8\] ssrc0\[7:0\] |
//! | SOP1 | `101111101` sdst\[22:16\] op\[15:8\] ssrc0\[7:0\] |
//! | SOPC | `101111110` op\[22:16\] ssrc1\[15:8\] ssrc0\[7:0\] |
//! | SOPK | `1011` op\[27:23\] sdst\[22:16\] simm16\[15:0\] |
//! | VOP1 | `0111111` vdst\[24:17\] op\[16:9\] src0\[8:0\] |
//! | VOP2 | `0` op\[30:25\] vdst\[24:17\] vsrc1\[16:9\] src0\[8:0\] |
//! | VOPC | `0111110` op\[24:17\] vsrc1\[16:9\] src0\[8:0\] |
//! | VOP3 | `110101` op\[25:16\] clamp\[15\] (abs/opsel or VOP3SD sdst)\[14:8\] vdst\[7:0\]; word 1: neg\[31:29\] omod\[28:27\] src2\[26:18\] src1\[17:9\] src0\[8:0\] |
//! | VOPD | `110010` opx\[25:22\] opy\[21:17\] vsrc1x\[16:9\] src0x\[8:0\]; word 1: vdstx\[31:24\] vdsty>>1\[23:17\] vsrc1y\[16:9\] src0y\[8:0\] |
//! | VOP3P | `11001100` op\[22:16\] clamp\[15\] op_sel_hi\[2\]\[14\] op_sel\[13:11\] neg_hi\[10:8\] vdst\[7:0\]; word 1: neg_lo\[31:29\] op_sel_hi\[1:0\]\[28:27\] src2\[26:18\] src1\[17:9\] src0\[8:0\] |
//!
//! A 32-bit literal (source code 255) follows the instruction's words.
//! Source codes (RDNA3 ISA guide, "Scalar operands"/"Vector operands"):
//! SGPR n = n, VCC_LO 106, integer inline constants 0..64 = 128 + n and
//! -1..-16 = 192 + |n|, literal 255, VGPR n = 256 + n.
//!
//! Modifiers ([`Mods`]): VOP3P's op_sel / op_sel_hi / neg_lo (the dot
//! products' and the integer WMMAs' signedness selects) / clamp, and
//! VOP3's op_sel (v_permlane*16's fetch-inactive and bound-ctrl bits);
//! LLVM prints each only where it is not the default. The integer WMMAs
//! (`v_wmma_i32_16x16x16_iu8/iu4`) take [`Kind::Acc`] C/D operands whose
//! width is the wave size's. What is not here: abs/neg/omod of VOP3,
//! neg_hi, DPP/SDWA, float operations and float inline constants, the
//! float VOP3P and WMMA ops, and the VOPD float halves. VOPD is wave32 only
//! (llvm-mc: "instruction requires wavesize=32").

use std::fmt::Write as _;

/// Why an instruction cannot be encoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AluError {
    #[error("{op}: operand {index}: {why}")]
    Operand {
        op: &'static str,
        index: usize,
        why: String,
    },
    #[error("{op}: {why}")]
    Rule { op: &'static str, why: String },
    #[error("`{0}` is not an ALU instruction of the table")]
    Unknown(String),
}

/// Encoding format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Sop1,
    Sop2,
    Sopc,
    /// SOPK: an SGPR and a 16-bit immediate ([`Kind::Imm16`]).
    Sopk,
    Vop1,
    Vop2,
    Vopc,
    /// VOP3; `sd` in [`Kind`] marks VOP3SD.
    Vop3,
    /// One half of a VOPD (opcode = the X-half opcode; see [`AluOp::opy`]).
    Vopd,
    /// VOP3P (packed 16-bit math, dot products).
    Vop3p,
}

/// What an operand position takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Nothing there.
    None,
    /// An SGPR (destinations) or an SGPR / constant / literal (sources), 32-bit.
    S32,
    /// An even-aligned SGPR pair or a constant (sign-extended), 64-bit.
    S64,
    /// An SGPR s0..s105 only, 32-bit: no constant, literal, VCC or other
    /// special register. LLVM's `SReg_32` operands (`SOPInstructions.td`:
    /// `SOP1_32R` of `S_MOVRELS_B32`, `SOP1_32_movreld`'s `$sdst`, the
    /// `$sdst` of `S_MOVRELSD_2_B32`'s `SOP1_32`), where llvm-mc refuses a
    /// constant ("invalid operand for instruction"). `SReg_32` also takes
    /// VCC_LO, M0, EXEC_LO and the trap temporaries; the encoder writes
    /// none of them here, as the software device's M0-relative moves index
    /// s0..s105 alone (`emu::decode::MOVREL_SGPRS`).
    Sgpr32,
    /// An even-aligned SGPR pair within s0..s105 only, 64-bit: LLVM's
    /// `SReg_64` (`SOP1_64R` of `S_MOVRELS_B64`, `SOP1_64_movreld`'s
    /// `$sdst`, `SOP1_1` of `S_SETPC_B64`), as [`Kind::Sgpr32`].
    Sgpr64,
    /// A VGPR only.
    V32,
    /// A VGPR pair (any alignment on gfx11).
    V64,
    /// Four VGPRs (v_mqsad_u32_u8's S2 and destination).
    V128,
    /// Any 32-bit source: VGPR, SGPR, constant, literal.
    Any32,
    /// Any 64-bit source: VGPR pair, SGPR pair, constant.
    Any64,
    /// A lane mask: one SGPR in wave32, an even pair in wave64 (VOP3SD
    /// carry out, VOP3 compare destination, v_cndmask_b32_e64's mask).
    Mask,
    /// The implicit VCC of an e32 encoding (printed, not encoded).
    Vcc,
    /// One half of a VGPR (`v1.l` / `v1.h`), VGPR only (true16: a VOP1
    /// destination, VOPC's vsrc1, v_swap_b16's source).
    V16,
    /// A 16-bit source: a VGPR half, or an SGPR, integer inline constant
    /// or literal (its low 16 bits).
    Any16,
    /// SOPK's 16-bit immediate (SIMM16), given as [`Opnd::Lit`] `0..=0xffff`
    /// and printed in hex as LLVM prints it.
    Imm16,
    /// An SGPR field only `null` may fill, given as [`Opnd::Null`]: the
    /// split waitcnts' (`s_waitcnt_vscnt`, `_vmcnt`, `_expcnt`,
    /// `_lgkmcnt`, SOPK), where llvm-mc-22 refuses any other register
    /// ("src0 must be null": LLVM `test/MC/AMDGPU/gfx11_asm_sopk_err.s`).
    Null,
    /// A WMMA's D: 8 VGPRs in wave32, 4 in wave64 (LLVM
    /// VOP3PInstructions.td `VOPProfileWMMA`: `VDst_256` / `VDst_128`).
    Acc,
    /// A WMMA's C: the VGPRs of [`Kind::Acc`] or an integer inline
    /// constant (`VISrc_256_*` / `VISrc_128_*`; RDNA3 guide §7.9: "Inline
    /// constants: can only be used for C-matrix").
    AccSrc,
}

/// One instruction of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AluOp {
    /// LLVM's mnemonic as written (with `_e32` / `_e64` where LLVM has both).
    pub name: &'static str,
    pub format: Format,
    /// The opcode field (for VOPD: the X opcode, 4 bits).
    pub opcode: u16,
    /// VOPD only: the Y opcode (5 bits); the mnemonic is the same as X's.
    pub opy: u16,
    pub dst: Kind,
    /// The second destination: VOP3SD's sdst, an e32's implicit VCC.
    pub sdst: Kind,
    pub srcs: &'static [Kind],
    /// VOP3 only: the instruction takes the clamp bit (bit 15).
    pub clamp: bool,
    /// The registers it reads or writes that no operand field names (SCC,
    /// VCC, EXEC, M0): LLVM's `Uses`/`Defs` of the instruction. The
    /// software device's hazard checker takes its implicit reads and writes
    /// from here.
    pub implicit: Implicit,
}

/// Implicit operands of an instruction: SCC, VCC, EXEC and M0 reads and
/// writes that no operand field names. Sources, per family:
/// - SALU: LLVM `SOPInstructions.td`, the `Uses`/`Defs` around each
///   definition (`Defs = [SCC]` on the arithmetic, logic, shift, bit-field,
///   min/max, count, not, wqm, quadmask and abs ops and every SOPC/`s_cmpk`;
///   `Uses = [SCC]` on `s_cselect`, `s_cmov`, `s_cmovk`; both on `s_addc`,
///   `s_subb`; `Uses = [EXEC], Defs = [EXEC, SCC]` on the saveexec and
///   wrexec forms; `Uses = [M0]` on the M0-relative `s_movrels`,
///   `s_movreld` and `s_movrelsd_2`), as the RDNA3 ISA guide's pseudocode writes them
///   (e.g. S_ADD_U32 "SCC = tmp >= 0x100000000ULL", S_CSELECT_B32
///   "D0.u32 = SCC ? S0.u32 : S1.u32").
/// - VALU: every VOP pseudo `Uses = [EXEC]` (`VOPInstructions.td`,
///   `VOP2Instructions.td` `VOP2_Pseudo`), except `v_readlane_b32` and
///   `v_writelane_b32` ("These are special and do not read the exec mask.
///   let isConvergent = 1, Uses = []", `VOP2Instructions.td`); the e32
///   carry ops `Uses = [VCC, EXEC], Defs = [VCC]` and e32 `v_cndmask_b32`
///   `Uses = [VCC, EXEC]` (`VOP2bInst`, `VOP2eInst_Base`); an e32 VOPC
///   `Defs = [VCC]`; v_cmpx writes EXEC and, from gfx10 on, no SGPR
///   (`VOPCInstructions.td`, the `_nosdst` pseudos, `Defs = [EXEC]`); the
///   M0-relative moves `Uses = [M0, EXEC]` (`VOP1Instructions.td`,
///   `V_MOVRELS_B32` etc.). An e64 form names its mask operands
///   explicitly, so only EXEC is implicit there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Implicit(u8);

impl Implicit {
    pub const NONE: Implicit = Implicit(0);
    pub const SCC_READ: Implicit = Implicit(1);
    pub const SCC_WRITE: Implicit = Implicit(2);
    pub const VCC_READ: Implicit = Implicit(4);
    pub const VCC_WRITE: Implicit = Implicit(8);
    pub const EXEC_READ: Implicit = Implicit(16);
    pub const EXEC_WRITE: Implicit = Implicit(32);
    pub const M0_READ: Implicit = Implicit(64);

    /// Both sets.
    pub const fn with(self, o: Implicit) -> Implicit {
        Implicit(self.0 | o.0)
    }
    /// Whether every register access of `o` is in `self`.
    pub const fn has(self, o: Implicit) -> bool {
        self.0 & o.0 == o.0
    }
    pub const fn reads_scc(self) -> bool {
        self.has(Implicit::SCC_READ)
    }
    pub const fn writes_scc(self) -> bool {
        self.has(Implicit::SCC_WRITE)
    }
    pub const fn reads_vcc(self) -> bool {
        self.has(Implicit::VCC_READ)
    }
    pub const fn writes_vcc(self) -> bool {
        self.has(Implicit::VCC_WRITE)
    }
    pub const fn reads_exec(self) -> bool {
        self.has(Implicit::EXEC_READ)
    }
    pub const fn writes_exec(self) -> bool {
        self.has(Implicit::EXEC_WRITE)
    }
    pub const fn reads_m0(self) -> bool {
        self.has(Implicit::M0_READ)
    }
}

// The implicit-operand column's values, short for the table below.
/// No implicit operand (SALU).
const PURE: Implicit = Implicit::NONE;
/// Writes SCC.
const W_SCC: Implicit = Implicit::SCC_WRITE;
/// Reads SCC.
const R_SCC: Implicit = Implicit::SCC_READ;
/// Reads and writes SCC (carry in and out).
const RW_SCC: Implicit = Implicit::SCC_READ.with(Implicit::SCC_WRITE);
/// The saveexec / wrexec forms: EXEC read and written, SCC written.
const SAVEEXEC: Implicit = Implicit::EXEC_READ
    .with(Implicit::EXEC_WRITE)
    .with(Implicit::SCC_WRITE);
/// A VALU instruction: EXEC read.
const EXEC: Implicit = Implicit::EXEC_READ;
/// v_readlane / v_writelane: nothing (they ignore EXEC).
const LANE: Implicit = Implicit::NONE;
/// An e32 VOPC: EXEC read, VCC written.
const EXEC_W_VCC: Implicit = Implicit::EXEC_READ.with(Implicit::VCC_WRITE);
/// e32 v_cndmask_b32: EXEC and VCC read.
const EXEC_R_VCC: Implicit = Implicit::EXEC_READ.with(Implicit::VCC_READ);
/// e32 carry-in ops: EXEC read, VCC read and written.
const EXEC_RW_VCC: Implicit = Implicit::EXEC_READ
    .with(Implicit::VCC_READ)
    .with(Implicit::VCC_WRITE);
/// v_cmpx: EXEC read and written.
const EXEC_RW: Implicit = Implicit::EXEC_READ.with(Implicit::EXEC_WRITE);
/// The M0-relative VGPR moves: EXEC and M0 read.
const EXEC_M0: Implicit = Implicit::EXEC_READ.with(Implicit::M0_READ);
/// The M0-relative SGPR moves: M0 read.
const R_M0: Implicit = Implicit::M0_READ;

const fn op(
    name: &'static str,
    format: Format,
    opcode: u16,
    dst: Kind,
    srcs: &'static [Kind],
    implicit: Implicit,
) -> AluOp {
    AluOp {
        name,
        format,
        opcode,
        opy: 0,
        dst,
        sdst: Kind::None,
        srcs,
        clamp: false,
        implicit,
    }
}

const fn with_clamp(mut o: AluOp) -> AluOp {
    o.clamp = true;
    o
}

const fn with_sdst(mut o: AluOp, sdst: Kind) -> AluOp {
    o.sdst = sdst;
    o
}

use Format::*;
use Kind::*;

const SS: &[Kind] = &[S32, S32];
const S1: &[Kind] = &[S32];
const S64S: &[Kind] = &[S64, S32];
const S64S64: &[Kind] = &[S64, S64];
const S64ONE: &[Kind] = &[S64];
const G1: &[Kind] = &[Sgpr32];
const G64: &[Kind] = &[Sgpr64];
const A1: &[Kind] = &[Any32];
const AV: &[Kind] = &[Any32, V32];
const AVC: &[Kind] = &[Any32, V32, Vcc];
const AA: &[Kind] = &[Any32, Any32];
const AAA: &[Kind] = &[Any32, Any32, Any32];
const AAM: &[Kind] = &[Any32, Any32, Mask];
const A64V: &[Kind] = &[Any64, V64];
const AA64: &[Kind] = &[Any32, Any64];
const AAA64: &[Kind] = &[Any32, Any32, Any64];
const H1: &[Kind] = &[Any16];
const HH: &[Kind] = &[Any16, Any16];
const HV: &[Kind] = &[Any16, V16];
const HHH: &[Kind] = &[Any16, Any16, Any16];
const HHA: &[Kind] = &[Any16, Any16, Any32];
const HHM: &[Kind] = &[Any16, Any16, Mask];
const V1H: &[Kind] = &[V16];
const VSS: &[Kind] = &[V32, S32, S32];
const V1: &[Kind] = &[V32];
const K1: &[Kind] = &[Imm16];
const SK: &[Kind] = &[S32, Imm16];
const NK: &[Kind] = &[Null, Imm16];
const VS: &[Kind] = &[V32, S32];
const A64A64: &[Kind] = &[Any64, Any64];
const QSAD: &[Kind] = &[Any64, Any32, Any64];
const MQSAD: &[Kind] = &[Any64, Any32, V128];
const WMMA8: &[Kind] = &[V128, V128, AccSrc];
const WMMA4: &[Kind] = &[V64, V64, AccSrc];

/// Every instruction dsxor can encode here, by LLVM mnemonic. Opcodes from
/// `llvm-mc-22 -mcpu=gfx1100 -show-encoding` (checked by
/// `tests/it/host_isa_llvm.rs`).
pub const ALU_OPS: &[AluOp] = &[
    // SOP2.
    op("s_add_u32", Sop2, 0x00, S32, SS, W_SCC),
    op("s_sub_u32", Sop2, 0x01, S32, SS, W_SCC),
    op("s_add_i32", Sop2, 0x02, S32, SS, W_SCC),
    op("s_sub_i32", Sop2, 0x03, S32, SS, W_SCC),
    op("s_addc_u32", Sop2, 0x04, S32, SS, RW_SCC),
    op("s_subb_u32", Sop2, 0x05, S32, SS, RW_SCC),
    op("s_absdiff_i32", Sop2, 0x06, S32, SS, W_SCC),
    op("s_lshl_b32", Sop2, 0x08, S32, SS, W_SCC),
    op("s_lshl_b64", Sop2, 0x09, S64, S64S, W_SCC),
    op("s_lshr_b32", Sop2, 0x0a, S32, SS, W_SCC),
    op("s_lshr_b64", Sop2, 0x0b, S64, S64S, W_SCC),
    op("s_ashr_i32", Sop2, 0x0c, S32, SS, W_SCC),
    op("s_ashr_i64", Sop2, 0x0d, S64, S64S, W_SCC),
    op("s_lshl2_add_u32", Sop2, 0x0f, S32, SS, W_SCC),
    op("s_min_i32", Sop2, 0x12, S32, SS, W_SCC),
    op("s_min_u32", Sop2, 0x13, S32, SS, W_SCC),
    op("s_max_i32", Sop2, 0x14, S32, SS, W_SCC),
    op("s_max_u32", Sop2, 0x15, S32, SS, W_SCC),
    op("s_and_b32", Sop2, 0x16, S32, SS, W_SCC),
    op("s_and_b64", Sop2, 0x17, S64, S64S64, W_SCC),
    op("s_or_b32", Sop2, 0x18, S32, SS, W_SCC),
    op("s_xor_b32", Sop2, 0x1a, S32, SS, W_SCC),
    op("s_xor_b64", Sop2, 0x1b, S64, S64S64, W_SCC),
    op("s_bfe_u32", Sop2, 0x26, S32, SS, W_SCC),
    op("s_bfe_i32", Sop2, 0x27, S32, SS, W_SCC),
    op("s_bfe_u64", Sop2, 0x28, S64, S64S, W_SCC),
    op("s_bfe_i64", Sop2, 0x29, S64, S64S, W_SCC),
    op("s_mul_i32", Sop2, 0x2c, S32, SS, PURE),
    op("s_mul_hi_u32", Sop2, 0x2d, S32, SS, PURE),
    op("s_mul_hi_i32", Sop2, 0x2e, S32, SS, PURE),
    op("s_cselect_b32", Sop2, 0x30, S32, SS, R_SCC),
    op("s_lshl1_add_u32", Sop2, 0x0e, S32, SS, W_SCC),
    op("s_lshl4_add_u32", Sop2, 0x11, S32, SS, W_SCC),
    op("s_or_b64", Sop2, 0x19, S64, S64S64, W_SCC),
    op("s_nand_b32", Sop2, 0x1c, S32, SS, W_SCC),
    op("s_xnor_b32", Sop2, 0x20, S32, SS, W_SCC),
    op("s_and_not1_b32", Sop2, 0x22, S32, SS, W_SCC),
    op("s_bfm_b32", Sop2, 0x2a, S32, SS, PURE),
    op("s_cselect_b64", Sop2, 0x31, S64, S64S64, R_SCC),
    op("s_pack_ll_b32_b16", Sop2, 0x32, S32, SS, PURE),
    op("s_pack_lh_b32_b16", Sop2, 0x33, S32, SS, PURE),
    op("s_pack_hh_b32_b16", Sop2, 0x34, S32, SS, PURE),
    op("s_pack_hl_b32_b16", Sop2, 0x35, S32, SS, PURE),
    // SOP1.
    op("s_mov_b32", Sop1, 0x00, S32, S1, PURE),
    op("s_brev_b32", Sop1, 0x04, S32, S1, PURE),
    op("s_ctz_i32_b32", Sop1, 0x08, S32, S1, PURE),
    op("s_clz_i32_u32", Sop1, 0x0a, S32, S1, PURE),
    op("s_sext_i32_i8", Sop1, 0x0e, S32, S1, PURE),
    op("s_sext_i32_i16", Sop1, 0x0f, S32, S1, PURE),
    op("s_abs_i32", Sop1, 0x15, S32, S1, W_SCC),
    op("s_bcnt1_i32_b32", Sop1, 0x18, S32, S1, W_SCC),
    op("s_not_b32", Sop1, 0x1e, S32, S1, W_SCC),
    op("s_cmov_b32", Sop1, 0x02, S32, S1, R_SCC),
    op("s_brev_b64", Sop1, 0x05, S64, S64ONE, PURE),
    op("s_ctz_i32_b64", Sop1, 0x09, S32, S64ONE, PURE),
    op("s_cls_i32", Sop1, 0x0c, S32, S1, PURE),
    op("s_bitset0_b32", Sop1, 0x10, S32, S1, PURE),
    op("s_bitset1_b32", Sop1, 0x12, S32, S1, PURE),
    op("s_bitreplicate_b64_b32", Sop1, 0x14, S64, S1, PURE),
    op("s_bcnt0_i32_b32", Sop1, 0x16, S32, S1, W_SCC),
    op("s_quadmask_b32", Sop1, 0x1a, S32, S1, W_SCC),
    op("s_wqm_b32", Sop1, 0x1c, S32, S1, W_SCC),
    // SOPC (SCC only).
    op("s_cmp_eq_i32", Sopc, 0x00, None, SS, W_SCC),
    op("s_cmp_lt_i32", Sopc, 0x04, None, SS, W_SCC),
    op("s_cmp_gt_u32", Sopc, 0x08, None, SS, W_SCC),
    op("s_cmp_le_u32", Sopc, 0x0b, None, SS, W_SCC),
    op("s_bitcmp1_b32", Sopc, 0x0d, None, SS, W_SCC),
    op("s_cmp_lg_u64", Sopc, 0x11, None, S64S64, W_SCC),
    op("s_cmp_ge_i32", Sopc, 0x03, None, SS, W_SCC),
    op("s_cmp_lg_u32", Sopc, 0x07, None, SS, W_SCC),
    op("s_bitcmp0_b64", Sopc, 0x0e, None, S64S, W_SCC),
    // VOP1.
    op("v_mov_b32_e32", Vop1, 0x01, V32, A1, EXEC),
    op("v_not_b32_e32", Vop1, 0x37, V32, A1, EXEC),
    op("v_bfrev_b32_e32", Vop1, 0x38, V32, A1, EXEC),
    op("v_clz_i32_u32_e32", Vop1, 0x39, V32, A1, EXEC),
    op("v_ctz_i32_b32_e32", Vop1, 0x3a, V32, A1, EXEC),
    op("v_cls_i32_e32", Vop1, 0x3b, V32, A1, EXEC),
    // VOP2.
    op("v_cndmask_b32_e32", Vop2, 0x01, V32, AVC, EXEC_R_VCC),
    op("v_mul_i32_i24_e32", Vop2, 0x09, V32, AV, EXEC),
    op("v_mul_u32_u24_e32", Vop2, 0x0b, V32, AV, EXEC),
    op("v_mul_hi_u32_u24_e32", Vop2, 0x0c, V32, AV, EXEC),
    op("v_min_i32_e32", Vop2, 0x11, V32, AV, EXEC),
    op("v_max_i32_e32", Vop2, 0x12, V32, AV, EXEC),
    op("v_min_u32_e32", Vop2, 0x13, V32, AV, EXEC),
    op("v_max_u32_e32", Vop2, 0x14, V32, AV, EXEC),
    op("v_lshlrev_b32_e32", Vop2, 0x18, V32, AV, EXEC),
    op("v_lshrrev_b32_e32", Vop2, 0x19, V32, AV, EXEC),
    op("v_ashrrev_i32_e32", Vop2, 0x1a, V32, AV, EXEC),
    op("v_and_b32_e32", Vop2, 0x1b, V32, AV, EXEC),
    op("v_or_b32_e32", Vop2, 0x1c, V32, AV, EXEC),
    op("v_xor_b32_e32", Vop2, 0x1d, V32, AV, EXEC),
    with_sdst(
        op("v_add_co_ci_u32_e32", Vop2, 0x20, V32, AVC, EXEC_RW_VCC),
        Vcc,
    ),
    with_sdst(
        op("v_sub_co_ci_u32_e32", Vop2, 0x21, V32, AVC, EXEC_RW_VCC),
        Vcc,
    ),
    op("v_add_nc_u32_e32", Vop2, 0x25, V32, AV, EXEC),
    op("v_sub_nc_u32_e32", Vop2, 0x26, V32, AV, EXEC),
    op("v_subrev_nc_u32_e32", Vop2, 0x27, V32, AV, EXEC),
    op("v_xnor_b32_e32", Vop2, 0x1e, V32, AV, EXEC),
    // VOP3 forms of VOP2 (opcode 0x100 + VOP2's).
    op("v_cndmask_b32_e64", Vop3, 0x101, V32, AAM, EXEC),
    with_sdst(op("v_add_co_ci_u32_e64", Vop3, 0x120, V32, AAM, EXEC), Mask),
    // VOP3 only.
    op("v_mad_i32_i24", Vop3, 0x20a, V32, AAA, EXEC),
    op("v_mad_u32_u24", Vop3, 0x20b, V32, AAA, EXEC),
    op("v_bfe_u32", Vop3, 0x210, V32, AAA, EXEC),
    op("v_bfe_i32", Vop3, 0x211, V32, AAA, EXEC),
    op("v_bfi_b32", Vop3, 0x212, V32, AAA, EXEC),
    op("v_alignbit_b32", Vop3, 0x216, V32, AAA, EXEC),
    op("v_min3_u32", Vop3, 0x21b, V32, AAA, EXEC),
    op("v_med3_i32", Vop3, 0x220, V32, AAA, EXEC),
    op("v_xor3_b32", Vop3, 0x240, V32, AAA, EXEC),
    op("v_lshl_add_u32", Vop3, 0x246, V32, AAA, EXEC),
    op("v_add3_u32", Vop3, 0x255, V32, AAA, EXEC),
    op("v_lerp_u8", Vop3, 0x215, V32, AAA, EXEC),
    op("v_min3_i32", Vop3, 0x21a, V32, AAA, EXEC),
    op("v_max3_i32", Vop3, 0x21d, V32, AAA, EXEC),
    op("v_med3_u32", Vop3, 0x221, V32, AAA, EXEC),
    op("v_sad_u8", Vop3, 0x222, V32, AAA, EXEC),
    op("v_sad_hi_u8", Vop3, 0x223, V32, AAA, EXEC),
    op("v_sad_u16", Vop3, 0x224, V32, AAA, EXEC),
    op("v_sad_u32", Vop3, 0x225, V32, AAA, EXEC),
    op("v_msad_u8", Vop3, 0x239, V32, AAA, EXEC),
    op("v_perm_b32", Vop3, 0x244, V32, AAA, EXEC),
    op("v_add_lshl_u32", Vop3, 0x247, V32, AAA, EXEC),
    op("v_lshl_or_b32", Vop3, 0x256, V32, AAA, EXEC),
    op("v_and_or_b32", Vop3, 0x257, V32, AAA, EXEC),
    op("v_or3_b32", Vop3, 0x258, V32, AAA, EXEC),
    op("v_mbcnt_lo_u32_b32", Vop3, 0x31f, V32, AA, EXEC),
    op("v_mbcnt_hi_u32_b32", Vop3, 0x320, V32, AA, EXEC),
    with_sdst(op("v_mad_u64_u32", Vop3, 0x2fe, V64, AAA64, EXEC), Mask),
    with_sdst(op("v_mad_i64_i32", Vop3, 0x2ff, V64, AAA64, EXEC), Mask),
    with_sdst(op("v_add_co_u32", Vop3, 0x300, V32, AA, EXEC), Mask),
    with_sdst(op("v_sub_co_u32", Vop3, 0x301, V32, AA, EXEC), Mask),
    op("v_mul_lo_u32", Vop3, 0x32c, V32, AA, EXEC),
    op("v_mul_hi_u32", Vop3, 0x32d, V32, AA, EXEC),
    op("v_mul_hi_i32", Vop3, 0x32e, V32, AA, EXEC),
    op("v_lshlrev_b64", Vop3, 0x33c, V64, AA64, EXEC),
    op("v_ashrrev_i64", Vop3, 0x33e, V64, AA64, EXEC),
    op("v_qsad_pk_u16_u8", Vop3, 0x23a, V64, QSAD, EXEC),
    op("v_mqsad_pk_u16_u8", Vop3, 0x23b, V64, QSAD, EXEC),
    op("v_mqsad_u32_u8", Vop3, 0x23d, V128, MQSAD, EXEC),
    op("v_permlane16_b32", Vop3, 0x25b, V32, VSS, EXEC),
    op("v_permlanex16_b32", Vop3, 0x25c, V32, VSS, EXEC),
    op("v_maxmin_u32", Vop3, 0x262, V32, AAA, EXEC),
    op("v_minmax_u32", Vop3, 0x263, V32, AAA, EXEC),
    op("v_maxmin_i32", Vop3, 0x264, V32, AAA, EXEC),
    op("v_minmax_i32", Vop3, 0x265, V32, AAA, EXEC),
    op("v_permlane64_b32", Vop1, 0x67, V32, V1, EXEC),
    // VOP3P.
    op("v_pk_mad_i16", Vop3p, 0x00, V32, AAA, EXEC),
    op("v_pk_mul_lo_u16", Vop3p, 0x01, V32, AA, EXEC),
    op("v_pk_add_i16", Vop3p, 0x02, V32, AA, EXEC),
    op("v_pk_sub_i16", Vop3p, 0x03, V32, AA, EXEC),
    op("v_pk_lshlrev_b16", Vop3p, 0x04, V32, AA, EXEC),
    op("v_pk_lshrrev_b16", Vop3p, 0x05, V32, AA, EXEC),
    op("v_pk_ashrrev_i16", Vop3p, 0x06, V32, AA, EXEC),
    op("v_pk_max_i16", Vop3p, 0x07, V32, AA, EXEC),
    op("v_pk_min_i16", Vop3p, 0x08, V32, AA, EXEC),
    op("v_pk_mad_u16", Vop3p, 0x09, V32, AAA, EXEC),
    op("v_pk_add_u16", Vop3p, 0x0a, V32, AA, EXEC),
    op("v_pk_sub_u16", Vop3p, 0x0b, V32, AA, EXEC),
    op("v_pk_max_u16", Vop3p, 0x0c, V32, AA, EXEC),
    op("v_pk_min_u16", Vop3p, 0x0d, V32, AA, EXEC),
    op("v_dot4_i32_iu8", Vop3p, 0x16, V32, AAA, EXEC),
    op("v_dot4_u32_u8", Vop3p, 0x17, V32, AAA, EXEC),
    op("v_dot8_i32_iu4", Vop3p, 0x18, V32, AAA, EXEC),
    op("v_dot8_u32_u4", Vop3p, 0x19, V32, AAA, EXEC),
    // WMMA (VOP3PInstructions.td `V_WMMA_I32_16X16X16_IU8/IU4`, gfx11
    // opcodes 0x44 / 0x45): A and B 4 VGPRs (iu8) or 2 (iu4); neg_lo[1:0]
    // the signedness of A and B, clamp; no op_sel.
    op("v_wmma_i32_16x16x16_iu8", Vop3p, 0x44, Acc, WMMA8, EXEC),
    op("v_wmma_i32_16x16x16_iu4", Vop3p, 0x45, Acc, WMMA4, EXEC),
    // VOPC: e32 writes VCC, e64 a mask SGPR, v_cmpx EXEC (gfx11: no sdst).
    op("v_cmp_lt_i32_e32", Vopc, 0x41, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_eq_i32_e32", Vopc, 0x42, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_le_i32_e32", Vopc, 0x43, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_gt_i32_e32", Vopc, 0x44, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_ne_i32_e32", Vopc, 0x45, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_ge_i32_e32", Vopc, 0x46, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_lt_u32_e32", Vopc, 0x49, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_eq_u32_e32", Vopc, 0x4a, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_le_u32_e32", Vopc, 0x4b, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_gt_u32_e32", Vopc, 0x4c, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_ne_u32_e32", Vopc, 0x4d, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_ge_u32_e32", Vopc, 0x4e, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_lt_i64_e32", Vopc, 0x51, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_eq_u64_e32", Vopc, 0x5a, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_lt_i32_e64", Vop3, 0x41, Mask, AA, EXEC),
    op("v_cmp_gt_u32_e64", Vop3, 0x4c, Mask, AA, EXEC),
    op("v_cmpx_gt_u32_e32", Vopc, 0xcc, None, AV, EXEC_RW),
    // 16-bit integer VALU (true16: `.l`/`.h` halves; VOP3 OPSEL bits
    // 11-13 the sources' halves, 14 the destination's; VOP1/VOPC: bit 7 of
    // the VGPR number). Opcodes from llvm-mc-22 -mattr=+real-true16.
    with_clamp(op("v_add_nc_u16", Vop3, 0x303, V16, HH, EXEC)),
    with_clamp(op("v_sub_nc_u16", Vop3, 0x304, V16, HH, EXEC)),
    op("v_mul_lo_u16", Vop3, 0x305, V16, HH, EXEC),
    op("v_max_u16", Vop3, 0x309, V16, HH, EXEC),
    op("v_max_i16", Vop3, 0x30a, V16, HH, EXEC),
    op("v_min_u16", Vop3, 0x30b, V16, HH, EXEC),
    op("v_min_i16", Vop3, 0x30c, V16, HH, EXEC),
    with_clamp(op("v_add_nc_i16", Vop3, 0x30d, V16, HH, EXEC)),
    with_clamp(op("v_sub_nc_i16", Vop3, 0x30e, V16, HH, EXEC)),
    op("v_cvt_pk_u16_u32", Vop3, 0x323, V32, AA, EXEC),
    op("v_cvt_pk_i16_i32", Vop3, 0x324, V32, AA, EXEC),
    op("v_lshlrev_b16", Vop3, 0x338, V16, HH, EXEC),
    op("v_lshrrev_b16", Vop3, 0x339, V16, HH, EXEC),
    op("v_ashrrev_i16", Vop3, 0x33a, V16, HH, EXEC),
    op("v_and_b16", Vop3, 0x362, V16, HH, EXEC),
    op("v_or_b16", Vop3, 0x363, V16, HH, EXEC),
    op("v_xor_b16", Vop3, 0x364, V16, HH, EXEC),
    with_clamp(op("v_mad_u16", Vop3, 0x241, V16, HHH, EXEC)),
    with_clamp(op("v_min3_i16", Vop3, 0x24a, V16, HHH, EXEC)),
    with_clamp(op("v_min3_u16", Vop3, 0x24b, V16, HHH, EXEC)),
    with_clamp(op("v_max3_i16", Vop3, 0x24d, V16, HHH, EXEC)),
    with_clamp(op("v_max3_u16", Vop3, 0x24e, V16, HHH, EXEC)),
    with_clamp(op("v_med3_i16", Vop3, 0x250, V16, HHH, EXEC)),
    with_clamp(op("v_med3_u16", Vop3, 0x251, V16, HHH, EXEC)),
    with_clamp(op("v_mad_i16", Vop3, 0x253, V16, HHH, EXEC)),
    with_clamp(op("v_mad_u32_u16", Vop3, 0x259, V32, HHA, EXEC)),
    with_clamp(op("v_mad_i32_i16", Vop3, 0x25a, V32, HHA, EXEC)),
    op("v_cndmask_b16", Vop3, 0x25d, V16, HHM, EXEC),
    op("v_mov_b16_e32", Vop1, 0x1c, V16, H1, EXEC),
    op("v_sat_pk_u8_i16_e32", Vop1, 0x62, V16, A1, EXEC),
    op("v_swap_b16", Vop1, 0x66, V16, V1H, EXEC),
    op("v_not_b16_e32", Vop1, 0x69, V16, H1, EXEC),
    op("v_cvt_i32_i16_e32", Vop1, 0x6a, V32, H1, EXEC),
    op("v_cvt_u32_u16_e32", Vop1, 0x6b, V32, H1, EXEC),
    op("v_mov_b16_e64", Vop3, 0x19c, V16, H1, EXEC),
    op("v_sat_pk_u8_i16_e64", Vop3, 0x1e2, V16, A1, EXEC),
    op("v_not_b16_e64", Vop3, 0x1e9, V16, H1, EXEC),
    op("v_cvt_i32_i16_e64", Vop3, 0x1ea, V32, H1, EXEC),
    op("v_cvt_u32_u16_e64", Vop3, 0x1eb, V32, H1, EXEC),
    op("v_cmp_lt_i16_e32", Vopc, 0x31, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_eq_i16_e32", Vopc, 0x32, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_le_i16_e32", Vopc, 0x33, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_gt_i16_e32", Vopc, 0x34, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_ne_i16_e32", Vopc, 0x35, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_ge_i16_e32", Vopc, 0x36, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_lt_u16_e32", Vopc, 0x39, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_eq_u16_e32", Vopc, 0x3a, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_le_u16_e32", Vopc, 0x3b, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_gt_u16_e32", Vopc, 0x3c, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_ne_u16_e32", Vopc, 0x3d, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_ge_u16_e32", Vopc, 0x3e, Vcc, HV, EXEC_W_VCC),
    op("v_cmp_lt_i16_e64", Vop3, 0x31, Mask, HH, EXEC),
    op("v_cmp_eq_i16_e64", Vop3, 0x32, Mask, HH, EXEC),
    op("v_cmp_le_i16_e64", Vop3, 0x33, Mask, HH, EXEC),
    op("v_cmp_gt_i16_e64", Vop3, 0x34, Mask, HH, EXEC),
    op("v_cmp_ne_i16_e64", Vop3, 0x35, Mask, HH, EXEC),
    op("v_cmp_ge_i16_e64", Vop3, 0x36, Mask, HH, EXEC),
    op("v_cmp_lt_u16_e64", Vop3, 0x39, Mask, HH, EXEC),
    op("v_cmp_eq_u16_e64", Vop3, 0x3a, Mask, HH, EXEC),
    op("v_cmp_le_u16_e64", Vop3, 0x3b, Mask, HH, EXEC),
    op("v_cmp_gt_u16_e64", Vop3, 0x3c, Mask, HH, EXEC),
    op("v_cmp_ne_u16_e64", Vop3, 0x3d, Mask, HH, EXEC),
    op("v_cmp_ge_u16_e64", Vop3, 0x3e, Mask, HH, EXEC),
    op("v_cmpx_lt_i16_e32", Vopc, 0xb1, None, HV, EXEC_RW),
    op("v_cmpx_eq_i16_e32", Vopc, 0xb2, None, HV, EXEC_RW),
    op("v_cmpx_le_i16_e32", Vopc, 0xb3, None, HV, EXEC_RW),
    op("v_cmpx_gt_i16_e32", Vopc, 0xb4, None, HV, EXEC_RW),
    op("v_cmpx_ne_i16_e32", Vopc, 0xb5, None, HV, EXEC_RW),
    op("v_cmpx_ge_i16_e32", Vopc, 0xb6, None, HV, EXEC_RW),
    op("v_cmpx_lt_u16_e32", Vopc, 0xb9, None, HV, EXEC_RW),
    op("v_cmpx_eq_u16_e32", Vopc, 0xba, None, HV, EXEC_RW),
    op("v_cmpx_le_u16_e32", Vopc, 0xbb, None, HV, EXEC_RW),
    op("v_cmpx_gt_u16_e32", Vopc, 0xbc, None, HV, EXEC_RW),
    op("v_cmpx_ne_u16_e32", Vopc, 0xbd, None, HV, EXEC_RW),
    op("v_cmpx_ge_u16_e32", Vopc, 0xbe, None, HV, EXEC_RW),
    op("v_cmpx_lt_i16_e64", Vop3, 0xb1, None, HH, EXEC_RW),
    op("v_cmpx_eq_i16_e64", Vop3, 0xb2, None, HH, EXEC_RW),
    op("v_cmpx_le_i16_e64", Vop3, 0xb3, None, HH, EXEC_RW),
    op("v_cmpx_gt_i16_e64", Vop3, 0xb4, None, HH, EXEC_RW),
    op("v_cmpx_ne_i16_e64", Vop3, 0xb5, None, HH, EXEC_RW),
    op("v_cmpx_ge_i16_e64", Vop3, 0xb6, None, HH, EXEC_RW),
    op("v_cmpx_lt_u16_e64", Vop3, 0xb9, None, HH, EXEC_RW),
    op("v_cmpx_eq_u16_e64", Vop3, 0xba, None, HH, EXEC_RW),
    op("v_cmpx_le_u16_e64", Vop3, 0xbb, None, HH, EXEC_RW),
    op("v_cmpx_gt_u16_e64", Vop3, 0xbc, None, HH, EXEC_RW),
    op("v_cmpx_ne_u16_e64", Vop3, 0xbd, None, HH, EXEC_RW),
    op("v_cmpx_ge_u16_e64", Vop3, 0xbe, None, HH, EXEC_RW),
    // SOP2 (more).
    op("s_lshl3_add_u32", Sop2, 0x10, S32, SS, W_SCC),
    op("s_nand_b64", Sop2, 0x1d, S64, S64S64, W_SCC),
    op("s_nor_b32", Sop2, 0x1e, S32, SS, W_SCC),
    op("s_nor_b64", Sop2, 0x1f, S64, S64S64, W_SCC),
    op("s_xnor_b64", Sop2, 0x21, S64, S64S64, W_SCC),
    op("s_and_not1_b64", Sop2, 0x23, S64, S64S64, W_SCC),
    op("s_or_not1_b32", Sop2, 0x24, S32, SS, W_SCC),
    op("s_or_not1_b64", Sop2, 0x25, S64, S64S64, W_SCC),
    op("s_bfm_b64", Sop2, 0x2b, S64, SS, PURE),
    // SOP1 (more).
    op("s_mov_b64", Sop1, 0x01, S64, S64ONE, PURE),
    op("s_cmov_b64", Sop1, 0x03, S64, S64ONE, R_SCC),
    op("s_clz_i32_u64", Sop1, 0x0b, S32, S64ONE, PURE),
    op("s_cls_i32_i64", Sop1, 0x0d, S32, S64ONE, PURE),
    op("s_bitset0_b64", Sop1, 0x11, S64, S1, PURE),
    op("s_bitset1_b64", Sop1, 0x13, S64, S1, PURE),
    op("s_bcnt0_i32_b64", Sop1, 0x17, S32, S64ONE, W_SCC),
    op("s_bcnt1_i32_b64", Sop1, 0x19, S32, S64ONE, W_SCC),
    op("s_quadmask_b64", Sop1, 0x1b, S64, S64ONE, W_SCC),
    op("s_wqm_b64", Sop1, 0x1d, S64, S64ONE, W_SCC),
    op("s_not_b64", Sop1, 0x1f, S64, S64ONE, W_SCC),
    // SOP1 saveexec / wrexec (EXEC read and written: RDNA3 guide, e.g.
    // S_AND_SAVEEXEC_B32 "saveexec = EXEC.u32; EXEC.u32 = (S0.u32 & EXEC.u32);
    // D0.u32 = saveexec.u32; SCC = EXEC.u32 != 0U").
    op("s_and_saveexec_b32", Sop1, 0x20, S32, S1, SAVEEXEC),
    op("s_and_saveexec_b64", Sop1, 0x21, S64, S64ONE, SAVEEXEC),
    op("s_or_saveexec_b32", Sop1, 0x22, S32, S1, SAVEEXEC),
    op("s_or_saveexec_b64", Sop1, 0x23, S64, S64ONE, SAVEEXEC),
    op("s_xor_saveexec_b32", Sop1, 0x24, S32, S1, SAVEEXEC),
    op("s_xor_saveexec_b64", Sop1, 0x25, S64, S64ONE, SAVEEXEC),
    op("s_nand_saveexec_b32", Sop1, 0x26, S32, S1, SAVEEXEC),
    op("s_nand_saveexec_b64", Sop1, 0x27, S64, S64ONE, SAVEEXEC),
    op("s_nor_saveexec_b32", Sop1, 0x28, S32, S1, SAVEEXEC),
    op("s_nor_saveexec_b64", Sop1, 0x29, S64, S64ONE, SAVEEXEC),
    op("s_xnor_saveexec_b32", Sop1, 0x2a, S32, S1, SAVEEXEC),
    op("s_xnor_saveexec_b64", Sop1, 0x2b, S64, S64ONE, SAVEEXEC),
    op("s_and_not0_saveexec_b32", Sop1, 0x2c, S32, S1, SAVEEXEC),
    op("s_and_not0_saveexec_b64", Sop1, 0x2d, S64, S64ONE, SAVEEXEC),
    op("s_or_not0_saveexec_b32", Sop1, 0x2e, S32, S1, SAVEEXEC),
    op("s_or_not0_saveexec_b64", Sop1, 0x2f, S64, S64ONE, SAVEEXEC),
    op("s_and_not1_saveexec_b32", Sop1, 0x30, S32, S1, SAVEEXEC),
    op("s_and_not1_saveexec_b64", Sop1, 0x31, S64, S64ONE, SAVEEXEC),
    op("s_or_not1_saveexec_b32", Sop1, 0x32, S32, S1, SAVEEXEC),
    op("s_or_not1_saveexec_b64", Sop1, 0x33, S64, S64ONE, SAVEEXEC),
    op("s_and_not0_wrexec_b32", Sop1, 0x34, S32, S1, SAVEEXEC),
    op("s_and_not0_wrexec_b64", Sop1, 0x35, S64, S64ONE, SAVEEXEC),
    op("s_and_not1_wrexec_b32", Sop1, 0x36, S32, S1, SAVEEXEC),
    op("s_and_not1_wrexec_b64", Sop1, 0x37, S64, S64ONE, SAVEEXEC),
    // SOPC (more).
    op("s_cmp_lg_i32", Sopc, 0x01, None, SS, W_SCC),
    op("s_cmp_gt_i32", Sopc, 0x02, None, SS, W_SCC),
    op("s_cmp_le_i32", Sopc, 0x05, None, SS, W_SCC),
    op("s_cmp_eq_u32", Sopc, 0x06, None, SS, W_SCC),
    op("s_cmp_ge_u32", Sopc, 0x09, None, SS, W_SCC),
    op("s_cmp_lt_u32", Sopc, 0x0a, None, SS, W_SCC),
    op("s_bitcmp0_b32", Sopc, 0x0c, None, SS, W_SCC),
    op("s_bitcmp1_b64", Sopc, 0x0f, None, S64S, W_SCC),
    op("s_cmp_eq_u64", Sopc, 0x10, None, S64S64, W_SCC),
    // SOPK: the SGPR is the destination (and, for cmovk/addk/mulk, a
    // source too), or for s_cmpk_* the first source; SIMM16 the other.
    op("s_movk_i32", Sopk, 0x00, S32, K1, PURE),
    op("s_cmovk_i32", Sopk, 0x02, S32, K1, R_SCC),
    op("s_cmpk_eq_i32", Sopk, 0x03, None, SK, W_SCC),
    op("s_cmpk_lg_i32", Sopk, 0x04, None, SK, W_SCC),
    op("s_cmpk_gt_i32", Sopk, 0x05, None, SK, W_SCC),
    op("s_cmpk_ge_i32", Sopk, 0x06, None, SK, W_SCC),
    op("s_cmpk_lt_i32", Sopk, 0x07, None, SK, W_SCC),
    op("s_cmpk_le_i32", Sopk, 0x08, None, SK, W_SCC),
    op("s_cmpk_eq_u32", Sopk, 0x09, None, SK, W_SCC),
    op("s_cmpk_lg_u32", Sopk, 0x0a, None, SK, W_SCC),
    op("s_cmpk_gt_u32", Sopk, 0x0b, None, SK, W_SCC),
    op("s_cmpk_ge_u32", Sopk, 0x0c, None, SK, W_SCC),
    op("s_cmpk_lt_u32", Sopk, 0x0d, None, SK, W_SCC),
    op("s_cmpk_le_u32", Sopk, 0x0e, None, SK, W_SCC),
    op("s_addk_i32", Sopk, 0x0f, S32, K1, W_SCC),
    op("s_mulk_i32", Sopk, 0x10, S32, K1, PURE),
    // SOPK/SOP1 forms the software device decodes that have no program of
    // qualify's corpus: s_version (its SIMM16 only), the split waitcnts
    // (an SGPR field llvm-mc takes only as `null`, and SIMM16), and the
    // program-counter moves.
    op("s_version", Sopk, 0x01, None, K1, PURE),
    op("s_waitcnt_vscnt", Sopk, 0x18, None, NK, PURE),
    op("s_waitcnt_vmcnt", Sopk, 0x19, None, NK, PURE),
    op("s_waitcnt_expcnt", Sopk, 0x1a, None, NK, PURE),
    op("s_waitcnt_lgkmcnt", Sopk, 0x1b, None, NK, PURE),
    op("s_getpc_b64", Sop1, 0x47, S64, &[], PURE),
    // S_SETPC_B64's source is `SOP1_1`'s `SReg_64` (a register only);
    // S_SWAPPC_B64's is `SOP1_64`'s `SSrc_b64`.
    op("s_setpc_b64", Sop1, 0x48, None, G64, PURE),
    op("s_swappc_b64", Sop1, 0x49, S64, S64ONE, PURE),
    // The M0-relative SGPR moves (`SOPInstructions.td`: `Uses = [M0]` on
    // S_MOVRELS_B32/_B64, S_MOVRELD_B32/_B64 and S_MOVRELSD_2_B32; the
    // guide's pseudocode adds M0 to the operand fields, e.g. S_MOVRELS_B32
    // "addr = SRC0.u32; addr += M0.u32[31 : 0]; D0.b32 = SGPR[addr].b32").
    // An indexed operand is a register number, so an SGPR-only kind:
    // s_movrels' source and destination (`SOP1_32R`, `SOP1_64R`), and
    // s_movreld's destination, which LLVM lists as a use (`SOP1_32_movreld`:
    // "sdst is treated as a use operand"). s_movreld's source is a value
    // ("SGPR[addr].b32 = S0.b32"; LLVM `SSrc_b32`/`SSrc_b64`: llvm-mc-22
    // takes an SGPR, an inline constant or a literal), so a scalar source
    // kind. s_movrelsd_2's is LLVM's `SSrc_b32` too (`SOP1_32`), which
    // llvm-mc-22 takes a constant or literal for, though the pseudocode
    // reads its raw field as a register number ("addrs = SRC0.u32 // Raw
    // value from instruction"; `emu::decode::SMovrel::indices`): a scalar
    // source kind, as LLVM has it.
    op("s_movrels_b32", Sop1, 0x40, Sgpr32, G1, R_M0),
    op("s_movrels_b64", Sop1, 0x41, Sgpr64, G64, R_M0),
    op("s_movreld_b32", Sop1, 0x42, Sgpr32, S1, R_M0),
    op("s_movreld_b64", Sop1, 0x43, Sgpr64, S64ONE, R_M0),
    op("s_movrelsd_2_b32", Sop1, 0x44, Sgpr32, S1, R_M0),
    // v_nop, and the M0-relative VGPR moves (VOP1; the VOP3 form is
    // 0x180 + the VOP1 opcode, none for v_swaprel_b32).
    op("v_nop", Vop1, 0x00, None, &[], EXEC),
    op("v_movreld_b32_e32", Vop1, 0x42, V32, A1, EXEC_M0),
    op("v_movrels_b32_e32", Vop1, 0x43, V32, V1, EXEC_M0),
    op("v_movrelsd_b32_e32", Vop1, 0x44, V32, V1, EXEC_M0),
    op("v_movrelsd_2_b32_e32", Vop1, 0x48, V32, V1, EXEC_M0),
    op("v_swaprel_b32", Vop1, 0x68, V32, V1, EXEC_M0),
    op("v_movreld_b32_e64", Vop3, 0x1c2, V32, A1, EXEC_M0),
    op("v_movrels_b32_e64", Vop3, 0x1c3, V32, V1, EXEC_M0),
    op("v_movrelsd_b32_e64", Vop3, 0x1c4, V32, V1, EXEC_M0),
    op("v_movrelsd_2_b32_e64", Vop3, 0x1c8, V32, V1, EXEC_M0),
    // V_CVT_F32_UBYTE0..3: one byte of S0, as an f32 (exact: 0..255).
    op("v_cvt_f32_ubyte0_e32", Vop1, 0x11, V32, A1, EXEC),
    op("v_cvt_f32_ubyte1_e32", Vop1, 0x12, V32, A1, EXEC),
    op("v_cvt_f32_ubyte2_e32", Vop1, 0x13, V32, A1, EXEC),
    op("v_cvt_f32_ubyte3_e32", Vop1, 0x14, V32, A1, EXEC),
    op("v_cvt_f32_ubyte0_e64", Vop3, 0x191, V32, A1, EXEC),
    op("v_cvt_f32_ubyte1_e64", Vop3, 0x192, V32, A1, EXEC),
    op("v_cvt_f32_ubyte2_e64", Vop3, 0x193, V32, A1, EXEC),
    op("v_cvt_f32_ubyte3_e64", Vop3, 0x194, V32, A1, EXEC),
    // VOP1 / VOP2 (more), and the VOP3 (e64) forms of VOP1 (0x180 + op)
    // and VOP2 (0x100 + op).
    op("v_readfirstlane_b32", Vop1, 0x02, S32, V1, EXEC),
    op("v_swap_b32", Vop1, 0x65, V32, V1, EXEC),
    op("v_mul_hi_i32_i24_e32", Vop2, 0x0a, V32, AV, EXEC),
    with_sdst(
        op("v_subrev_co_ci_u32_e32", Vop2, 0x22, V32, AVC, EXEC_RW_VCC),
        Vcc,
    ),
    op("v_mov_b32_e64", Vop3, 0x181, V32, A1, EXEC),
    op("v_not_b32_e64", Vop3, 0x1b7, V32, A1, EXEC),
    op("v_bfrev_b32_e64", Vop3, 0x1b8, V32, A1, EXEC),
    op("v_clz_i32_u32_e64", Vop3, 0x1b9, V32, A1, EXEC),
    op("v_ctz_i32_b32_e64", Vop3, 0x1ba, V32, A1, EXEC),
    op("v_cls_i32_e64", Vop3, 0x1bb, V32, A1, EXEC),
    op("v_mul_i32_i24_e64", Vop3, 0x109, V32, AA, EXEC),
    op("v_mul_hi_i32_i24_e64", Vop3, 0x10a, V32, AA, EXEC),
    op("v_mul_u32_u24_e64", Vop3, 0x10b, V32, AA, EXEC),
    op("v_mul_hi_u32_u24_e64", Vop3, 0x10c, V32, AA, EXEC),
    op("v_min_i32_e64", Vop3, 0x111, V32, AA, EXEC),
    op("v_max_i32_e64", Vop3, 0x112, V32, AA, EXEC),
    op("v_min_u32_e64", Vop3, 0x113, V32, AA, EXEC),
    op("v_max_u32_e64", Vop3, 0x114, V32, AA, EXEC),
    op("v_lshlrev_b32_e64", Vop3, 0x118, V32, AA, EXEC),
    op("v_lshrrev_b32_e64", Vop3, 0x119, V32, AA, EXEC),
    op("v_ashrrev_i32_e64", Vop3, 0x11a, V32, AA, EXEC),
    op("v_and_b32_e64", Vop3, 0x11b, V32, AA, EXEC),
    op("v_or_b32_e64", Vop3, 0x11c, V32, AA, EXEC),
    op("v_xor_b32_e64", Vop3, 0x11d, V32, AA, EXEC),
    op("v_xnor_b32_e64", Vop3, 0x11e, V32, AA, EXEC),
    op("v_add_nc_u32_e64", Vop3, 0x125, V32, AA, EXEC),
    op("v_sub_nc_u32_e64", Vop3, 0x126, V32, AA, EXEC),
    op("v_subrev_nc_u32_e64", Vop3, 0x127, V32, AA, EXEC),
    with_sdst(op("v_sub_co_ci_u32_e64", Vop3, 0x121, V32, AAM, EXEC), Mask),
    with_sdst(
        op("v_subrev_co_ci_u32_e64", Vop3, 0x122, V32, AAM, EXEC),
        Mask,
    ),
    // VOP3 (more); v_readlane_b32 writes an SGPR (in the vdst field),
    // v_writelane_b32 reads S0 and the lane select from scalars.
    op("v_alignbyte_b32", Vop3, 0x217, V32, AAA, EXEC),
    op("v_max3_u32", Vop3, 0x21e, V32, AAA, EXEC),
    op("v_xad_u32", Vop3, 0x245, V32, AAA, EXEC),
    op("v_bfm_b32", Vop3, 0x31d, V32, AA, EXEC),
    op("v_bcnt_u32_b32", Vop3, 0x31e, V32, AA, EXEC),
    op("v_sub_nc_i32", Vop3, 0x325, V32, AA, EXEC),
    op("v_add_nc_i32", Vop3, 0x326, V32, AA, EXEC),
    op("v_lshrrev_b64", Vop3, 0x33d, V64, AA64, EXEC),
    op("v_readlane_b32", Vop3, 0x360, S32, VS, LANE),
    op("v_writelane_b32", Vop3, 0x361, V32, SS, LANE),
    with_sdst(op("v_subrev_co_u32", Vop3, 0x302, V32, AA, EXEC), Mask),
    // VOPC: every integer 32/64-bit compare, e32 (VCC) and e64 (an SGPR
    // mask), v_cmpx (EXEC) in both; opcodes 0x40 + 8 * type + cond,
    // v_cmpx + 0x80 (LLVM VOPCInstructions.td).
    op("v_cmp_f_i32_e32", Vopc, 0x40, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_f_i32_e64", Vop3, 0x40, Mask, AA, EXEC),
    op("v_cmpx_f_i32_e32", Vopc, 0xc0, None, AV, EXEC_RW),
    op("v_cmpx_f_i32_e64", Vop3, 0xc0, None, AA, EXEC_RW),
    op("v_cmpx_lt_i32_e32", Vopc, 0xc1, None, AV, EXEC_RW),
    op("v_cmpx_lt_i32_e64", Vop3, 0xc1, None, AA, EXEC_RW),
    op("v_cmp_eq_i32_e64", Vop3, 0x42, Mask, AA, EXEC),
    op("v_cmpx_eq_i32_e32", Vopc, 0xc2, None, AV, EXEC_RW),
    op("v_cmpx_eq_i32_e64", Vop3, 0xc2, None, AA, EXEC_RW),
    op("v_cmp_le_i32_e64", Vop3, 0x43, Mask, AA, EXEC),
    op("v_cmpx_le_i32_e32", Vopc, 0xc3, None, AV, EXEC_RW),
    op("v_cmpx_le_i32_e64", Vop3, 0xc3, None, AA, EXEC_RW),
    op("v_cmp_gt_i32_e64", Vop3, 0x44, Mask, AA, EXEC),
    op("v_cmpx_gt_i32_e32", Vopc, 0xc4, None, AV, EXEC_RW),
    op("v_cmpx_gt_i32_e64", Vop3, 0xc4, None, AA, EXEC_RW),
    op("v_cmp_ne_i32_e64", Vop3, 0x45, Mask, AA, EXEC),
    op("v_cmpx_ne_i32_e32", Vopc, 0xc5, None, AV, EXEC_RW),
    op("v_cmpx_ne_i32_e64", Vop3, 0xc5, None, AA, EXEC_RW),
    op("v_cmp_ge_i32_e64", Vop3, 0x46, Mask, AA, EXEC),
    op("v_cmpx_ge_i32_e32", Vopc, 0xc6, None, AV, EXEC_RW),
    op("v_cmpx_ge_i32_e64", Vop3, 0xc6, None, AA, EXEC_RW),
    op("v_cmp_t_i32_e32", Vopc, 0x47, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_t_i32_e64", Vop3, 0x47, Mask, AA, EXEC),
    op("v_cmpx_t_i32_e32", Vopc, 0xc7, None, AV, EXEC_RW),
    op("v_cmpx_t_i32_e64", Vop3, 0xc7, None, AA, EXEC_RW),
    op("v_cmp_f_u32_e32", Vopc, 0x48, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_f_u32_e64", Vop3, 0x48, Mask, AA, EXEC),
    op("v_cmpx_f_u32_e32", Vopc, 0xc8, None, AV, EXEC_RW),
    op("v_cmpx_f_u32_e64", Vop3, 0xc8, None, AA, EXEC_RW),
    op("v_cmp_lt_u32_e64", Vop3, 0x49, Mask, AA, EXEC),
    op("v_cmpx_lt_u32_e32", Vopc, 0xc9, None, AV, EXEC_RW),
    op("v_cmpx_lt_u32_e64", Vop3, 0xc9, None, AA, EXEC_RW),
    op("v_cmp_eq_u32_e64", Vop3, 0x4a, Mask, AA, EXEC),
    op("v_cmpx_eq_u32_e32", Vopc, 0xca, None, AV, EXEC_RW),
    op("v_cmpx_eq_u32_e64", Vop3, 0xca, None, AA, EXEC_RW),
    op("v_cmp_le_u32_e64", Vop3, 0x4b, Mask, AA, EXEC),
    op("v_cmpx_le_u32_e32", Vopc, 0xcb, None, AV, EXEC_RW),
    op("v_cmpx_le_u32_e64", Vop3, 0xcb, None, AA, EXEC_RW),
    op("v_cmpx_gt_u32_e64", Vop3, 0xcc, None, AA, EXEC_RW),
    op("v_cmp_ne_u32_e64", Vop3, 0x4d, Mask, AA, EXEC),
    op("v_cmpx_ne_u32_e32", Vopc, 0xcd, None, AV, EXEC_RW),
    op("v_cmpx_ne_u32_e64", Vop3, 0xcd, None, AA, EXEC_RW),
    op("v_cmp_ge_u32_e64", Vop3, 0x4e, Mask, AA, EXEC),
    op("v_cmpx_ge_u32_e32", Vopc, 0xce, None, AV, EXEC_RW),
    op("v_cmpx_ge_u32_e64", Vop3, 0xce, None, AA, EXEC_RW),
    op("v_cmp_t_u32_e32", Vopc, 0x4f, Vcc, AV, EXEC_W_VCC),
    op("v_cmp_t_u32_e64", Vop3, 0x4f, Mask, AA, EXEC),
    op("v_cmpx_t_u32_e32", Vopc, 0xcf, None, AV, EXEC_RW),
    op("v_cmpx_t_u32_e64", Vop3, 0xcf, None, AA, EXEC_RW),
    op("v_cmp_f_i64_e32", Vopc, 0x50, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_f_i64_e64", Vop3, 0x50, Mask, A64A64, EXEC),
    op("v_cmpx_f_i64_e32", Vopc, 0xd0, None, A64V, EXEC_RW),
    op("v_cmpx_f_i64_e64", Vop3, 0xd0, None, A64A64, EXEC_RW),
    op("v_cmp_lt_i64_e64", Vop3, 0x51, Mask, A64A64, EXEC),
    op("v_cmpx_lt_i64_e32", Vopc, 0xd1, None, A64V, EXEC_RW),
    op("v_cmpx_lt_i64_e64", Vop3, 0xd1, None, A64A64, EXEC_RW),
    op("v_cmp_eq_i64_e32", Vopc, 0x52, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_eq_i64_e64", Vop3, 0x52, Mask, A64A64, EXEC),
    op("v_cmpx_eq_i64_e32", Vopc, 0xd2, None, A64V, EXEC_RW),
    op("v_cmpx_eq_i64_e64", Vop3, 0xd2, None, A64A64, EXEC_RW),
    op("v_cmp_le_i64_e32", Vopc, 0x53, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_le_i64_e64", Vop3, 0x53, Mask, A64A64, EXEC),
    op("v_cmpx_le_i64_e32", Vopc, 0xd3, None, A64V, EXEC_RW),
    op("v_cmpx_le_i64_e64", Vop3, 0xd3, None, A64A64, EXEC_RW),
    op("v_cmp_gt_i64_e32", Vopc, 0x54, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_gt_i64_e64", Vop3, 0x54, Mask, A64A64, EXEC),
    op("v_cmpx_gt_i64_e32", Vopc, 0xd4, None, A64V, EXEC_RW),
    op("v_cmpx_gt_i64_e64", Vop3, 0xd4, None, A64A64, EXEC_RW),
    op("v_cmp_ne_i64_e32", Vopc, 0x55, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_ne_i64_e64", Vop3, 0x55, Mask, A64A64, EXEC),
    op("v_cmpx_ne_i64_e32", Vopc, 0xd5, None, A64V, EXEC_RW),
    op("v_cmpx_ne_i64_e64", Vop3, 0xd5, None, A64A64, EXEC_RW),
    op("v_cmp_ge_i64_e32", Vopc, 0x56, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_ge_i64_e64", Vop3, 0x56, Mask, A64A64, EXEC),
    op("v_cmpx_ge_i64_e32", Vopc, 0xd6, None, A64V, EXEC_RW),
    op("v_cmpx_ge_i64_e64", Vop3, 0xd6, None, A64A64, EXEC_RW),
    op("v_cmp_t_i64_e32", Vopc, 0x57, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_t_i64_e64", Vop3, 0x57, Mask, A64A64, EXEC),
    op("v_cmpx_t_i64_e32", Vopc, 0xd7, None, A64V, EXEC_RW),
    op("v_cmpx_t_i64_e64", Vop3, 0xd7, None, A64A64, EXEC_RW),
    op("v_cmp_f_u64_e32", Vopc, 0x58, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_f_u64_e64", Vop3, 0x58, Mask, A64A64, EXEC),
    op("v_cmpx_f_u64_e32", Vopc, 0xd8, None, A64V, EXEC_RW),
    op("v_cmpx_f_u64_e64", Vop3, 0xd8, None, A64A64, EXEC_RW),
    op("v_cmp_lt_u64_e32", Vopc, 0x59, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_lt_u64_e64", Vop3, 0x59, Mask, A64A64, EXEC),
    op("v_cmpx_lt_u64_e32", Vopc, 0xd9, None, A64V, EXEC_RW),
    op("v_cmpx_lt_u64_e64", Vop3, 0xd9, None, A64A64, EXEC_RW),
    op("v_cmp_eq_u64_e64", Vop3, 0x5a, Mask, A64A64, EXEC),
    op("v_cmpx_eq_u64_e32", Vopc, 0xda, None, A64V, EXEC_RW),
    op("v_cmpx_eq_u64_e64", Vop3, 0xda, None, A64A64, EXEC_RW),
    op("v_cmp_le_u64_e32", Vopc, 0x5b, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_le_u64_e64", Vop3, 0x5b, Mask, A64A64, EXEC),
    op("v_cmpx_le_u64_e32", Vopc, 0xdb, None, A64V, EXEC_RW),
    op("v_cmpx_le_u64_e64", Vop3, 0xdb, None, A64A64, EXEC_RW),
    op("v_cmp_gt_u64_e32", Vopc, 0x5c, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_gt_u64_e64", Vop3, 0x5c, Mask, A64A64, EXEC),
    op("v_cmpx_gt_u64_e32", Vopc, 0xdc, None, A64V, EXEC_RW),
    op("v_cmpx_gt_u64_e64", Vop3, 0xdc, None, A64A64, EXEC_RW),
    op("v_cmp_ne_u64_e32", Vopc, 0x5d, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_ne_u64_e64", Vop3, 0x5d, Mask, A64A64, EXEC),
    op("v_cmpx_ne_u64_e32", Vopc, 0xdd, None, A64V, EXEC_RW),
    op("v_cmpx_ne_u64_e64", Vop3, 0xdd, None, A64A64, EXEC_RW),
    op("v_cmp_ge_u64_e32", Vopc, 0x5e, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_ge_u64_e64", Vop3, 0x5e, Mask, A64A64, EXEC),
    op("v_cmpx_ge_u64_e32", Vopc, 0xde, None, A64V, EXEC_RW),
    op("v_cmpx_ge_u64_e64", Vop3, 0xde, None, A64A64, EXEC_RW),
    op("v_cmp_t_u64_e32", Vopc, 0x5f, Vcc, A64V, EXEC_W_VCC),
    op("v_cmp_t_u64_e64", Vop3, 0x5f, Mask, A64A64, EXEC),
    op("v_cmpx_t_u64_e32", Vopc, 0xdf, None, A64V, EXEC_RW),
    op("v_cmpx_t_u64_e64", Vop3, 0xdf, None, A64A64, EXEC_RW),
];

/// One VOPD half of the table: the mnemonic, its X opcode (4 bits; `None`
/// where it has no X form) and Y opcode (5 bits), its sources' kinds, and
/// its implicit operands, as [`AluOp::implicit`] (LLVM's `Uses` of the
/// VOP2/VOP1 instruction the half is: `V_CNDMASK_B32_e32` reads VCC, every
/// VALU reads EXEC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VopdRow {
    pub name: &'static str,
    pub x: Option<u16>,
    pub y: u16,
    pub srcs: &'static [Kind],
    pub implicit: Implicit,
}

const fn vopd(
    name: &'static str,
    x: Option<u16>,
    y: u16,
    srcs: &'static [Kind],
    implicit: Implicit,
) -> VopdRow {
    VopdRow {
        name,
        x,
        y,
        srcs,
        implicit,
    }
}

/// The VOPD halves (`VOPDInstructions.td`): X opcodes are 4 bits, Y
/// opcodes 5; the integer ones. Only mov and cndmask exist as X halves.
/// The software device's decoder takes the halves' opcodes and implicit
/// operands from here (`emu::decode::VopdOp`, in this order).
pub const VOPD_OPS: &[VopdRow] = &[
    vopd("v_dual_mov_b32", Some(8), 8, &[Any32], EXEC),
    vopd("v_dual_cndmask_b32", Some(9), 9, &[Any32, V32], EXEC_R_VCC),
    vopd("v_dual_add_nc_u32", Option::None, 16, &[Any32, V32], EXEC),
    vopd("v_dual_lshlrev_b32", Option::None, 17, &[Any32, V32], EXEC),
    vopd("v_dual_and_b32", Option::None, 18, &[Any32, V32], EXEC),
];

/// The table entry for `name`.
pub fn alu_op(name: &str) -> Option<&'static AluOp> {
    ALU_OPS.iter().find(|o| o.name == name)
}

/// One operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opnd {
    /// VGPR n (the first of a pair for 64-bit kinds).
    V(u8),
    /// SGPR n (the first of a pair for 64-bit kinds and wave64 masks).
    S(u8),
    /// VCC (VCC_LO in wave32).
    Vcc,
    /// An integer inline constant, -16..=64.
    Int(i8),
    /// A 32-bit literal.
    Lit(u32),
    /// The `null` SGPR (code 124), for a [`Kind::Null`] operand only.
    Null,
}

/// Modifiers of a VOP3P (and VOP3 op_sel) instruction: bit k of each mask
/// is source k's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mods {
    /// VOP3P: the low result half reads source k's high half; VOP3
    /// (v_permlane*16): bit 0 fetch-inactive, bit 1 bound-ctrl.
    pub op_sel: u8,
    /// VOP3P: the high result half reads source k's high half (default all).
    pub op_sel_hi: u8,
    /// VOP3P neg_lo (the iu dot products' signedness selects).
    pub neg_lo: u8,
    pub clamp: bool,
}

impl Default for Mods {
    fn default() -> Mods {
        Mods {
            op_sel: 0,
            op_sel_hi: 0b111,
            neg_lo: 0,
            clamp: false,
        }
    }
}

/// One VALU/SALU instruction: its op and operands in LLVM's order
/// (destination, then the second destination, then the sources).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AluInst {
    pub op: &'static AluOp,
    pub dst: Option<Opnd>,
    pub sdst: Option<Opnd>,
    pub srcs: Vec<Opnd>,
    /// Modifiers. For the 16-bit forms ([`Kind::V16`], [`Kind::Any16`])
    /// `mods.op_sel` holds the halves: bit k (k < 3) source k is `.h`, bit
    /// 3 the destination is (the VOP3 OPSEL layout; VOP1/VOPC carry them in
    /// bit 7 of the VGPR number), and `mods.clamp` the clamp bit.
    pub mods: Mods,
}

/// A VOPD half: `vdst = op(srcs)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VopdHalf {
    pub name: &'static str,
    pub vdst: u8,
    pub srcs: Vec<Opnd>,
}

/// One instruction of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramInst {
    One(AluInst),
    Dual(VopdHalf, VopdHalf),
}

fn is64(k: Kind, wave64: bool) -> bool {
    matches!(k, S64 | Sgpr64 | V64 | Any64) || (matches!(k, Mask | Vcc) && wave64)
}

/// VGPRs of a WMMA's C / D ([`Kind::Acc`]).
fn acc_regs(wave64: bool) -> u16 {
    if wave64 {
        4
    } else {
        8
    }
}

fn opnd_text(o: Opnd, k: Kind, wave64: bool) -> String {
    let wide = is64(k, wave64);
    match o {
        Opnd::V(n) if matches!(k, Acc | AccSrc) => {
            format!("v[{n}:{}]", n as u16 + acc_regs(wave64) - 1)
        }
        Opnd::V(n) if k == V128 => format!("v[{n}:{}]", n as u16 + 3),
        Opnd::V(n) if wide => format!("v[{n}:{}]", n as u16 + 1),
        Opnd::V(n) => format!("v{n}"),
        Opnd::S(n) if wide => format!("s[{n}:{}]", n as u16 + 1),
        Opnd::S(n) => format!("s{n}"),
        Opnd::Vcc if wide => "vcc".into(),
        Opnd::Vcc => "vcc_lo".into(),
        Opnd::Int(n) => n.to_string(),
        Opnd::Lit(v) => format!("{v:#x}"),
        Opnd::Null => "null".into(),
    }
}

/// Source code of an operand (9-bit field) and its literal, if any.
fn src_code(
    o: Opnd,
    k: Kind,
    wave64: bool,
    opname: &'static str,
    index: usize,
) -> Result<(u32, Option<u32>), AluError> {
    let bad = |why: String| AluError::Operand {
        op: opname,
        index,
        why,
    };
    let wide = is64(k, wave64);
    let vgpr_ok = matches!(
        k,
        V32 | V64 | V128 | Any32 | Any64 | V16 | Any16 | Acc | AccSrc
    );
    // An SGPR-only kind takes an SGPR and nothing else the scalar kinds do.
    let sgpr_only = matches!(k, Sgpr32 | Sgpr64);
    let scalar_ok = matches!(k, S32 | S64 | Any32 | Any64 | Mask | Any16);
    let acc = matches!(k, Acc | AccSrc);
    match o {
        Opnd::V(n) if vgpr_ok => {
            if (wide && n == 255)
                || (k == V128 && n > 252)
                || (acc && n as u16 + acc_regs(wave64) > 256)
            {
                return Err(bad(format!("v{n} and up run past v255")));
            }
            Ok((256 + n as u32, Option::None))
        }
        Opnd::S(n) if scalar_ok || sgpr_only => {
            let top = if wide { n as u32 + 1 } else { n as u32 };
            if top > 105 {
                return Err(bad(format!("s{top} is past s105")));
            }
            if wide && n % 2 == 1 {
                return Err(bad(format!(
                    "SGPR pair s[{n}:{}] is not even-aligned",
                    n + 1
                )));
            }
            Ok((n as u32, Option::None))
        }
        Opnd::Vcc if scalar_ok => Ok((106, Option::None)),
        Opnd::Int(n) if scalar_ok || k == AccSrc => match n {
            0..=64 => Ok((128 + n as u32, Option::None)),
            -16..=-1 => Ok((192 + n.unsigned_abs() as u32, Option::None)),
            _ => Err(bad(format!("{n} is not an integer inline constant"))),
        },
        Opnd::Lit(v) if matches!(k, S32 | Any32) => Ok((255, Some(v))),
        // A 16-bit literal: the value in the low half of the literal dword
        // (llvm-mc: `0x1234` -> 0x00001234).
        Opnd::Lit(v) if k == Any16 && v <= 0xffff => Ok((255, Some(v))),
        Opnd::Null if k == Null => Ok((124, Option::None)),
        other => Err(bad(format!("{other:?} cannot be a {k:?} operand"))),
    }
}

fn vgpr(o: Opnd, opname: &'static str, index: usize) -> Result<u32, AluError> {
    match o {
        Opnd::V(n) => Ok(n as u32),
        other => Err(AluError::Operand {
            op: opname,
            index,
            why: format!("{other:?} is not a VGPR"),
        }),
    }
}

fn sdst_code(o: Opnd, k: Kind, wave64: bool, opname: &'static str) -> Result<u32, AluError> {
    match o {
        Opnd::S(_) | Opnd::Vcc => src_code(o, k, wave64, opname, 0).map(|c| c.0),
        other => Err(AluError::Operand {
            op: opname,
            index: 0,
            why: format!("{other:?} is not a scalar destination"),
        }),
    }
}

impl AluInst {
    /// `op` with these operands (checked when encoded).
    pub fn new(
        name: &str,
        dst: Option<Opnd>,
        sdst: Option<Opnd>,
        srcs: Vec<Opnd>,
    ) -> Result<AluInst, AluError> {
        let op = alu_op(name).ok_or_else(|| AluError::Unknown(name.into()))?;
        Ok(AluInst {
            op,
            dst,
            sdst,
            srcs,
            mods: Mods::default(),
        })
    }

    /// The same with modifiers `mods` (checked when encoded).
    pub fn with_mods(mut self, mods: Mods) -> AluInst {
        self.mods = mods;
        self
    }

    /// The same instruction with 16-bit halves `hi` (see [`AluInst::mods`])
    /// and the clamp bit.
    pub fn with_halves(mut self, hi: u8, clamp: bool) -> AluInst {
        self.mods.op_sel = hi;
        self.mods.clamp = clamp;
        self
    }

    /// Whether source `k` is a `.h` half (16-bit forms).
    pub fn src_hi(&self, k: usize) -> bool {
        self.is16() && self.mods.op_sel >> k & 1 == 1
    }

    /// Whether the destination is a `.h` half (16-bit forms).
    pub fn dst_hi(&self) -> bool {
        self.is16() && self.mods.op_sel >> 3 & 1 == 1
    }

    /// Whether the op has 16-bit operands, whose op_sel bits are halves.
    pub fn is16(&self) -> bool {
        let k16 = |k: &Kind| matches!(k, V16 | Any16);
        k16(&self.op.dst) || self.op.srcs.iter().any(k16)
    }

    /// The modifiers as LLVM prints them (after the operands).
    fn mods_text(&self) -> String {
        let n = self.op.srcs.len();
        let used = (1u8 << n) - 1;
        let bits = |v: u8| {
            (0..n)
                .map(|k| (v >> k & 1).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let m = self.mods;
        let mut out = String::new();
        match self.op.format {
            Vop3p => {
                if m.op_sel & used != 0 {
                    let _ = write!(out, " op_sel:[{}]", bits(m.op_sel));
                }
                if m.op_sel_hi & used != used {
                    let _ = write!(out, " op_sel_hi:[{}]", bits(m.op_sel_hi));
                }
                if m.neg_lo & used != 0 {
                    let _ = write!(out, " neg_lo:[{}]", bits(m.neg_lo));
                }
            }
            Vop3 if m.op_sel != 0 => {
                let _ = write!(out, " op_sel:[{},{}]", m.op_sel & 1, m.op_sel >> 1 & 1);
            }
            _ => {}
        }
        if m.clamp {
            out += " clamp";
        }
        out
    }

    /// LLVM's text.
    pub fn text(&self, wave64: bool) -> String {
        let mut parts = Vec::new();
        let half = |o: Opnd, k: Kind, hi: bool| match (o, k) {
            (Opnd::V(n), V16 | Any16) => format!("v{n}.{}", if hi { 'h' } else { 'l' }),
            _ => opnd_text(o, k, wave64),
        };
        if let (Some(d), k) = (self.dst, self.op.dst) {
            parts.push(half(d, k, self.dst_hi()));
        } else if self.op.dst == Vcc {
            parts.push(opnd_text(Opnd::Vcc, Vcc, wave64));
        }
        if let Some(d) = self.sdst {
            parts.push(opnd_text(d, self.op.sdst, wave64));
        } else if self.op.sdst == Vcc {
            parts.push(opnd_text(Opnd::Vcc, Vcc, wave64));
        }
        for (i, (k, s)) in self.op.srcs.iter().zip(&self.srcs).enumerate() {
            parts.push(half(*s, *k, self.src_hi(i)));
        }
        // An e32's implicit VCC source.
        if self.op.srcs.last() == Some(&Vcc) && self.srcs.len() < self.op.srcs.len() {
            parts.push(opnd_text(Opnd::Vcc, Vcc, wave64));
        }
        let mut t = format!("{} {}", self.op.name, parts.join(", "));
        if !self.is16() {
            return t + &self.mods_text();
        }
        // llvm-mc prints the VOP3 OPSEL it derived from the halves (one
        // entry per source, then the destination's, which compares without
        // a destination, v_cmpx, leave out); none for v_cndmask_b16.
        let opsel = self.mods.op_sel & 0xf;
        if self.op.format == Vop3 && opsel != 0 && self.op.name != "v_cndmask_b16" {
            let n = self.op.srcs.len();
            let mut bits: Vec<String> = (0..n).map(|k| (opsel >> k & 1).to_string()).collect();
            if self.op.dst != None {
                bits.push((opsel >> 3 & 1).to_string());
            }
            t.push_str(&format!(" op_sel:[{}]", bits.join(",")));
        }
        if self.mods.clamp {
            t.push_str(" clamp");
        }
        t
    }

    /// The encoded words (a literal, if any, last).
    pub fn encode(&self, wave64: bool) -> Result<Vec<u32>, AluError> {
        let op = self.op;
        let n = op.name;
        let rule = |why: &str| AluError::Rule {
            op: n,
            why: why.into(),
        };
        let explicit: Vec<Kind> = op.srcs.iter().copied().filter(|k| *k != Vcc).collect();
        if self.srcs.len() != explicit.len() {
            return Err(rule(&format!(
                "expected {} sources, got {}",
                explicit.len(),
                self.srcs.len()
            )));
        }
        let needs_dst = !matches!(op.dst, None | Vcc);
        if needs_dst != self.dst.is_some() {
            return Err(rule("destination missing or not expected"));
        }
        if (op.sdst == Mask) != self.sdst.is_some() {
            return Err(rule("scalar destination missing or not expected"));
        }
        if op.format == Sopk {
            // The SGPR is the destination (s_movk_i32, s_cmovk_i32,
            // s_addk_i32, s_mulk_i32, which also read it) or, for
            // s_cmpk_* and the split waitcnts, the first source; SIMM16
            // fills bits 15:0.
            let first = op.srcs.first().copied().unwrap_or(None);
            let (reg, kind, imm) = match (self.dst, self.srcs.as_slice()) {
                (Some(d), [Opnd::Lit(v)]) => (d, op.dst, *v),
                (Option::None, [r, Opnd::Lit(v)]) => (*r, first, *v),
                // s_version: SIMM16 alone; llvm-mc writes 0 in the SGPR
                // field (`s_version 0x1234` is [0x34,0x12,0x80,0xb0]).
                (Option::None, [Opnd::Lit(v)]) => (Opnd::S(0), S32, *v),
                _ => return Err(rule("SOPK takes an SGPR and a 16-bit immediate")),
            };
            let r = match (reg, kind) {
                (Opnd::S(r), S32) if r <= 105 => r as u32,
                (Opnd::Null, Null) => 124,
                (_, Null) => return Err(rule("the SOPK register must be null")),
                _ => return Err(rule("the SOPK register is not an SGPR s0..s105")),
            };
            if imm > 0xffff || self.mods != Mods::default() {
                return Err(rule("SOPK: an immediate 0..=0xffff, no modifiers"));
            }
            return Ok(vec![0xb000_0000 | (op.opcode as u32) << 23 | r << 16 | imm]);
        }
        if self.is16() && self.mods.clamp && !(op.clamp && op.format == Vop3) {
            return Err(rule("clamp on an instruction without it"));
        }
        // Halves: only of 16-bit VGPR operands.
        for (i, k) in op.srcs.iter().enumerate() {
            let v = matches!(self.srcs.get(i), Some(Opnd::V(_)));
            if self.src_hi(i) && !(matches!(k, V16 | Any16) && v) {
                return Err(rule(&format!("source {} is not a 16-bit VGPR half", i + 1)));
            }
        }
        if self.is16()
            && (self.mods.op_sel & 0xf0 != 0 || (op.srcs.len()..3).any(|k| self.src_hi(k)))
        {
            return Err(rule("half bit of an absent operand"));
        }
        if self.dst_hi() && op.dst != V16 {
            return Err(rule("the destination is not a 16-bit VGPR half"));
        }
        // VOP1/VOPC name a half by bit 7 of the VGPR number: v0-v127 only.
        let e32_half = |o: Option<&Opnd>, hi: bool, i: usize| -> Result<u32, AluError> {
            match o {
                Some(Opnd::V(n)) if *n >= 128 => Err(AluError::Operand {
                    op: n_name(op),
                    index: i,
                    why: format!("v{n} has no e32 16-bit encoding (v0-v127 only)"),
                }),
                _ => Ok((hi as u32) << 7),
            }
        };
        let mut lit = Option::None;
        let mut codes = Vec::new();
        for (i, (k, s)) in explicit.iter().zip(&self.srcs).enumerate() {
            let (c, l) = src_code(*s, *k, wave64, n, i + 1)?;
            if let Some(l) = l {
                if lit.is_some_and(|p| p != l) {
                    return Err(rule("two different literals"));
                }
                lit = Some(l);
            }
            codes.push(c);
        }
        // In VOP1/VOPC, bit 7 of a 16-bit VGPR operand's number is its half.
        if matches!(op.format, Vop1 | Vopc) {
            for (i, k) in explicit.iter().enumerate() {
                if matches!(k, V16 | Any16) && matches!(self.srcs[i], Opnd::V(_)) {
                    codes[i] |= e32_half(self.srcs.get(i), self.src_hi(i), i + 1)?;
                }
            }
        }
        let code = |i: usize| codes.get(i).copied().unwrap_or(0);
        let dst = |k: Kind| -> Result<u32, AluError> {
            let d = self.dst.ok_or_else(|| rule("no destination"))?;
            match k {
                V32 | V64 | V128 | Acc => vgpr(d, n, 0),
                // A 16-bit destination: e32 carries the half in bit 7.
                V16 if op.format == Vop1 => {
                    Ok(vgpr(d, n, 0)? | e32_half(self.dst.as_ref(), self.dst_hi(), 0)?)
                }
                V16 => vgpr(d, n, 0),
                _ => sdst_code(d, k, wave64, n),
            }
        };
        let dst_or_zero = || if op.dst == None { Ok(0) } else { dst(op.dst) };
        let vsrc1 = |i: usize| -> Result<u32, AluError> {
            let h = if matches!(op.srcs.get(i), Some(V16)) {
                e32_half(self.srcs.get(i), self.src_hi(i), i + 1)?
            } else {
                0
            };
            Ok(vgpr(self.srcs[i], n, i + 1)? | h)
        };
        let m = self.mods;
        let modded = m != Mods::default();
        if modded && !self.is16() && !matches!(op.format, Vop3 | Vop3p) {
            return Err(rule("modifiers on a format without them"));
        }
        if op.dst == Acc {
            // The integer WMMA: neg_lo[1:0] and clamp only (RDNA3 guide
            // §7.9: "NEG[2] and NEG_HI[2:0] must be zero"; llvm-mc takes no
            // op_sel there), D within v255.
            if m.op_sel != 0 || m.op_sel_hi != 0b111 || m.neg_lo & !3 != 0 {
                return Err(rule("a WMMA takes only neg_lo[1:0] and clamp"));
            }
            if let Some(Opnd::V(d)) = self.dst {
                if d as u16 + acc_regs(wave64) > 256 {
                    return Err(rule("D runs past v255"));
                }
            }
        }
        let mut words = match op.format {
            Sop2 => vec![
                0x8000_0000
                    | (op.opcode as u32) << 23
                    | dst(op.dst)? << 16
                    | code(1) << 8
                    | code(0),
            ],
            // Without a destination (s_setpc_b64, v_nop) the field is 0:
            // LLVM leaves it unset (`SOP1_Real`: `!if(ps.has_sdst, sdst, ?)`)
            // and llvm-mc writes zeros there.
            Sop1 => vec![0xbe80_0000 | dst_or_zero()? << 16 | (op.opcode as u32) << 8 | code(0)],
            Sopc => vec![0xbf00_0000 | (op.opcode as u32) << 16 | code(1) << 8 | code(0)],
            Vop1 => vec![0x7e00_0000 | dst_or_zero()? << 17 | (op.opcode as u32) << 9 | code(0)],
            Vop2 => vec![(op.opcode as u32) << 25 | dst(op.dst)? << 17 | vsrc1(1)? << 9 | code(0)],
            Vopc => vec![0x7c00_0000 | (op.opcode as u32) << 17 | vsrc1(1)? << 9 | code(0)],
            Vop3 => {
                // v_cmpx_*_e64 has no destination operand; llvm-mc puts
                // EXEC_LO's code (126) in the field.
                let vdst = if op.dst == None { 126 } else { dst(op.dst)? };
                let sd = match self.sdst {
                    Some(s) => sdst_code(s, Mask, wave64, n)?,
                    Option::None => 0,
                };
                let opsel = if self.is16() {
                    // OPSEL (14:11) from the halves.
                    if m.op_sel_hi != 0b111 || m.neg_lo != 0 {
                        return Err(rule("a 16-bit VOP3 form takes only halves and clamp"));
                    }
                    (m.op_sel as u32 & 0xf) << 11
                } else {
                    if m.op_sel_hi != 0b111 || m.neg_lo != 0 || (m.op_sel > 3) {
                        return Err(rule("VOP3 takes only op_sel[1:0] and clamp here"));
                    }
                    (m.op_sel as u32) << 11
                };
                vec![
                    0xd400_0000
                        | (op.opcode as u32) << 16
                        | (m.clamp as u32) << 15
                        | opsel
                        | sd << 8
                        | vdst,
                    code(2) << 18 | code(1) << 9 | code(0),
                ]
            }
            Vop3p => {
                // A two-source op's unused op_sel_hi bit is 1 (what llvm-mc writes).
                let hi = if op.srcs.len() < 3 {
                    m.op_sel_hi | 4
                } else {
                    m.op_sel_hi
                } as u32;
                vec![
                    0xcc00_0000
                        | (op.opcode as u32) << 16
                        | (m.clamp as u32) << 15
                        | (hi >> 2 & 1) << 14
                        | (m.op_sel as u32 & 7) << 11
                        | dst(op.dst)?,
                    (m.neg_lo as u32 & 7) << 29
                        | (hi & 3) << 27
                        | code(2) << 18
                        | code(1) << 9
                        | code(0),
                ]
            }
            Vopd => return Err(rule("a VOPD half is encoded with ProgramInst::Dual")),
            Sopk => return Err(rule("SOPK is encoded above")),
        };
        if let Some(l) = lit {
            words.push(l);
        }
        Ok(words)
    }
}

fn n_name(op: &'static AluOp) -> &'static str {
    op.name
}

fn vopd_entry(name: &str) -> Option<&'static VopdRow> {
    VOPD_OPS.iter().find(|e| e.name == name)
}

impl ProgramInst {
    /// LLVM's text.
    pub fn text(&self, wave64: bool) -> String {
        match self {
            ProgramInst::One(i) => i.text(wave64),
            ProgramInst::Dual(x, y) => {
                let half = |h: &VopdHalf| {
                    let kinds = vopd_entry(h.name).map_or(&[][..], |e| e.srcs);
                    let mut parts = vec![format!("v{}", h.vdst)];
                    for (k, s) in kinds.iter().zip(&h.srcs) {
                        parts.push(opnd_text(*s, *k, false));
                    }
                    format!("{} {}", h.name, parts.join(", "))
                };
                format!("{} :: {}", half(x), half(y))
            }
        }
    }

    /// The encoded words.
    pub fn encode(&self, wave64: bool) -> Result<Vec<u32>, AluError> {
        match self {
            ProgramInst::One(i) => i.encode(wave64),
            ProgramInst::Dual(x, y) => encode_vopd(x, y, wave64),
        }
    }
}

/// VOPD's rules (LLVM `AMDGPUAsmParser::validateVOPDRegBankConstraints`,
/// RDNA3 ISA guide "VOPD"): wave32 only; the two destinations differ in
/// their low bit; VGPR src0s in different banks (n mod 4), likewise the
/// vsrc1s; at most one literal.
fn encode_vopd(x: &VopdHalf, y: &VopdHalf, wave64: bool) -> Result<Vec<u32>, AluError> {
    let rule = |why: String| AluError::Rule { op: "v_dual", why };
    if wave64 {
        return Err(rule("VOPD requires wave32".into()));
    }
    let ex = vopd_entry(x.name).ok_or_else(|| AluError::Unknown(x.name.into()))?;
    let ey = vopd_entry(y.name).ok_or_else(|| AluError::Unknown(y.name.into()))?;
    let opx =
        ex.x.ok_or_else(|| rule(format!("{} has no X form", x.name)))?;
    if x.srcs.len() != ex.srcs.len() || y.srcs.len() != ey.srcs.len() {
        return Err(rule("wrong number of sources".into()));
    }
    if (x.vdst ^ y.vdst) & 1 == 0 {
        return Err(rule(format!(
            "destinations v{} and v{} must differ in their low bit",
            x.vdst, y.vdst
        )));
    }
    let bank = |o: &Opnd| match o {
        Opnd::V(n) => Some(n % 4),
        _ => Option::None,
    };
    for i in 0..2 {
        if let (Some(a), Some(b)) = (x.srcs.get(i).and_then(bank), y.srcs.get(i).and_then(bank)) {
            if a == b {
                return Err(rule(format!("source {i} of both halves in VGPR bank {a}")));
            }
        }
    }
    let mut lit = Option::None;
    let mut code = |h: &VopdHalf, k: &[Kind]| -> Result<u32, AluError> {
        let (c, l) = src_code(h.srcs[0], k[0], false, h.name, 1)?;
        if let Some(l) = l {
            if lit.is_some_and(|p| p != l) {
                return Err(rule("two different literals".into()));
            }
            lit = Some(l);
        }
        Ok(c)
    };
    let s0x = code(x, ex.srcs)?;
    let s0y = code(y, ey.srcs)?;
    let v1 = |h: &VopdHalf| -> Result<u32, AluError> {
        match h.srcs.get(1) {
            Some(o) => vgpr(*o, h.name, 2),
            Option::None => Ok(0),
        }
    };
    let mut words = vec![
        0xc800_0000 | (opx as u32) << 22 | (ey.y as u32) << 17 | v1(x)? << 9 | s0x,
        (x.vdst as u32) << 24 | (y.vdst as u32 >> 1) << 17 | v1(y)? << 9 | s0y,
    ];
    if let Some(l) = lit {
        words.push(l);
    }
    Ok(words)
}

/// The words of `insts` as text, one per line, with each one's encoding
/// (for reports: `v_add_nc_u32_e32 v16, v17, v18  ; [0x4a202311]`).
pub fn listing(insts: &[ProgramInst], wave64: bool) -> String {
    let mut out = String::new();
    for i in insts {
        let words = match i.encode(wave64) {
            Ok(w) => w
                .iter()
                .map(|w| format!("{w:#010x}"))
                .collect::<Vec<_>>()
                .join(" "),
            Err(e) => format!("unencodable: {e}"),
        };
        let _ = writeln!(out, "{}  ; [{words}]", i.text(wave64));
    }
    out
}

#[cfg(test)]
mod implicit_tests {
    use super::*;

    fn vector(f: Format) -> bool {
        matches!(f, Vop1 | Vop2 | Vop3 | Vopc | Vop3p | Vopd)
    }

    /// The implicit-operand column against facts that do not come from
    /// it: the format (every SOPC and `s_cmpk` compare writes SCC, a VALU
    /// row reads EXEC), the mnemonic (the saveexec/wrexec forms, v_cmpx,
    /// the M0-relative moves, the SCC consumers the ISA guide names) and
    /// the operand kinds (an e32's printed-not-encoded [`Kind::Vcc`] is
    /// exactly the implicit VCC; an e64's [`Kind::Mask`] never is).
    #[test]
    fn the_implicit_column_agrees_with_independent_facts() {
        for r in ALU_OPS {
            let i = r.implicit;
            let n = r.name;
            let salu = !vector(r.format);
            // SCC: the compares write it; s_cselect, s_cmov, s_cmovk read
            // it (RDNA3 guide: "D0.u32 = SCC ? S0.u32 : S1.u32", "if SCC
            // then D0 = S0"); s_addc/s_subb both; no VALU op touches it.
            let cmp = r.format == Sopc || n.starts_with("s_cmpk_");
            if cmp {
                assert!(i.writes_scc() && !i.reads_scc(), "{n}");
            }
            let scc_in = n.starts_with("s_cselect_") || n.starts_with("s_cmov");
            let carry = n == "s_addc_u32" || n == "s_subb_u32";
            assert_eq!(i.reads_scc(), scc_in || carry, "{n}: SCC read");
            if carry {
                assert!(i.writes_scc(), "{n}");
            }
            if !salu {
                assert!(!i.reads_scc() && !i.writes_scc(), "{n}: VALU and SCC");
            }
            // EXEC: the saveexec/wrexec forms read and write it and set
            // SCC; v_cmpx writes it; every other VALU row reads it but
            // v_readlane/v_writelane.
            let saveexec = n.contains("_saveexec_") || n.contains("_wrexec_");
            if salu {
                assert_eq!(i.reads_exec(), saveexec, "{n}: EXEC read");
                assert_eq!(i.writes_exec(), saveexec, "{n}: EXEC write");
                if saveexec {
                    assert!(i.writes_scc(), "{n}");
                }
            } else {
                let lane = n == "v_readlane_b32" || n == "v_writelane_b32";
                assert_eq!(i.reads_exec(), !lane, "{n}: EXEC read");
                assert_eq!(i.writes_exec(), n.starts_with("v_cmpx_"), "{n}: EXEC write");
            }
            // VCC: implicit exactly where the operand kinds print a VCC
            // that no field encodes.
            let vcc_src = r.srcs.contains(&Vcc);
            let vcc_dst = r.dst == Vcc || r.sdst == Vcc;
            assert_eq!(i.reads_vcc(), vcc_src, "{n}: VCC read");
            assert_eq!(i.writes_vcc(), vcc_dst, "{n}: VCC write");
            if r.format == Vopc && !n.starts_with("v_cmpx_") {
                assert!(i.writes_vcc(), "{n}: an e32 compare writes VCC");
            }
            if r.srcs.contains(&Mask) || r.dst == Mask || r.sdst == Mask {
                assert!(
                    !i.reads_vcc() && !i.writes_vcc(),
                    "{n}: e64 masks are operands"
                );
            }
            // M0: the M0-relative VGPR and SGPR moves. A SALU one's
            // destination field is a register number M0 may be added to, so
            // it is of an SGPR-only kind, as is the source of s_movrels (an
            // index too); only SALU rows have SGPR-only kinds, and of them
            // only s_setpc_b64 reads no M0.
            let movrel = n.starts_with("v_movrel")
                || n.starts_with("v_swaprel")
                || n.starts_with("s_movrel");
            assert_eq!(i.reads_m0(), movrel, "{n}: M0 read");
            let sgpr_only = |k: &Kind| matches!(k, Sgpr32 | Sgpr64);
            if salu && i.reads_m0() {
                assert!(sgpr_only(&r.dst), "{n}: an indexed destination");
            }
            if n.starts_with("s_movrels_") {
                assert!(r.srcs.iter().all(sgpr_only), "{n}: an indexed source");
            }
            if sgpr_only(&r.dst) || r.srcs.iter().any(sgpr_only) {
                assert!(
                    salu && (i.reads_m0() || n == "s_setpc_b64"),
                    "{n}: SGPR-only operand"
                );
            }
        }
        // A VOPD half is its VOP2/VOP1 instruction's e32 form: EXEC read,
        // and VCC read by the cndmask alone (its e32 row above).
        for r in VOPD_OPS {
            let e32 = format!("v_{}_e32", r.name.trim_start_matches("v_dual_"));
            let single = alu_op(&e32).unwrap_or_else(|| panic!("{}: no row {e32}", r.name));
            assert_eq!(r.implicit, single.implicit, "{} against {e32}", r.name);
        }
    }
}
