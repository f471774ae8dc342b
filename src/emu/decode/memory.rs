//! The memory encodings: DS (LDS: [`Ds`], what each opcode does,
//! [`DsKind`], and the atomics' arithmetic, [`AtomicOp`]) and FLAT/GLOBAL
//! ([`Flat`]), and their decoders.

use super::operand::NULL;
use super::{unsupported, Inst};

/// The arithmetic of a DS atomic (RDNA3 ISA guide §"LDS instructions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Rsub,
    Inc,
    Dec,
    MinI,
    MaxI,
    MinU,
    MaxU,
    And,
    Or,
    Xor,
    Mskor,
    Wrxchg,
    Cmpst,
    /// DS_WRAP_RTN_B32: `tmp >= DATA ? tmp - DATA : tmp + DATA2` (u32).
    Wrap,
    /// DS_CONDXCHG32_RTN_B64: two conditional 32-bit exchanges at
    /// `(ADDR + offset) & 0xfff8` and +4, each if its DATA dword's bit 31 is set.
    CondXchg32,
    /// DS_ADD_F32 / DS_ADD_RTN_F32 (gfx11 has no DS_ADD_F64: llvm-mc-22
    /// refuses `ds_add_f64` for gfx1100).
    AddF,
    /// DS_MIN_F32/F64: `src < tmp ? src : tmp` on floats.
    MinF,
    /// DS_MAX_F32/F64: `src > tmp ? src : tmp` on floats.
    MaxF,
    /// DS_CMPSTORE_F32/F64: `tmp == cmp ? src : tmp` on floats.
    CmpstF,
}

impl AtomicOp {
    /// The op reads DATA2 (data1).
    pub fn has_data2(self) -> bool {
        matches!(
            self,
            AtomicOp::Mskor | AtomicOp::Cmpst | AtomicOp::CmpstF | AtomicOp::Wrap
        )
    }
}

/// The behaviour of one DS opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsKind {
    Nop,
    /// A read-modify-write on 4 or 8 bytes.
    Atomic {
        op: AtomicOp,
        wide: bool,
        rtn: bool,
    },
    /// Store `bytes` from data0 at ADDR + offset.
    Store {
        bytes: u8,
    },
    /// Store data0 at ADDR + offset0*size(*64) and data1 at ADDR + offset1*size(*64).
    Store2 {
        wide: bool,
        stride64: bool,
    },
    /// Load `bytes` into vdst (sign-extending 8/16-bit when `signed`).
    Load {
        bytes: u8,
        signed: bool,
    },
    Load2 {
        wide: bool,
        stride64: bool,
    },
    /// DS_STOREXCHG_2ADDR(_STRIDE64)_RTN_B32/B64: exchange data0 at
    /// ADDR + offset0*size(*64) and data1 at ADDR + offset1*size(*64),
    /// returning both old values in vdst (2 or 4 VGPRs).
    Xchg2 {
        wide: bool,
        stride64: bool,
    },
}

/// gfx11 DS opcode → (kind, mnemonic). The mnemonic is `isa::table`'s
/// (LLVM's gfx11 DS table, checked against llvm-mc there); the kind is
/// read from it by [`ds_kind`]. None for an opcode gfx11 lacks or this
/// device does not model.
pub fn ds_opcode(op: u8) -> Option<(DsKind, &'static str)> {
    let name = crate::isa::op_name(crate::isa::Family::Gfx11, op)?;
    Some((ds_kind(name)?, name))
}

/// What a DS mnemonic does, from LLVM's gfx11 naming (DSInstructions.td):
/// `ds_{op}[_rtn]_{type}` for the atomics (64-bit types are 8-byte),
/// `ds_store_{type}` / `ds_load_{type}`, the `_2addr[_stride64]` pairs,
/// the exchanges. None for anything else (the permutes, swizzles, GWS,
/// append/consume, the d16 halves, ...), which the device does not model.
pub fn ds_kind(name: &str) -> Option<DsKind> {
    use AtomicOp::*;
    use DsKind::*;
    let rest = name.strip_prefix("ds_")?;
    if rest == "nop" {
        return Some(Nop);
    }
    let (body, ty) = rest.rsplit_once('_')?;
    let wide = match ty {
        "b32" | "u32" | "i32" | "f32" => false,
        "b64" | "u64" | "i64" | "f64" => true,
        _ => {
            // The 8/16/96/128-bit loads and stores.
            let bytes = match ty {
                "b8" | "u8" | "i8" => 1,
                "b16" | "u16" | "i16" => 2,
                "b96" => 12,
                "b128" => 16,
                _ => return None,
            };
            return match body {
                "store" if ty.starts_with('b') => Some(Store { bytes }),
                "load" => Some(Load {
                    bytes,
                    signed: ty.starts_with('i'),
                }),
                _ => None,
            };
        }
    };
    let float = ty.starts_with('f');
    let pair = |b: &str| match b {
        "2addr" => Some(false),
        "2addr_stride64" => Some(true),
        _ => None,
    };
    if let Some(b) = body.strip_prefix("store_") {
        return pair(b).map(|stride64| Store2 { wide, stride64 });
    }
    if let Some(b) = body.strip_prefix("load_") {
        return pair(b).map(|stride64| Load2 { wide, stride64 });
    }
    let xchg2 = body
        .strip_prefix("storexchg_")
        .and_then(|b| b.strip_suffix("_rtn"));
    if let Some(stride64) = xchg2.and_then(pair) {
        return Some(Xchg2 { wide, stride64 });
    }
    match (body, float) {
        ("store", false) => {
            return Some(Store {
                bytes: if wide { 8 } else { 4 },
            })
        }
        ("load", false) if ty.starts_with('b') => {
            return Some(Load {
                bytes: if wide { 8 } else { 4 },
                signed: false,
            })
        }
        _ => {}
    }
    let (op, rtn) = match body.strip_suffix("_rtn") {
        Some(op) => (op, true),
        None => (body, false),
    };
    let signed = ty.starts_with('i');
    let op = match (op, float) {
        ("add", false) => Add,
        ("add", true) if !wide => AddF,
        ("sub", false) => Sub,
        ("rsub", false) => Rsub,
        ("inc", false) => Inc,
        ("dec", false) => Dec,
        ("min", false) if signed => MinI,
        ("min", false) => MinU,
        ("max", false) if signed => MaxI,
        ("max", false) => MaxU,
        ("min", true) => MinF,
        ("max", true) => MaxF,
        ("and", false) => And,
        ("or", false) => Or,
        ("xor", false) => Xor,
        ("mskor", false) => Mskor,
        ("storexchg", false) if rtn => Wrxchg,
        ("cmpstore", false) => Cmpst,
        ("cmpstore", true) => CmpstF,
        ("wrap", false) if rtn && !wide => Wrap,
        ("condxchg32", false) if rtn && wide => CondXchg32,
        _ => return None,
    };
    Some(Atomic { op, wide, rtn })
}

/// A decoded DS instruction (fields as ENC_DS names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ds {
    pub op: u8,
    pub kind: DsKind,
    pub name: &'static str,
    pub offset0: u8,
    pub offset1: u8,
    pub addr: u8,
    pub data0: u8,
    pub data1: u8,
    pub vdst: u8,
}

/// FLAT/GLOBAL memory operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatKind {
    Load { bytes: u8, signed: bool },
    Store { bytes: u8 },
}

/// A decoded FLAT or GLOBAL instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flat {
    pub kind: FlatKind,
    pub global: bool,
    pub offset: i32,
    pub vaddr: u8,
    pub vdata: u8,
    pub vdst: u8,
    /// GLOBAL with an SGPR base: address = S[saddr:saddr+1] + zext(V[vaddr]) + offset.
    pub saddr: Option<u8>,
    pub name: &'static str,
}

pub(super) fn decode_ds(w0: u32, w1: u32) -> Inst {
    let op = ((w0 >> 18) & 0xff) as u8;
    let gds = (w0 >> 17) & 1;
    let Some((kind, name)) = ds_opcode(op) else {
        // Name it as the isa module (LLVM's gfx11 table) does.
        let name = crate::isa::op_name(crate::isa::Family::Gfx11, op).map(str::to_string);
        return unsupported("DS", op as u32, name, "DS opcode not modelled", &[w0, w1]);
    };
    if gds != 0 {
        return unsupported(
            "DS",
            op as u32,
            Some(name.into()),
            "GDS is not modelled",
            &[w0, w1],
        );
    }
    Inst::Ds(Ds {
        op,
        kind,
        name,
        offset0: w0 as u8,
        offset1: (w0 >> 8) as u8,
        addr: w1 as u8,
        data0: (w1 >> 8) as u8,
        data1: (w1 >> 16) as u8,
        vdst: (w1 >> 24) as u8,
    })
}

pub(super) fn decode_flat(w0: u32, w1: u32) -> Inst {
    let op = (w0 >> 18) & 0x7f;
    let seg = (w0 >> 16) & 3;
    let (kind, base) = match op {
        16 => (
            FlatKind::Load {
                bytes: 1,
                signed: false,
            },
            "load_u8",
        ),
        17 => (
            FlatKind::Load {
                bytes: 1,
                signed: true,
            },
            "load_i8",
        ),
        18 => (
            FlatKind::Load {
                bytes: 2,
                signed: false,
            },
            "load_u16",
        ),
        19 => (
            FlatKind::Load {
                bytes: 2,
                signed: true,
            },
            "load_i16",
        ),
        20 => (
            FlatKind::Load {
                bytes: 4,
                signed: false,
            },
            "load_b32",
        ),
        21 => (
            FlatKind::Load {
                bytes: 8,
                signed: false,
            },
            "load_b64",
        ),
        22 => (
            FlatKind::Load {
                bytes: 12,
                signed: false,
            },
            "load_b96",
        ),
        23 => (
            FlatKind::Load {
                bytes: 16,
                signed: false,
            },
            "load_b128",
        ),
        24 => (FlatKind::Store { bytes: 1 }, "store_b8"),
        25 => (FlatKind::Store { bytes: 2 }, "store_b16"),
        26 => (FlatKind::Store { bytes: 4 }, "store_b32"),
        27 => (FlatKind::Store { bytes: 8 }, "store_b64"),
        28 => (FlatKind::Store { bytes: 12 }, "store_b96"),
        29 => (FlatKind::Store { bytes: 16 }, "store_b128"),
        _ => {
            return unsupported(
                "FLAT",
                op,
                None,
                "FLAT/GLOBAL opcode not modelled (atomics, d16)",
                &[w0, w1],
            )
        }
    };
    let name: &'static str = match (seg, base) {
        (0, b) => flat_name("flat_", b),
        (2, b) => flat_name("global_", b),
        _ => {
            return unsupported(
                "FLAT",
                op,
                None,
                "scratch segment is not modelled",
                &[w0, w1],
            )
        }
    };
    let global = seg == 2;
    // GLOBAL: signed 13-bit offset; FLAT: unsigned 12-bit (FLATInstructions.td, gfx11).
    let offset = if global {
        ((w0 & 0x1fff) << 19) as i32 >> 19
    } else {
        (w0 & 0xfff) as i32
    };
    let saddr = (w1 >> 16) & 0x7f;
    let saddr = if saddr == NULL as u32 || !global {
        None
    } else {
        Some(saddr as u8)
    };
    Inst::Flat(Flat {
        kind,
        global,
        offset,
        vaddr: w1 as u8,
        vdata: (w1 >> 8) as u8,
        vdst: (w1 >> 24) as u8,
        saddr,
        name,
    })
}

fn flat_name(prefix: &str, base: &str) -> &'static str {
    // A closed set of names; match to keep them 'static without leaking.
    match (prefix, base) {
        ("flat_", "load_u8") => "flat_load_u8",
        ("flat_", "load_i8") => "flat_load_i8",
        ("flat_", "load_u16") => "flat_load_u16",
        ("flat_", "load_i16") => "flat_load_i16",
        ("flat_", "load_b32") => "flat_load_b32",
        ("flat_", "load_b64") => "flat_load_b64",
        ("flat_", "load_b96") => "flat_load_b96",
        ("flat_", "load_b128") => "flat_load_b128",
        ("flat_", "store_b8") => "flat_store_b8",
        ("flat_", "store_b16") => "flat_store_b16",
        ("flat_", "store_b32") => "flat_store_b32",
        ("flat_", "store_b64") => "flat_store_b64",
        ("flat_", "store_b96") => "flat_store_b96",
        ("flat_", "store_b128") => "flat_store_b128",
        (_, "load_u8") => "global_load_u8",
        (_, "load_i8") => "global_load_i8",
        (_, "load_u16") => "global_load_u16",
        (_, "load_i16") => "global_load_i16",
        (_, "load_b32") => "global_load_b32",
        (_, "load_b64") => "global_load_b64",
        (_, "load_b96") => "global_load_b96",
        (_, "load_b128") => "global_load_b128",
        (_, "store_b8") => "global_store_b8",
        (_, "store_b16") => "global_store_b16",
        (_, "store_b32") => "global_store_b32",
        (_, "store_b64") => "global_store_b64",
        (_, "store_b96") => "global_store_b96",
        _ => "global_store_b128",
    }
}
