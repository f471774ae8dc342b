//! 16-bit integer VALU (gfx11 true16): decoded here, executed by `valu16`.
//! The ops ([`Op16`]), their decoded form ([`V16`]) and the decoders of
//! their VOP1, VOPC and VOP3 forms, which `vector.rs`'s decoders try first.

use super::operand::{sdst_ok, src_scalar, Src, VCC_LO};
use super::table::{row_of, vopc_implicit};
use super::{unsupported, Inst, VEnc};
use crate::isa::alu::{Format, Implicit};

/// A 16-bit integer VALU operation of gfx11 (VOP1, VOP3, VOPC), executed
/// by [`crate::emu::valu16`]. Opcodes are LLVM 22's gfx11 table
/// (`llvm-mc-22 -mcpu=gfx1100 -mattr=+real-true16 -show-encoding`; VOP3
/// numbers are the 10-bit VOP3 opcode, VOP1's VOP3 form is 0x180 + op).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op16 {
    AddNcI16,
    AddNcU16,
    SubNcI16,
    SubNcU16,
    MulLoU16,
    LshlrevB16,
    LshrrevB16,
    AshrrevI16,
    MaxI16,
    MaxU16,
    MinI16,
    MinU16,
    MadI16,
    MadU16,
    MadI32I16,
    MadU32U16,
    Max3I16,
    Max3U16,
    Min3I16,
    Min3U16,
    Med3I16,
    Med3U16,
    AndB16,
    OrB16,
    XorB16,
    NotB16,
    MovB16,
    CndmaskB16,
    SwapB16,
    CvtI32I16,
    CvtU32U16,
    CvtPkI16I32,
    CvtPkU16U32,
    SatPkU8I16,
    /// v_cmp / v_cmpx on 16-bit integers: `cond` as in [`Cmp`](super::Cmp) (1 lt,
    /// 2 eq, 3 le, 4 gt, 5 ne, 6 ge).
    Cmp {
        cond: u8,
        signed: bool,
        cmpx: bool,
    },
}

/// Width of an operand of a 16-bit operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum W16 {
    /// One half of a VGPR (`.l`/`.h`), or the low 16 bits of a scalar.
    H,
    /// A whole 32-bit operand.
    W,
    /// A lane mask (v_cndmask_b16's S2).
    Mask,
}

impl Op16 {
    pub fn name(self) -> String {
        use Op16::*;
        let s = match self {
            AddNcI16 => "v_add_nc_i16",
            AddNcU16 => "v_add_nc_u16",
            SubNcI16 => "v_sub_nc_i16",
            SubNcU16 => "v_sub_nc_u16",
            MulLoU16 => "v_mul_lo_u16",
            LshlrevB16 => "v_lshlrev_b16",
            LshrrevB16 => "v_lshrrev_b16",
            AshrrevI16 => "v_ashrrev_i16",
            MaxI16 => "v_max_i16",
            MaxU16 => "v_max_u16",
            MinI16 => "v_min_i16",
            MinU16 => "v_min_u16",
            MadI16 => "v_mad_i16",
            MadU16 => "v_mad_u16",
            MadI32I16 => "v_mad_i32_i16",
            MadU32U16 => "v_mad_u32_u16",
            Max3I16 => "v_max3_i16",
            Max3U16 => "v_max3_u16",
            Min3I16 => "v_min3_i16",
            Min3U16 => "v_min3_u16",
            Med3I16 => "v_med3_i16",
            Med3U16 => "v_med3_u16",
            AndB16 => "v_and_b16",
            OrB16 => "v_or_b16",
            XorB16 => "v_xor_b16",
            NotB16 => "v_not_b16",
            MovB16 => "v_mov_b16",
            CndmaskB16 => "v_cndmask_b16",
            SwapB16 => "v_swap_b16",
            CvtI32I16 => "v_cvt_i32_i16",
            CvtU32U16 => "v_cvt_u32_u16",
            CvtPkI16I32 => "v_cvt_pk_i16_i32",
            CvtPkU16U32 => "v_cvt_pk_u16_u32",
            SatPkU8I16 => "v_sat_pk_u8_i16",
            Cmp { cond, signed, cmpx } => {
                let c = ["f", "lt", "eq", "le", "gt", "ne", "ge", "t"][cond as usize & 7];
                let t = if signed { "i16" } else { "u16" };
                return format!("v_cmp{}_{c}_{t}", if cmpx { "x" } else { "" });
            }
        };
        s.to_string()
    }

    /// SCC, VCC, EXEC and M0 as the table's row of this op in `enc` has
    /// them (a compare's by its VOPC opcode; the others by mnemonic, their
    /// e32 row first for an e32 and their e64 one for an e64); None if the
    /// table has no row for it.
    pub fn implicit(self, enc: VEnc) -> Option<Implicit> {
        use Format::*;
        if let Op16::Cmp { cond, signed, cmpx } = self {
            let op = 0x30 + if signed { 0 } else { 8 } + u32::from(cond);
            return vopc_implicit(op + if cmpx { 0x80 } else { 0 }, enc);
        }
        let formats: &[Format] = if enc == VEnc::E64 {
            &[Vop3, Vop1]
        } else {
            &[Vop1, Vop3]
        };
        let name = self.name();
        formats
            .iter()
            .find_map(|&f| row_of(&name, f))
            .map(|r| r.implicit)
    }

    /// VOP1 opcodes (bits 16:9).
    pub(super) fn from_vop1(op: u32) -> Option<Op16> {
        use Op16::*;
        Some(match op {
            0x1c => MovB16,
            0x62 => SatPkU8I16,
            0x66 => SwapB16,
            0x69 => NotB16,
            0x6a => CvtI32I16,
            0x6b => CvtU32U16,
            _ => return None,
        })
    }

    /// VOPC opcodes 0x31–0x3e (+0x80 for v_cmpx): i16 at 0x31–0x36, u16 at
    /// 0x39–0x3e (no f/t forms for 16-bit integers in gfx11).
    pub(super) fn from_vopc(op: u32) -> Option<Op16> {
        let cmpx = op & 0x80 != 0;
        let o = op & 0x7f;
        let (signed, cond) = match o {
            0x31..=0x36 => (true, (o - 0x30) as u8),
            0x39..=0x3e => (false, (o - 0x38) as u8),
            _ => return None,
        };
        Some(Op16::Cmp { cond, signed, cmpx })
    }

    /// 10-bit VOP3 opcodes (VOPC's 0x000–0x0ff and VOP1's 0x180 + op too).
    pub(super) fn from_vop3(op: u32) -> Option<Op16> {
        use Op16::*;
        Some(match op {
            0..=0xff => return Op16::from_vopc(op),
            // v_swap_b16 is VOP1 only (VOP1Instructions.td: VOP1Only).
            0x180..=0x1ff => return Op16::from_vop1(op - 0x180).filter(|o| *o != SwapB16),
            0x241 => MadU16,
            0x24a => Min3I16,
            0x24b => Min3U16,
            0x24d => Max3I16,
            0x24e => Max3U16,
            0x250 => Med3I16,
            0x251 => Med3U16,
            0x253 => MadI16,
            0x259 => MadU32U16,
            0x25a => MadI32I16,
            0x25d => CndmaskB16,
            0x303 => AddNcU16,
            0x304 => SubNcU16,
            0x305 => MulLoU16,
            0x309 => MaxU16,
            0x30a => MaxI16,
            0x30b => MinU16,
            0x30c => MinI16,
            0x30d => AddNcI16,
            0x30e => SubNcI16,
            0x323 => CvtPkU16U32,
            0x324 => CvtPkI16I32,
            0x338 => LshlrevB16,
            0x339 => LshrrevB16,
            0x33a => AshrrevI16,
            0x362 => AndB16,
            0x363 => OrB16,
            0x364 => XorB16,
            _ => return None,
        })
    }

    /// The widths of the sources, in order.
    pub fn srcs(self) -> &'static [W16] {
        use Op16::*;
        use W16::*;
        match self {
            NotB16 | MovB16 | SwapB16 | CvtI32I16 | CvtU32U16 => &[H],
            SatPkU8I16 => &[W],
            CvtPkI16I32 | CvtPkU16U32 => &[W, W],
            MadI16 | MadU16 | Max3I16 | Max3U16 | Min3I16 | Min3U16 | Med3I16 | Med3U16 => {
                &[H, H, H]
            }
            MadI32I16 | MadU32U16 => &[H, H, W],
            CndmaskB16 => &[H, H, Mask],
            _ => &[H, H],
        }
    }

    /// The width of the vector destination (None: a compare, which writes
    /// a lane mask).
    pub fn dst(self) -> Option<W16> {
        use Op16::*;
        match self {
            Cmp { .. } => None,
            CvtI32I16 | CvtU32U16 | CvtPkI16I32 | CvtPkU16U32 | MadI32I16 | MadU32U16 => {
                Some(W16::W)
            }
            _ => Some(W16::H),
        }
    }

    /// Whether the VOP3 clamp bit is accepted (llvm-mc-22 accepts `clamp`
    /// on exactly these; it refuses it on the others: "invalid operand").
    pub fn has_clamp(self) -> bool {
        use Op16::*;
        matches!(
            self,
            AddNcI16
                | AddNcU16
                | SubNcI16
                | SubNcU16
                | MadI16
                | MadU16
                | MadI32I16
                | MadU32U16
                | Max3I16
                | Max3U16
                | Min3I16
                | Min3U16
                | Med3I16
                | Med3U16
        )
    }

    /// Whether the op has a VOP1/VOPC (e32) encoding too (its VOP3 form is
    /// printed `_e64`).
    pub fn has_e32(self) -> bool {
        use Op16::*;
        matches!(
            self,
            MovB16 | SatPkU8I16 | SwapB16 | NotB16 | CvtI32I16 | CvtU32U16 | Cmp { .. }
        )
    }
}

/// One decoded 16-bit integer VALU instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V16 {
    pub op: Op16,
    pub enc: VEnc,
    /// VGPR destination (a compare's SGPR destination for VOP3 v_cmp).
    pub vdst: u8,
    /// Sources; unused ones are `Src::Const(128)` (0).
    pub src: [Src; 3],
    /// Which half each operand names: bit k (k < 3) source k's high half,
    /// bit 3 the destination's (VOP3 OPSEL; in VOP1/VOPC, bit 7 of the
    /// register numbers).
    pub hi: u8,
    pub clamp: bool,
}

impl V16 {
    pub fn src_hi(&self, k: usize) -> bool {
        self.hi >> k & 1 == 1
    }
    pub fn dst_hi(&self) -> bool {
        self.hi >> 3 & 1 == 1
    }
    pub fn mnemonic(&self) -> String {
        let n = self.op.name();
        match self.enc {
            VEnc::E32 if self.op == Op16::SwapB16 => n,
            VEnc::E32 => format!("{n}_e32"),
            VEnc::E64 if self.op.has_e32() => format!("{n}_e64"),
            VEnc::E64 => n,
        }
    }
}

/// A 16-bit source in a VOP1/VOPC src0 field: VGPR codes 256–511 carry
/// the half in bit 7 (true16: v0–v127 only).
fn src16_e32(s: Src) -> (Src, bool) {
    match s {
        Src::V(r) => (Src::V(r & 0x7f), r & 0x80 != 0),
        other => (other, false),
    }
}

/// Why a 16-bit source is not modelled: a float inline constant (the
/// guide does not say whether a 16-bit integer operand reads its f16 or
/// f32 bit pattern), src_scc/vccz/execz.
fn src16_ok(s: Src) -> Result<(), String> {
    match s {
        Src::Const(c) if c >= 240 => {
            Err("a float inline constant in a 16-bit integer operand is not modelled".into())
        }
        Src::Scc | Src::Vccz | Src::Execz => {
            Err("src_scc/src_vccz/src_execz in a 16-bit operand is not modelled".into())
        }
        _ => Ok(()),
    }
}

/// VOP1 16-bit forms; None when `op` is not one.
pub(super) fn decode16_vop1(w: &[u32], op: u32) -> Option<(Inst, usize)> {
    let o = Op16::from_vop1(op)?;
    let w0 = w[0];
    let name = Some(o.name());
    let mut lit = None;
    let s0 = match src_scalar(w0 & 0x1ff, &mut lit, w.get(1).copied()) {
        Ok(s) => s,
        Err(e) => return Some((unsupported("VOP1", op, name, e, &w[..1]), 1)),
    };
    let n = if lit.is_some() { 2 } else { 1 };
    let vd = ((w0 >> 17) & 0xff) as u8;
    let mut hi = 0u8;
    let (s0, s0hi) = if o.srcs()[0] == W16::H {
        src16_e32(s0)
    } else {
        (s0, false)
    };
    let checked = if o.srcs()[0] == W16::H {
        src16_ok(s0)
    } else {
        Ok(())
    };
    if let Err(e) = checked {
        return Some((unsupported("VOP1", op, name, e, &w[..n]), n));
    }
    hi |= s0hi as u8;
    let vdst = if o.dst() == Some(W16::H) {
        hi |= ((vd >> 7) & 1) << 3;
        vd & 0x7f
    } else {
        vd
    };
    // v_swap_b16 exchanges two VGPR halves: src0 must be a VGPR.
    if o == Op16::SwapB16 && !matches!(s0, Src::V(_)) {
        return Some((
            unsupported("VOP1", op, name, "v_swap_b16 src0 must be a VGPR", &w[..n]),
            n,
        ));
    }
    Some((
        Inst::Valu16(Box::new(V16 {
            op: o,
            enc: VEnc::E32,
            vdst,
            src: [s0, Src::Const(128), Src::Const(128)],
            hi,
            clamp: false,
        })),
        n,
    ))
}

/// VOPC 16-bit compares (e32: VCC destination).
pub(super) fn decode16_vopc(w: &[u32], op: u32) -> Option<(Inst, usize)> {
    let o = Op16::from_vopc(op)?;
    let w0 = w[0];
    let mut lit = None;
    let s0 = match src_scalar(w0 & 0x1ff, &mut lit, w.get(1).copied()) {
        Ok(s) => s,
        Err(e) => return Some((unsupported("VOPC", op, Some(o.name()), e, &w[..1]), 1)),
    };
    let n = if lit.is_some() { 2 } else { 1 };
    let (s0, h0) = src16_e32(s0);
    if let Err(e) = src16_ok(s0) {
        return Some((unsupported("VOPC", op, Some(o.name()), e, &w[..n]), n));
    }
    let v1 = ((w0 >> 9) & 0xff) as u8;
    Some((
        Inst::Valu16(Box::new(V16 {
            op: o,
            enc: VEnc::E32,
            vdst: VCC_LO,
            src: [s0, Src::V(v1 & 0x7f), Src::Const(128)],
            hi: h0 as u8 | ((v1 >> 7) & 1) << 1,
            clamp: false,
        })),
        n,
    ))
}

/// VOP3 16-bit forms (including VOPC's and VOP1's VOP3 forms).
pub(super) fn decode16_vop3(w: &[u32], op: u32) -> Option<(Inst, usize)> {
    let o = Op16::from_vop3(op)?;
    let (w0, w1) = (w[0], w[1]);
    let name = Some(o.name());
    let codes = [w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff];
    let mut lit = None;
    let next = w.get(2).copied();
    let mut src = [Src::Const(128); 3];
    let kinds = o.srcs();
    for (k, kind) in kinds.iter().enumerate() {
        match src_scalar(codes[k], &mut lit, next) {
            Ok(s) => src[k] = s,
            Err(e) => return Some((unsupported("VOP3", op, name, e, &w[..2]), 2)),
        }
        if *kind == W16::H {
            if let Err(e) = src16_ok(src[k]) {
                return Some((unsupported("VOP3", op, name, e, &w[..2]), 2));
            }
        }
    }
    let n = if lit.is_some() { 3 } else { 2 };
    let fail = |why: &str| Some((unsupported("VOP3", op, name.clone(), why, &w[..n]), n));
    let neg = w1 >> 29;
    let omod = (w1 >> 27) & 3;
    let abs = (w0 >> 8) & 7;
    let opsel = ((w0 >> 11) & 0xf) as u8;
    let clamp = (w0 >> 15) & 1 == 1;
    if neg != 0 || omod != 0 || abs != 0 {
        return fail("neg/abs/omod modifiers are not modelled for integer operations");
    }
    if clamp && !o.has_clamp() {
        return fail("clamp on an instruction without it (llvm-mc refuses it)");
    }
    // OPSEL selects halves of 16-bit VGPR operands only: a bit on a 32-bit
    // operand, a lane mask or a non-VGPR source has no meaning the guide
    // gives (llvm-mc never sets one from true16 syntax).
    for (k, kind) in kinds.iter().enumerate() {
        if opsel >> k & 1 == 1 && (*kind != W16::H || !matches!(src[k], Src::V(_))) {
            return fail("op_sel on a 32-bit, mask or non-VGPR source is not modelled");
        }
    }
    for k in kinds.len()..3 {
        if opsel >> k & 1 == 1 {
            return fail("op_sel bit of an absent source");
        }
    }
    if opsel >> 3 & 1 == 1 && o.dst() != Some(W16::H) {
        return fail("op_sel on a 32-bit or mask destination is not modelled");
    }
    let vdst = (w0 & 0xff) as u8;
    if let Op16::Cmp { cmpx, .. } = o {
        if !cmpx {
            if let Err(e) = sdst_ok(vdst as u32) {
                return fail(&e);
            }
        }
    }
    Some((
        Inst::Valu16(Box::new(V16 {
            op: o,
            enc: VEnc::E64,
            vdst,
            src,
            hi: opsel,
            clamp,
        })),
        n,
    ))
}
