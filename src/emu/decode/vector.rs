//! The vector ALU encodings VOP1, VOP2, VOP3, VOP3SD, VOPC and VOPD: their
//! op families ([`VOp`], [`Cmp`], [`VopdOp`]) and their decoders, which
//! hand the true16 16-bit ops to `true16.rs` first.

use std::sync::LazyLock;

use super::operand::{sdst_ok, src_scalar, Src, VCC_LO};
use super::table::{implicit_map, opcode_map, ops, row_of, vopc_implicit};
use super::true16::{decode16_vop1, decode16_vop3, decode16_vopc};
use super::{unsupported, Inst, VEnc};
use crate::isa::alu::{AluOp, Format, Implicit, Kind};

ops!(
    $ vop_each;
    /// Vector ALU operations of VOP1, VOP2, VOP3 and VOP3SD (VOPC, VOP3P,
    /// VOPD and the true16 ops are their own families: `emu::decode`'s module doc).
    VOp {
    MovB32 = "v_mov_b32", ReadfirstlaneB32 = "v_readfirstlane_b32", NotB32 = "v_not_b32",
    BfrevB32 = "v_bfrev_b32", ClzI32U32 = "v_clz_i32_u32", CtzI32B32 = "v_ctz_i32_b32",
    ClsI32 = "v_cls_i32", Nop = "v_nop",
    CndmaskB32 = "v_cndmask_b32", AddNcU32 = "v_add_nc_u32", SubNcU32 = "v_sub_nc_u32",
    SubrevNcU32 = "v_subrev_nc_u32", AddCoCiU32 = "v_add_co_ci_u32",
    SubCoCiU32 = "v_sub_co_ci_u32", SubrevCoCiU32 = "v_subrev_co_ci_u32",
    MulI32I24 = "v_mul_i32_i24", MulHiI32I24 = "v_mul_hi_i32_i24", MulU32U24 = "v_mul_u32_u24",
    MulHiU32U24 = "v_mul_hi_u32_u24", MinI32 = "v_min_i32", MaxI32 = "v_max_i32",
    MinU32 = "v_min_u32", MaxU32 = "v_max_u32", LshrrevB32 = "v_lshrrev_b32",
    AshrrevI32 = "v_ashrrev_i32", LshlrevB32 = "v_lshlrev_b32", AndB32 = "v_and_b32",
    OrB32 = "v_or_b32", XorB32 = "v_xor_b32", XnorB32 = "v_xnor_b32",
    AddCoU32 = "v_add_co_u32", SubCoU32 = "v_sub_co_u32", SubrevCoU32 = "v_subrev_co_u32",
    MadU64U32 = "v_mad_u64_u32", MadI64I32 = "v_mad_i64_i32",
    LshlAddU32 = "v_lshl_add_u32", AddLshlU32 = "v_add_lshl_u32", LshlOrB32 = "v_lshl_or_b32",
    AndOrB32 = "v_and_or_b32", Or3B32 = "v_or3_b32", Xor3B32 = "v_xor3_b32",
    Add3U32 = "v_add3_u32", XadU32 = "v_xad_u32", BfeU32 = "v_bfe_u32", BfeI32 = "v_bfe_i32",
    BfiB32 = "v_bfi_b32", AlignbitB32 = "v_alignbit_b32", AlignbyteB32 = "v_alignbyte_b32",
    PermB32 = "v_perm_b32", MadU32U24 = "v_mad_u32_u24", MadI32I24 = "v_mad_i32_i24",
    Min3I32 = "v_min3_i32", Min3U32 = "v_min3_u32", Max3I32 = "v_max3_i32",
    Max3U32 = "v_max3_u32", Med3I32 = "v_med3_i32", Med3U32 = "v_med3_u32",
    MulLoU32 = "v_mul_lo_u32", MulHiU32 = "v_mul_hi_u32", MulHiI32 = "v_mul_hi_i32",
    LshlrevB64 = "v_lshlrev_b64", LshrrevB64 = "v_lshrrev_b64", AshrrevI64 = "v_ashrrev_i64",
    ReadlaneB32 = "v_readlane_b32", WritelaneB32 = "v_writelane_b32",
    BcntU32B32 = "v_bcnt_u32_b32", MbcntLoU32B32 = "v_mbcnt_lo_u32_b32",
    MbcntHiU32B32 = "v_mbcnt_hi_u32_b32", BfmB32 = "v_bfm_b32",
    AddNcI32 = "v_add_nc_i32", SubNcI32 = "v_sub_nc_i32", SadU8 = "v_sad_u8",
    SadHiU8 = "v_sad_hi_u8", SadU16 = "v_sad_u16", SadU32 = "v_sad_u32", MsadU8 = "v_msad_u8",
    LerpU8 = "v_lerp_u8", SwapB32 = "v_swap_b32",
    CvtF32Ubyte0 = "v_cvt_f32_ubyte0", CvtF32Ubyte1 = "v_cvt_f32_ubyte1",
    CvtF32Ubyte2 = "v_cvt_f32_ubyte2", CvtF32Ubyte3 = "v_cvt_f32_ubyte3",
    MaxminI32 = "v_maxmin_i32", MaxminU32 = "v_maxmin_u32", MinmaxI32 = "v_minmax_i32",
    MinmaxU32 = "v_minmax_u32",
    Permlane16B32 = "v_permlane16_b32", Permlanex16B32 = "v_permlanex16_b32",
    Permlane64B32 = "v_permlane64_b32",
    MovrelsB32 = "v_movrels_b32", MovreldB32 = "v_movreld_b32", MovrelsdB32 = "v_movrelsd_b32",
    Movrelsd2B32 = "v_movrelsd_2_b32", SwaprelB32 = "v_swaprel_b32",
    QsadPkU16U8 = "v_qsad_pk_u16_u8", MqsadPkU16U8 = "v_mqsad_pk_u16_u8",
    MqsadU32U8 = "v_mqsad_u32_u8",
});

/// The VALU ops `emu::vext` executes (lane permutes, M0-relative VGPR
/// moves, quad SADs): the one list of them, a pattern read by
/// [`VOp::in_vext`] and by `valu_map`'s exhaustive match.
macro_rules! vext_ops {
    () => {
        VOp::Permlane16B32
            | VOp::Permlanex16B32
            | VOp::Permlane64B32
            | VOp::MovrelsB32
            | VOp::MovreldB32
            | VOp::MovrelsdB32
            | VOp::Movrelsd2B32
            | VOp::SwaprelB32
            | VOp::QsadPkU16U8
            | VOp::MqsadPkU16U8
            | VOp::MqsadU32U8
    };
}
pub(crate) use vext_ops;

impl VOp {
    pub(super) fn from_vop1(op: u32) -> Option<VOp> {
        static MAP: LazyLock<Vec<Option<VOp>>> =
            LazyLock::new(|| opcode_map(VOp::ALL, VOp::name, Format::Vop1, 0..0x80));
        MAP.get(op as usize).copied().flatten()
    }
    pub(super) fn from_vop2(op: u32) -> Option<VOp> {
        static MAP: LazyLock<Vec<Option<VOp>>> =
            LazyLock::new(|| opcode_map(VOp::ALL, VOp::name, Format::Vop2, 0..0x40));
        MAP.get(op as usize).copied().flatten()
    }
    /// VOP3 opcodes 0x200 and up (VOP3-only instructions).
    pub(super) fn from_vop3(op: u32) -> Option<VOp> {
        static MAP: LazyLock<Vec<Option<VOp>>> =
            LazyLock::new(|| opcode_map(VOp::ALL, VOp::name, Format::Vop3, 0x200..0x400));
        MAP.get(op as usize).copied().flatten()
    }
    /// The op's row in the table: its VOP3 form where it has one (that
    /// form shows a VOP3SD's scalar destination), else its VOP1/VOP2 one.
    fn row(self) -> &'static AluOp {
        static ROWS: LazyLock<Vec<&'static AluOp>> = LazyLock::new(|| {
            VOp::ALL
                .iter()
                .map(|o| {
                    [Format::Vop3, Format::Vop1, Format::Vop2]
                        .into_iter()
                        .find_map(|f| row_of(o.name(), f))
                        .unwrap_or_else(|| panic!("{} has no row in isa::alu::ALU_OPS", o.name()))
                })
                .collect()
        });
        ROWS[self as usize]
    }
    /// SCC, VCC, EXEC and M0 as the table has them for this encoding: the
    /// e32 row (VOP1/VOP2) where the op has one, else its VOP3 row, and the
    /// reverse for e64.
    pub fn implicit(self, enc: VEnc) -> Implicit {
        use Format::*;
        static MAP: LazyLock<[Vec<Implicit>; 2]> = LazyLock::new(|| {
            [
                implicit_map(VOp::ALL, VOp::name, &[Vop1, Vop2, Vop3]),
                implicit_map(VOp::ALL, VOp::name, &[Vop3, Vop1, Vop2]),
            ]
        });
        MAP[usize::from(enc == VEnc::E64)][self as usize]
    }
    /// VOP3SD: the 14:8 field is an SGPR destination (carry/overflow out),
    /// as the table's lane-mask second destination says.
    pub fn is_vop3sd(self) -> bool {
        let row = self.row();
        row.format == Format::Vop3 && row.sdst == Kind::Mask
    }
    /// Number of source operands (the table's, an e32's implicit VCC
    /// counted as v_cndmask_b32's and the carry-ins' third).
    pub fn arity(self) -> usize {
        self.row().srcs.len()
    }
    /// Instructions that exist only in VOP3 form (printed without `_e64`).
    pub(super) fn vop3_only(self) -> bool {
        !(0..0x80).any(|op| VOp::from_vop1(op) == Some(self) || VOp::from_vop2(op) == Some(self))
    }
    /// Instructions that exist only in VOP1 form (printed without `_e32`):
    /// llvm-mc-22 refuses their `_e64` ("e64 variant of this instruction
    /// is not supported"; VOP1Instructions.td's `VOP1Only`).
    pub(super) fn vop1_only(self) -> bool {
        matches!(self, VOp::SwapB32 | VOp::Permlane64B32 | VOp::SwaprelB32)
    }
    /// Executed by `emu::vext` (lane permutes, M0-relative moves, quad SADs).
    pub fn in_vext(self) -> bool {
        matches!(self, vext_ops!())
    }
    /// An M0-relative VGPR move.
    pub fn movrel(self) -> bool {
        use VOp::*;
        matches!(
            self,
            MovrelsB32 | MovreldB32 | MovrelsdB32 | Movrelsd2B32 | SwaprelB32
        )
    }
    /// Dwords of each source and of the destination, from the row's operand
    /// kinds (the quad SADs' "S0[63:0]", "S2[127:0]", "D0.b64"/"D0.b128").
    pub fn widths(self) -> ([u32; 3], u32) {
        static MAP: LazyLock<Vec<([u32; 3], u32)>> = LazyLock::new(|| {
            let dwords = |k: Kind| match k {
                Kind::V64 | Kind::Any64 | Kind::S64 | Kind::Sgpr64 => 2,
                Kind::V128 => 4,
                _ => 1,
            };
            VOp::ALL
                .iter()
                .map(|o| {
                    let row = o.row();
                    let mut sw = [1; 3];
                    for (w, &k) in sw.iter_mut().zip(row.srcs) {
                        *w = dwords(k);
                    }
                    (sw, dwords(row.dst))
                })
                .collect()
        });
        MAP[self as usize]
    }
    /// Operand rules the semantics rely on (and llvm-mc enforces): the
    /// VGPR-only and scalar-only operands of the lane permutes, the
    /// M0-relative moves and v_swap_b32 (VOP1Instructions.td VOP_SWAP_I32),
    /// and the 128-bit S2 of v_mqsad_u32_u8.
    fn operand_rules(self, s: &[Src; 3]) -> Result<(), String> {
        use VOp::*;
        let v = |x: &Src| matches!(x, Src::V(_));
        match self {
            Permlane16B32 | Permlanex16B32 if !v(&s[0]) || v(&s[1]) || v(&s[2]) => {
                Err("v_permlane*16 needs a VGPR src0 and scalar lane selects (src1, src2)".into())
            }
            SwapB32 | Permlane64B32 | MovrelsB32 | MovrelsdB32 | Movrelsd2B32 | SwaprelB32
                if !v(&s[0]) =>
            {
                Err(format!("{} src0 must be a VGPR", self.name()))
            }
            MqsadU32U8 if !v(&s[2]) => Err("v_mqsad_u32_u8 src2 must be a VGPR quad".into()),
            _ => Ok(()),
        }
    }
}

/// Integer vector comparison (VOPC opcodes 0x40–0x5f; +0x80 for v_cmpx).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cmp {
    /// 0 f, 1 lt, 2 eq, 3 le, 4 gt, 5 ne, 6 ge, 7 t.
    pub cond: u8,
    pub signed: bool,
    pub wide: bool,
}

impl Cmp {
    pub(super) fn from_op(op: u32) -> Option<Cmp> {
        if !(0x40..=0x5f).contains(&op) {
            return None;
        }
        let group = (op - 0x40) / 8;
        Some(Cmp {
            cond: ((op - 0x40) % 8) as u8,
            signed: group == 0 || group == 2,
            wide: group >= 2,
        })
    }
    /// The VOPC opcode (v_cmpx: + 0x80), as [`Cmp::from_op`] reads it.
    pub fn opcode(self, cmpx: bool) -> u32 {
        let group = 2 * u32::from(self.wide) + u32::from(!self.signed);
        0x40 + 8 * group + u32::from(self.cond) + if cmpx { 0x80 } else { 0 }
    }
    /// SCC, VCC, EXEC and M0 as the table's row of this compare in `enc`
    /// has them; None if the table has no row for it.
    pub fn implicit(self, cmpx: bool, enc: VEnc) -> Option<Implicit> {
        vopc_implicit(self.opcode(cmpx), enc)
    }
    pub fn name(self, cmpx: bool) -> String {
        let c = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"][self.cond as usize & 7];
        let t = match (self.signed, self.wide) {
            (true, false) => "i32",
            (false, false) => "u32",
            (true, true) => "i64",
            (false, true) => "u64",
        };
        format!("v_cmp{}_{c}_{t}", if cmpx { "x" } else { "" })
    }
}

/// One half of a VOPD dual instruction (RDNA3 ISA guide §"VOPD"). The
/// variants are `isa::alu::VOPD_OPS`'s rows, in its order: the name,
/// opcodes and implicit operands are the row's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VopdOp {
    MovB32,
    CndmaskB32,
    AddNcU32,
    LshlrevB32,
    AndB32,
}

impl VopdOp {
    /// Every half, in `VOPD_OPS`' order.
    pub const ALL: [VopdOp; 5] = [
        VopdOp::MovB32,
        VopdOp::CndmaskB32,
        VopdOp::AddNcU32,
        VopdOp::LshlrevB32,
        VopdOp::AndB32,
    ];

    /// Its table row (`isa::alu::VOPD_OPS`; a test holds the two lists to
    /// the same length and each variant to its row's mnemonic).
    pub fn row(self) -> &'static crate::isa::alu::VopdRow {
        &crate::isa::alu::VOPD_OPS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The SCC, VCC, EXEC and M0 it reads or writes without an operand.
    pub fn implicit(self) -> Implicit {
        self.row().implicit
    }

    /// The half whose X (`x`) or Y opcode is `op`.
    fn from_opcode(op: u32, x: bool) -> Option<VopdOp> {
        let op = u16::try_from(op).ok()?;
        VopdOp::ALL
            .into_iter()
            .find(|v| Some(op) == if x { v.row().x } else { Some(v.row().y) })
    }
}

// One variant per row of the table.
const _: () = assert!(VopdOp::ALL.len() == crate::isa::alu::VOPD_OPS.len());

/// One half of a VOPD: `vdst = op(src0, vsrc1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VopdHalf {
    pub op: VopdOp,
    pub vdst: u8,
    pub src0: Src,
    pub vsrc1: u8,
}

pub(super) fn decode_vop1(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let op = (w0 >> 9) & 0xff;
    if let Some(d) = decode16_vop1(w, op) {
        return d;
    }
    let Some(vop) = VOp::from_vop1(op) else {
        return (
            unsupported("VOP1", op, None, "opcode not modelled", &w[..1]),
            1,
        );
    };
    let mut lit = None;
    let n = |lit: &Option<u32>| if lit.is_some() { 2 } else { 1 };
    let src = match src_scalar(w0 & 0x1ff, &mut lit, w.get(1).copied()) {
        Ok(s0) => [s0, Src::Const(128), Src::Const(128)],
        Err(e) => {
            return (
                unsupported("VOP1", op, Some(vop.name().into()), e, &w[..1]),
                1,
            )
        }
    };
    let n = n(&lit);
    if let Err(e) = vop.operand_rules(&src) {
        return (
            unsupported("VOP1", op, Some(vop.name().into()), e, &w[..n]),
            n,
        );
    }
    let vdst = ((w0 >> 17) & 0xff) as u8;
    (
        Inst::Valu {
            op: vop,
            enc: VEnc::E32,
            vdst,
            sdst: vdst,
            src,
            op_sel: 0,
        },
        n,
    )
}

pub(super) fn decode_vop2(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let op = (w0 >> 25) & 0x3f;
    let Some(vop) = VOp::from_vop2(op) else {
        return (
            unsupported("VOP2", op, None, "opcode not modelled", &w[..1]),
            1,
        );
    };
    let mut lit = None;
    match src_scalar(w0 & 0x1ff, &mut lit, w.get(1).copied()) {
        Ok(s0) => {
            let vdst = ((w0 >> 17) & 0xff) as u8;
            let vsrc1 = Src::V(((w0 >> 9) & 0xff) as u8);
            let n = if lit.is_some() { 2 } else { 1 };
            // e32 carry and mask operands are implicitly VCC.
            (
                Inst::Valu {
                    op: vop,
                    enc: VEnc::E32,
                    vdst,
                    sdst: VCC_LO,
                    src: [s0, vsrc1, Src::S(VCC_LO)],
                    op_sel: 0,
                },
                n,
            )
        }
        Err(e) => (
            unsupported("VOP2", op, Some(vop.name().into()), e, &w[..1]),
            1,
        ),
    }
}

pub(super) fn decode_vopc(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let op = (w0 >> 17) & 0xff;
    if let Some(d) = decode16_vopc(w, op) {
        return d;
    }
    let cmpx = op >= 0x80;
    let Some(cmp) = Cmp::from_op(op & 0x7f) else {
        return (
            unsupported(
                "VOPC",
                op,
                None,
                "opcode not modelled (only integer compares are)",
                &w[..1],
            ),
            1,
        );
    };
    let mut lit = None;
    match src_scalar(w0 & 0x1ff, &mut lit, w.get(1).copied()) {
        Ok(src0) => {
            let src1 = Src::V(((w0 >> 9) & 0xff) as u8);
            let n = if lit.is_some() { 2 } else { 1 };
            (
                Inst::Vopc {
                    cmp,
                    cmpx,
                    enc: VEnc::E32,
                    sdst: VCC_LO,
                    src0,
                    src1,
                },
                n,
            )
        }
        Err(e) => (unsupported("VOPC", op, Some(cmp.name(cmpx)), e, &w[..1]), 1),
    }
}

pub(super) fn decode_vop3(w: &[u32]) -> (Inst, usize) {
    let (w0, w1) = (w[0], w[1]);
    let op = (w0 >> 16) & 0x3ff;
    if let Some(d) = decode16_vop3(w, op) {
        return d;
    }
    let vdst = (w0 & 0xff) as u8;
    let codes = [w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff];
    let neg = w1 >> 29;
    let omod = (w1 >> 27) & 3;
    let clamp = (w0 >> 15) & 1;
    let mut lit = None;
    let next = w.get(2).copied();
    let mut srcs = [Src::Const(128); 3];
    let is_cmp = op < 0x100;
    let vop = if is_cmp {
        None
    } else if op < 0x180 {
        VOp::from_vop2(op - 0x100)
    } else if op < 0x200 {
        VOp::from_vop1(op - 0x180).filter(|v| !v.vop1_only())
    } else {
        VOp::from_vop3(op)
    };
    let name = if is_cmp {
        Cmp::from_op(op & 0x7f).map(|c| c.name(op >= 0x80))
    } else {
        vop.map(|v| v.name().to_string())
    };
    let fail = |why: String, n| (unsupported("VOP3", op, name.clone(), why, &w[..n]), n);
    if is_cmp && Cmp::from_op(op & 0x7f).is_none() || !is_cmp && vop.is_none() {
        return fail("opcode not modelled".into(), 2);
    }
    let arity = if is_cmp {
        2
    } else {
        vop.map(|v| v.arity()).unwrap_or(0)
    };
    let arity = match vop {
        // In VOP3(SD) the carry-in (and cndmask's mask) is an explicit src2.
        Some(VOp::AddCoCiU32 | VOp::SubCoCiU32 | VOp::SubrevCoCiU32 | VOp::CndmaskB32) => 3,
        _ => arity,
    };
    for k in 0..arity {
        match src_scalar(codes[k], &mut lit, next) {
            Ok(s) => srcs[k] = s,
            Err(e) => return fail(e, 2),
        }
    }
    let n = if lit.is_some() { 3 } else { 2 };
    let sd = vop.is_some_and(|v| v.is_vop3sd());
    // abs/opsel live in 14:8 except for VOP3SD, where that field is sdst.
    let abs_opsel = if sd { 0 } else { (w0 >> 8) & 0x7f };
    // v_permlane*16's op_sel bits 0/1 are fetch-inactive and bound-ctrl
    // (LLVM: the intrinsic's `fi` and `bound_control` operands, encoded
    // in op_sel); no other modifier means anything for these integer ops.
    let permlane = matches!(vop, Some(VOp::Permlane16B32 | VOp::Permlanex16B32));
    let op_sel = if permlane { (abs_opsel >> 3) & 3 } else { 0 };
    let abs_opsel = abs_opsel & !(op_sel << 3);
    if neg != 0 || omod != 0 || clamp != 0 || abs_opsel != 0 {
        return fail(
            "neg/abs/opsel/omod/clamp modifiers are not modelled for integer operations".into(),
            n,
        );
    }
    let cmp = if is_cmp {
        Cmp::from_op(op & 0x7f)
    } else {
        None
    };
    if let Some(cmp) = cmp {
        let sdst = match sdst_ok(vdst as u32) {
            Ok(s) => s,
            Err(e) => return fail(e, n),
        };
        return (
            Inst::Vopc {
                cmp,
                cmpx: op >= 0x80,
                enc: VEnc::E64,
                sdst,
                src0: srcs[0],
                src1: srcs[1],
            },
            n,
        );
    }
    let Some(vop) = vop else {
        return fail("opcode not modelled".into(), n);
    };
    let sdst = if sd {
        match sdst_ok((w0 >> 8) & 0x7f) {
            Ok(s) => s,
            Err(e) => return fail(e, n),
        }
    } else {
        vdst
    };
    if matches!(vop, VOp::ReadlaneB32 | VOp::ReadfirstlaneB32) {
        if let Err(e) = sdst_ok(vdst as u32) {
            return fail(e, n);
        }
    }
    if let Err(e) = vop.operand_rules(&srcs) {
        return fail(e, n);
    }
    (
        Inst::Valu {
            op: vop,
            enc: VEnc::E64,
            vdst,
            sdst,
            src: srcs,
            op_sel: op_sel as u8,
        },
        n,
    )
}

pub(super) fn decode_vopd(w: &[u32]) -> (Inst, usize) {
    let (w0, w1) = (w[0], w[1]);
    let opx = (w0 >> 22) & 0xf;
    let opy = (w0 >> 17) & 0x1f;
    let (Some(xo), Some(yo)) = (
        VopdOp::from_opcode(opx, true),
        VopdOp::from_opcode(opy, false),
    ) else {
        return (
            unsupported(
                "VOPD",
                (opx << 8) | opy,
                None,
                "VOPD with a floating-point half is not modelled",
                &w[..2],
            ),
            2,
        );
    };
    let mut lit = None;
    let next = w.get(2).copied();
    let s0x = src_scalar(w0 & 0x1ff, &mut lit, next);
    let s0y = src_scalar(w1 & 0x1ff, &mut lit, next);
    let n = if lit.is_some() { 3 } else { 2 };
    let (Ok(s0x), Ok(s0y)) = (s0x, s0y) else {
        return (
            unsupported(
                "VOPD",
                (opx << 8) | opy,
                None,
                "bad VOPD source operand",
                &w[..n],
            ),
            n,
        );
    };
    let vdstx = (w1 >> 24) as u8;
    // vdsty's low bit is not stored: it is the opposite of vdstx's (VOPD bank rule).
    let vdsty = ((((w1 >> 17) & 0x7f) << 1) | ((vdstx as u32 & 1) ^ 1)) as u8;
    let x = VopdHalf {
        op: xo,
        vdst: vdstx,
        src0: s0x,
        vsrc1: ((w0 >> 9) & 0xff) as u8,
    };
    let y = VopdHalf {
        op: yo,
        vdst: vdsty,
        src0: s0y,
        vsrc1: ((w1 >> 9) & 0xff) as u8,
    };
    (Inst::Vopd { x, y }, n)
}

#[cfg(test)]
mod table_tests {
    use super::*;
    /// Each VOPD variant is its own row of `isa::alu::VOPD_OPS` (the
    /// semantics match on the variant, the name, opcodes and implicit
    /// operands come from the row at its index): the row's mnemonic is the
    /// variant's name in snake case, so a reordered table fails here.
    #[test]
    fn each_vopd_variant_is_its_own_table_row() {
        for v in VopdOp::ALL {
            let mut snake = String::from("v_dual");
            for c in format!("{v:?}").chars() {
                if c.is_ascii_uppercase() {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            assert_eq!(v.name(), snake, "{v:?}");
            assert_eq!(
                v.implicit().reads_vcc(),
                v == VopdOp::CndmaskB32,
                "{v:?}: only v_dual_cndmask_b32 reads VCC (V_CNDMASK_B32_e32's Uses)"
            );
            let r = v.row();
            assert_eq!(VopdOp::from_opcode(u32::from(r.y), false), Some(v));
            if let Some(x) = r.x {
                assert_eq!(VopdOp::from_opcode(u32::from(x), true), Some(v));
            }
        }
    }
}
