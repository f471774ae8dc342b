//! VOP3P: the packed 16-bit integer ops, the dot products and the integer
//! WMMAs ([`P3Inst`], executed by `src/emu/vop3p.rs` and `src/emu/wmma.rs`).
//! Opcodes: the table's VOP3P rows (LLVM 22's VOP3PInstructions.td, each
//! checked with `llvm-mc-22 -mcpu=gfx1100 -show-encoding`).

use std::sync::LazyLock;

use super::operand::{src_scalar, Src};
use super::table::{ops, row_of, table_rows};
use super::{unsupported, Inst};
use crate::isa::alu::Format;

ops!(
    /// The VOP3P operations of [`P3Inst`].
    P3Op {
    PkMadI16 = "v_pk_mad_i16", PkMulLoU16 = "v_pk_mul_lo_u16", PkAddI16 = "v_pk_add_i16",
    PkSubI16 = "v_pk_sub_i16", PkLshlrevB16 = "v_pk_lshlrev_b16",
    PkLshrrevB16 = "v_pk_lshrrev_b16", PkAshrrevI16 = "v_pk_ashrrev_i16",
    PkMaxI16 = "v_pk_max_i16", PkMinI16 = "v_pk_min_i16", PkMadU16 = "v_pk_mad_u16",
    PkAddU16 = "v_pk_add_u16", PkSubU16 = "v_pk_sub_u16", PkMaxU16 = "v_pk_max_u16",
    PkMinU16 = "v_pk_min_u16",
    Dot4I32Iu8 = "v_dot4_i32_iu8", Dot4U32U8 = "v_dot4_u32_u8", Dot8I32Iu4 = "v_dot8_i32_iu4",
    Dot8U32U4 = "v_dot8_u32_u4",
    WmmaI32Iu8 = "v_wmma_i32_16x16x16_iu8", WmmaI32Iu4 = "v_wmma_i32_16x16x16_iu4",
});

table_rows!(P3Op, Format::Vop3p, 0..0x80);

/// What a VOP3P operation does with its operands, the one split the
/// decoder's modifier rules, the semantics and the printer share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum P3Kind {
    /// Two 16-bit halves per dword, chosen by op_sel / op_sel_hi.
    Packed,
    /// Whole dwords; neg_lo is the iu forms' signedness select.
    Dot,
    /// A matrix multiply-accumulate over the wave (`wmma.rs`).
    Wmma,
}

impl P3Op {
    /// The operation's kind (an exhaustive match: a new op must say).
    pub fn kind(self) -> P3Kind {
        use P3Op::*;
        match self {
            PkMadI16 | PkMulLoU16 | PkAddI16 | PkSubI16 | PkLshlrevB16 | PkLshrrevB16
            | PkAshrrevI16 | PkMaxI16 | PkMinI16 | PkMadU16 | PkAddU16 | PkSubU16 | PkMaxU16
            | PkMinU16 => P3Kind::Packed,
            Dot4I32Iu8 | Dot4U32U8 | Dot8I32Iu4 | Dot8U32U4 => P3Kind::Dot,
            WmmaI32Iu8 | WmmaI32Iu4 => P3Kind::Wmma,
        }
    }
    /// Number of source operands: the table row's.
    pub fn arity(self) -> usize {
        static MAP: LazyLock<Vec<usize>> = LazyLock::new(|| {
            P3Op::ALL
                .iter()
                .map(|o| {
                    row_of(o.name(), Format::Vop3p)
                        .unwrap_or_else(|| panic!("{} has no row in isa::alu::ALU_OPS", o.name()))
                        .srcs
                        .len()
                })
                .collect()
        });
        MAP[self as usize]
    }
    /// Dwords of each source and of the destination in a wave of the given
    /// size: one each, but for a WMMA (LLVM VOP3PInstructions.td,
    /// `VOP_V8I32_V4I32_V4I32_V8I32` and `VOP_V4I32_V4I32_V4I32_V4I32`): A
    /// and B are 4 VGPRs for iu8, 2 for iu4 in both wave sizes; C and D are
    /// 8 VGPRs in wave32, 4 in wave64 (RDNA3 guide §7.9: "Wave64: Uses 4
    /// VGPRs").
    pub fn widths_in(self, wave64: bool) -> ([u32; 3], u32) {
        let cd = if wave64 { 4 } else { 8 };
        match self {
            P3Op::WmmaI32Iu8 => ([4, 4, cd], cd),
            P3Op::WmmaI32Iu4 => ([2, 2, cd], cd),
            _ => ([1, 1, 1], 1),
        }
    }
}

/// A decoded VOP3P instruction with its modifiers (op_sel bits 13:11,
/// op_sel_hi bits 14 / 60:59, neg_lo 63:61, neg_hi 10:8, clamp 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct P3Inst {
    pub op: P3Op,
    pub vdst: u8,
    pub src: [Src; 3],
    /// Bit k: source k's op_sel.
    pub op_sel: u8,
    /// Bit k: source k's op_sel_hi (0b111 is the default).
    pub op_sel_hi: u8,
    /// Bit k: source k's neg_lo (the dot products' signedness selects).
    pub neg_lo: u8,
    pub neg_hi: u8,
    pub clamp: bool,
}

/// Read `arity` source fields (9-bit codes) with at most one literal.
fn x_srcs(codes: [u32; 3], arity: usize, next: Option<u32>) -> Result<([Src; 3], bool), String> {
    let mut lit = None;
    let mut s = [Src::Const(128); 3];
    for k in 0..arity {
        s[k] = src_scalar(codes[k], &mut lit, next)?;
    }
    Ok((s, lit.is_some()))
}

/// VOP3P (bits 31:24 = 0xcc): the packed integer ops, the dot products and
/// the integer WMMAs.
pub(super) fn decode_vop3p(w: &[u32]) -> (Inst, usize) {
    let (w0, w1) = (w[0], w[1]);
    let opc = (w0 >> 16) & 0x7f;
    let Some(op) = P3Op::from_op(opc) else {
        return (
            unsupported(
                "VOP3P",
                opc,
                None,
                "opcode not modelled (float packed math, float WMMA)",
                &w[..2],
            ),
            2,
        );
    };
    let codes = [w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff];
    let (src, lit) = match x_srcs(codes, op.arity(), w.get(2).copied()) {
        Ok(x) => x,
        Err(e) => {
            return (
                unsupported("VOP3P", opc, Some(op.name().into()), e, &w[..2]),
                2,
            )
        }
    };
    let n = if lit { 3 } else { 2 };
    let x = P3Inst {
        op,
        vdst: w0 as u8,
        src,
        neg_hi: ((w0 >> 8) & 7) as u8,
        op_sel: ((w0 >> 11) & 7) as u8,
        op_sel_hi: (((w1 >> 27) & 3) | ((w0 >> 12) & 4)) as u8,
        clamp: (w0 >> 15) & 1 == 1,
        neg_lo: (w1 >> 29) as u8,
    };
    let used = (1u8 << op.arity()) - 1;
    let fail = |why: String| {
        (
            unsupported("VOP3P", opc, Some(op.name().into()), why, &w[..n]),
            n,
        )
    };
    match op.kind() {
        P3Kind::Wmma => {
            if let Err(why) = wmma_operand_rules(&x, lit) {
                return fail(why);
            }
        }
        P3Kind::Dot => {
            // The dot products take whole dwords: no op_sel (llvm-mc refuses
            // it); neg_lo is the signedness select of the iu forms only.
            let signs_ok = if matches!(op, P3Op::Dot4I32Iu8 | P3Op::Dot8I32Iu4) {
                x.neg_lo & !3 == 0
            } else {
                x.neg_lo == 0
            };
            if x.op_sel != 0 || x.op_sel_hi != 0b111 || x.neg_hi != 0 || !signs_ok {
                return fail(
                    "op_sel/op_sel_hi/neg_hi (or neg_lo beyond the iu forms' signedness selects) on a dot product are not modelled".into(),
                );
            }
        }
        P3Kind::Packed => {
            // Policy NEG_ON_PACKED_INTEGER: NEG/NEG_HI negate floating-point
            // inputs (RDNA3 guide, "VOP3P" input modifiers); on integer
            // packed ops the guide defines nothing, so they are not modelled.
            if (x.neg_lo | x.neg_hi) & used != 0 {
                return fail("neg_lo/neg_hi on a packed integer op are not modelled (policy NEG_ON_PACKED_INTEGER)".into());
            }
            // Policy PACKED_CLAMP: clamp is modelled where its meaning is
            // sourced (saturating add/sub: LLVM selects llvm.{s,u}{add,sub}.sat
            // on v2i16 to v_pk_{add,sub}_{i,u}16 with clamp); elsewhere it is
            // not modelled.
            let clamp_ok = matches!(
                op,
                P3Op::PkAddI16 | P3Op::PkAddU16 | P3Op::PkSubI16 | P3Op::PkSubU16
            );
            if x.clamp && !clamp_ok {
                return fail(format!(
                    "clamp on {} is not modelled (policy PACKED_CLAMP)",
                    op.name()
                ));
            }
        }
    }
    (Inst::Vop3p(Box::new(x)), n)
}

/// What the integer WMMA's encoding may hold (RDNA3 guide §7.9: "NEG[1:0]
/// indicates whether SRC0 and 1 are signed or unsigned, and NEG[2] and
/// NEG_HI[2:0] must be zero"; "Inline constants: can only be used for
/// C-matrix"; LLVM's VOPProfileWMMA: A and B are `VRegSrc_128`/`_64`, no
/// op_sel for the integer forms, and llvm-mc refuses SGPRs, literals and
/// op_sel there). A field the guide says must be zero, a float inline
/// constant as C (what an i32 element would get is not said), or a range
/// past v255 even in wave64 is not modelled (the wave-size-dependent checks
/// are `wmma.rs`'s).
fn wmma_operand_rules(x: &P3Inst, lit: bool) -> Result<(), String> {
    let name = x.op.name();
    let (sw, dw) = x.op.widths_in(true);
    let vgpr_fits = |s: Src, n: u32| matches!(s, Src::V(r) if r as u32 + n <= 256);
    if lit {
        return Err(format!("{name}: a literal operand is not allowed"));
    }
    if x.op_sel != 0 || x.op_sel_hi != 0b111 {
        return Err(format!("{name}: op_sel/op_sel_hi are not modelled"));
    }
    if x.neg_hi != 0 || x.neg_lo & 4 != 0 {
        return Err(format!(
            "{name}: neg_lo[2] and neg_hi must be zero (RDNA3 guide §7.9)"
        ));
    }
    if !vgpr_fits(x.src[0], sw[0]) || !vgpr_fits(x.src[1], sw[1]) {
        return Err(format!("{name}: A and B must be VGPR ranges within v255"));
    }
    let c_ok = match x.src[2] {
        Src::V(_) => vgpr_fits(x.src[2], sw[2]),
        // Integer inline constants 0, 1..64, -1..-16 (codes 128..=208).
        Src::Const(c) => (128..=208).contains(&c),
        _ => false,
    };
    if !c_ok {
        return Err(format!(
            "{name}: C must be a VGPR range within v255 or an integer inline constant"
        ));
    }
    if x.vdst as u32 + dw > 256 {
        return Err(format!("{name}: D runs past v255"));
    }
    Ok(())
}
