//! `isa`: DS (LDS / data share) instruction encodings per GPU generation,
//! and text ⇄ bits in LLVM's syntax.
//!
//! The single source of truth is LLVM's AMDGPU backend: encodings from
//! `llvm/lib/Target/AMDGPU/DSInstructions.td`, syntax and verdicts from the
//! MC tests (`llvm/test/MC/AMDGPU/ds.s`, `gfx90a_ldst_acc.s`,
//! `gfx10_asm_ds.s`, `gfx11_asm_ds.s`, `gfx12_asm_ds.s`), all checked here
//! against `llvm-mc-22` (`tests/it/host_isa_llvm.rs`).
//!
//! * [`target`] maps a target name (`gfx1100`) to a [`Target`] and its
//!   [`Family`] (which encoding layout, which opcode table, which rules).
//! * [`DsInst`] is one DS instruction as its fields; [`DsInst::encode`] /
//!   [`DsInst::decode`] convert to and from the 64-bit word (byte 0 of the
//!   little-endian word is `offset0`, as llvm-mc's byte lists show).
//! * [`is_ds`], [`op_name`], [`op_info`] look opcodes up.
//! * [`print()`] (or [`DsInst::text`], [`disassemble`]) turns any decoded DS
//!   instruction of the family's table into LLVM's canonical text; [`parse`]
//!   reads any of them back (LLVM 22's mnemonics, no aliases) and validates
//!   it with llvm-mc's verdicts. [`XOR_FAMILY`] names the four XOR ops
//!   dsxor exists for.
//! * [`assemble_line`] / [`disassemble_line`] are what `dsxor asm` and
//!   `dsxor disasm` do for one input line.
//!
//! Every refusal is an [`IsaError`] whose [`IsaError::rule`] names the rule.

pub mod alu;
mod table;
mod table_types;
mod text;

use std::fmt;

pub use table_types::{AccForm, Field, GdsForm, OffsetForm, OpInfo, Operand};
pub use text::{
    assemble_line, disassemble_line, format_bytes, parse, parse_bytes, print, AsmLine, XOR_FAMILY,
};

/// `ds_xor_b32` (opcode 11 in every generation; DSInstructions.td).
pub const DS_XOR_B32: u8 = 11;
/// `ds_xor_rtn_b32` (opcode 43 in every generation).
pub const DS_XOR_RTN_B32: u8 = 43;
/// `ds_xor_b64` (opcode 75 in every generation).
pub const DS_XOR_B64: u8 = 75;
/// `ds_xor_rtn_b64` (opcode 107 in every generation; the seed's
/// identifier `0xD9AC0000` is this opcode in the gfx10+ layout).
pub const DS_XOR_RTN_B64: u8 = 107;

/// The two bit layouts of the 64-bit DS word (docs/src/internals/facts.md, "Encoding").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// gfx8/gfx9/CDNA ("VI" in LLVM): gds 16, op 24:17, acc 25.
    Vi,
    /// gfx6/7 and gfx10+: bit 16 unassigned, gds 17, op 25:18, no acc bit.
    Gfx10,
}

/// An encoding family: targets that share one DS opcode table and one set of
/// rules. LLVM 22 gives the CDNA chips different tables (gfx942 adds
/// `ds_pk_add_f16`/`_bf16` and their `_rtn` forms to gfx90a's; gfx950 adds
/// the `ds_read_b64_tr_b4`-class transpose loads), so they are separate
/// families here, each with [`Layout::Vi`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// gfx900, gfx906, gfx908.
    Gfx9,
    /// gfx90a (CDNA2).
    Gfx90a,
    /// gfx942 (CDNA3).
    Gfx942,
    /// gfx950 (CDNA4).
    Gfx950,
    /// gfx1030 (RDNA2).
    Gfx10,
    /// gfx1100–gfx1103, gfx1150, gfx1151 (RDNA3, RDNA3.5).
    Gfx11,
    /// gfx1200, gfx1201 (RDNA4).
    Gfx12,
    /// gfx1250.
    Gfx1250,
}

impl Family {
    /// Every family, oldest first.
    pub const ALL: [Family; 8] = [
        Family::Gfx9,
        Family::Gfx90a,
        Family::Gfx942,
        Family::Gfx950,
        Family::Gfx10,
        Family::Gfx11,
        Family::Gfx12,
        Family::Gfx1250,
    ];

    /// A short name (`gfx9`, `gfx90a`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Family::Gfx9 => "gfx9",
            Family::Gfx90a => "gfx90a",
            Family::Gfx942 => "gfx942",
            Family::Gfx950 => "gfx950",
            Family::Gfx10 => "gfx10",
            Family::Gfx11 => "gfx11",
            Family::Gfx12 => "gfx12",
            Family::Gfx1250 => "gfx1250",
        }
    }

    /// The bit layout of this family's DS word.
    pub fn layout(self) -> Layout {
        match self {
            Family::Gfx9 | Family::Gfx90a | Family::Gfx942 | Family::Gfx950 => Layout::Vi,
            Family::Gfx10 | Family::Gfx11 | Family::Gfx12 | Family::Gfx1250 => Layout::Gfx10,
        }
    }

    /// Whether DS instructions may address GDS (the `gds` modifier).
    /// llvm-mc-22: "gds modifier is not supported on this GPU" on gfx90a,
    /// gfx942, gfx950, gfx12 and gfx1250. Exception: the GWS ops
    /// ([`GdsForm::Required`]) keep their gds bit on gfx90a/gfx942/gfx950.
    pub fn has_gds(self) -> bool {
        matches!(self, Family::Gfx9 | Family::Gfx10 | Family::Gfx11)
    }

    /// Whether DS instructions have AGPR forms (`acc` bit; data and vdst
    /// `a[N:M]`). Only CDNA2+ (llvm/test/MC/AMDGPU/gfx90a_ldst_acc.s);
    /// gfx908 has AGPRs but no DS AGPR form.
    pub fn has_agprs(self) -> bool {
        matches!(self, Family::Gfx90a | Family::Gfx942 | Family::Gfx950)
    }

    /// Whether register tuples must start at an even register
    /// (`VReg_64_Align2` in LLVM): gfx90a+ CDNA and gfx1250. The opcode
    /// tables carry the exact rule per operand ([`Operand::even`]): a few
    /// gfx950/gfx1250 96-bit transpose loads take odd tuples.
    pub fn needs_even_tuples(self) -> bool {
        matches!(
            self,
            Family::Gfx90a | Family::Gfx942 | Family::Gfx950 | Family::Gfx1250
        )
    }

    /// Whether a register tuple that starts at or below v255 may run past it
    /// (`v[254:257]`). Only gfx1250, whose VGPR file is larger than the 8-bit
    /// field: llvm-mc-22 assembles `ds_load_b128 v[254:257], v1` there and
    /// refuses it ("register index is out of range") everywhere else; a
    /// single register past v255 (`v256`) is refused on every family.
    pub fn tuples_may_end_past_v255(self) -> bool {
        self == Family::Gfx1250
    }

    /// This family's DS opcode table, sorted by opcode.
    pub fn ops(self) -> &'static [OpInfo] {
        match self {
            Family::Gfx9 => table::GFX9,
            Family::Gfx90a => table::GFX90A,
            Family::Gfx942 => table::GFX942,
            Family::Gfx950 => table::GFX950,
            Family::Gfx10 => table::GFX10,
            Family::Gfx11 => table::GFX11,
            Family::Gfx12 => table::GFX12,
            Family::Gfx1250 => table::GFX1250,
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A GPU target dsxor knows, by its LLVM processor name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// LLVM's name, as `-mcpu=` and `--offload-arch=` take it.
    pub name: &'static str,
    /// Its encoding family.
    pub family: Family,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Every target dsxor knows. All are accepted by llvm-mc-22
/// (`llvm-mc-22 -arch=amdgcn -mcpu=NAME`).
pub const TARGETS: &[Target] = &[
    Target {
        name: "gfx900",
        family: Family::Gfx9,
    },
    Target {
        name: "gfx906",
        family: Family::Gfx9,
    },
    Target {
        name: "gfx908",
        family: Family::Gfx9,
    },
    Target {
        name: "gfx90a",
        family: Family::Gfx90a,
    },
    Target {
        name: "gfx942",
        family: Family::Gfx942,
    },
    Target {
        name: "gfx950",
        family: Family::Gfx950,
    },
    Target {
        name: "gfx1030",
        family: Family::Gfx10,
    },
    Target {
        name: "gfx1100",
        family: Family::Gfx11,
    },
    Target {
        name: "gfx1101",
        family: Family::Gfx11,
    },
    Target {
        name: "gfx1102",
        family: Family::Gfx11,
    },
    Target {
        name: "gfx1103",
        family: Family::Gfx11,
    },
    Target {
        name: "gfx1150",
        family: Family::Gfx11,
    },
    Target {
        name: "gfx1151",
        family: Family::Gfx11,
    },
    Target {
        name: "gfx1200",
        family: Family::Gfx12,
    },
    Target {
        name: "gfx1201",
        family: Family::Gfx12,
    },
    Target {
        name: "gfx1250",
        family: Family::Gfx1250,
    },
];

/// Look a target up by name (exact, lower case, as LLVM spells it).
pub fn target(name: &str) -> Result<Target, IsaError> {
    TARGETS
        .iter()
        .copied()
        .find(|t| t.name == name)
        .ok_or_else(|| IsaError::UnknownTarget {
            name: name.to_owned(),
            known: known_targets(),
        })
}

/// The known target names, comma separated (for messages).
pub fn known_targets() -> String {
    TARGETS
        .iter()
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Bits 31:26 of every DS word: `110110` (DSInstructions.td, `DS_Real`
/// `Inst{31-26} = 0x36`), the same in both layouts.
pub const DS_ENCODING: u64 = 0b11_0110;

/// Whether `word` is a DS instruction (its encoding bits 31:26 are `110110`).
/// The family does not change the test; it is taken so callers state which
/// table they will look the opcode up in.
pub fn is_ds(_family: Family, word: u64) -> bool {
    (word >> 26) & 0x3f == DS_ENCODING
}

/// The table row of `op` in `family`, if LLVM 22 knows that opcode there.
pub fn op_info(family: Family, op: u8) -> Option<&'static OpInfo> {
    let ops = family.ops();
    ops.binary_search_by_key(&op, |i| i.op)
        .ok()
        .and_then(|i| ops.get(i))
}

/// LLVM's mnemonic for `op` in `family` (`op_name(Family::Gfx11, 107)` is
/// `Some("ds_xor_rtn_b64")`).
pub fn op_name(family: Family, op: u8) -> Option<&'static str> {
    op_info(family, op).map(|i| i.name)
}

/// The opcode of mnemonic `name` (lower case) in `family`.
pub fn op_by_name(family: Family, name: &str) -> Option<&'static OpInfo> {
    family.ops().iter().find(|i| i.name == name)
}

/// Decode and print one 64-bit DS word: what `dsxor disasm` prints for it.
pub fn disassemble(family: Family, word: u64) -> Result<String, IsaError> {
    print(family, &DsInst::decode(family, word)?)
}

/// One DS instruction as its encoding fields (the ISA's names).
///
/// `decode` followed by `encode` gives back the same word and vice versa:
/// bits that are no field of the family (bit 16 on gfx10+) make `decode`
/// fail rather than be dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DsInst {
    /// `OP`, 8 bits.
    pub op: u8,
    /// `OFFSET0`, bits 7:0 (low byte of the 16-bit offset).
    pub offset0: u8,
    /// `OFFSET1`, bits 15:8 (high byte of the 16-bit offset).
    pub offset1: u8,
    /// `GDS`: address GDS instead of LDS.
    pub gds: bool,
    /// `ACC` (VI layout bit 25): data and vdst name AGPRs.
    pub acc: bool,
    /// `ADDR` VGPR number.
    pub addr: u8,
    /// `DATA0` register number.
    pub data0: u8,
    /// `DATA1` register number.
    pub data1: u8,
    /// `VDST` register number.
    pub vdst: u8,
}

impl DsInst {
    /// The 16-bit offset `{offset1, offset0}` of single-address DS ops
    /// (CalcDsAddr adds it to ADDR).
    pub fn offset(&self) -> u16 {
        u16::from(self.offset0) | (u16::from(self.offset1) << 8)
    }

    /// Set `{offset1, offset0}` from a 16-bit offset.
    pub fn set_offset(&mut self, offset: u16) {
        let [lo, hi] = offset.to_le_bytes();
        self.offset0 = lo;
        self.offset1 = hi;
    }

    /// The register number held by `field`.
    pub fn field(&self, field: Field) -> u8 {
        match field {
            Field::Addr => self.addr,
            Field::Data0 => self.data0,
            Field::Data1 => self.data1,
            Field::Vdst => self.vdst,
        }
    }

    /// Set the register number held by `field`.
    pub fn set_field(&mut self, field: Field, reg: u8) {
        match field {
            Field::Addr => self.addr = reg,
            Field::Data0 => self.data0 = reg,
            Field::Data1 => self.data1 = reg,
            Field::Vdst => self.vdst = reg,
        }
    }

    /// LLVM's canonical text of this instruction on `family` (see [`print()`]).
    pub fn text(&self, family: Family) -> Result<String, IsaError> {
        print(family, self)
    }

    /// The 64-bit word in `family`'s layout. Fails only for `acc` on a
    /// gfx10+ family, whose layout has no acc bit.
    pub fn encode(&self, family: Family) -> Result<u64, IsaError> {
        let low = u64::from(self.offset0) | (u64::from(self.offset1) << 8) | (DS_ENCODING << 26);
        let low = match family.layout() {
            Layout::Vi => {
                low | (u64::from(self.gds) << 16)
                    | (u64::from(self.op) << 17)
                    | (u64::from(self.acc) << 25)
            }
            Layout::Gfx10 => {
                if self.acc {
                    return Err(IsaError::NoAgprs {
                        family,
                        what: "the acc bit".to_owned(),
                    });
                }
                low | (u64::from(self.gds) << 17) | (u64::from(self.op) << 18)
            }
        };
        Ok(low
            | (u64::from(self.addr) << 32)
            | (u64::from(self.data0) << 40)
            | (u64::from(self.data1) << 48)
            | (u64::from(self.vdst) << 56))
    }

    /// The fields of `word` in `family`'s layout. Fails when the word is not
    /// DS or sets bit 16 on gfx10+ (no field there; LLVM ignores it).
    /// Does not look at the opcode table: see [`print()`] for that.
    pub fn decode(family: Family, word: u64) -> Result<DsInst, IsaError> {
        if !is_ds(family, word) {
            return Err(IsaError::NotDs { word });
        }
        let byte = |shift: u32| ((word >> shift) & 0xff) as u8;
        let bit = |n: u32| (word >> n) & 1 == 1;
        let (op, gds, acc) = match family.layout() {
            Layout::Vi => (((word >> 17) & 0xff) as u8, bit(16), bit(25)),
            Layout::Gfx10 => {
                if bit(16) {
                    return Err(IsaError::InvalidEncoding {
                        word,
                        why: format!(
                            "bit 16 is set but is no field on {family} (LLVM's decoder ignores it)"
                        ),
                    });
                }
                (((word >> 18) & 0xff) as u8, bit(17), false)
            }
        };
        Ok(DsInst {
            op,
            offset0: byte(0),
            offset1: byte(8),
            gds,
            acc,
            addr: byte(32),
            data0: byte(40),
            data1: byte(48),
            vdst: byte(56),
        })
    }
}

/// Why dsxor refused an instruction, a word or a name. Each variant is one
/// rule; [`IsaError::rule`] gives its stable name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    #[error("unknown target `{name}`; known targets: {known}")]
    UnknownTarget { name: String, known: String },
    #[error("`{mnemonic}` is not a DS instruction of {target} (LLVM 22's names, no aliases)")]
    UnknownMnemonic {
        mnemonic: String,
        target: &'static str,
    },
    #[error("syntax: {why} in `{text}`")]
    Syntax { text: String, why: String },
    #[error("offset {offset} does not fit the DS offset field (rule offset-range: at most {max})")]
    OffsetRange { offset: String, max: u64 },
    #[error("`gds` is not supported on {target} (rule no-gds: gfx90a, gfx942, gfx950, gfx12 and gfx1250 have no GDS)")]
    NoGds { target: &'static str },
    #[error("{what}: {family} has no AGPR form of DS instructions (rule no-agprs: only gfx90a, gfx942, gfx950)")]
    NoAgprs { family: Family, what: String },
    #[error("{what} (rule mixed-agpr-vgpr: data and vdst must be all AGPRs or all VGPRs)")]
    MixedAgprVgpr { what: String },
    #[error("addr must be a VGPR, not {reg} (rule addr-vgpr)")]
    AddrNotVgpr { reg: String },
    #[error("{operand} {reg} starts at an odd register; {family} needs even-aligned register tuples (rule even-tuples)")]
    OddTuple {
        family: Family,
        operand: &'static str,
        reg: String,
    },
    #[error("{operand} {reg} runs past register 255 (rule register-range)")]
    RegisterRange { operand: &'static str, reg: String },
    #[error("{operand} of {mnemonic} must be {expected}, got {reg} (rule operand-width)")]
    OperandWidth {
        mnemonic: &'static str,
        operand: &'static str,
        expected: String,
        reg: String,
    },
    #[error("0x{word:016x} is not a DS instruction (bits 31:26 are not 110110)")]
    NotDs { word: u64 },
    #[error("opcode {op} is no DS instruction on {family} (LLVM 22 has no such opcode)")]
    UnknownOpcode { family: Family, op: u8 },
    #[error("0x{word:016x}: {why} (rule invalid-encoding)")]
    InvalidEncoding { word: u64, why: String },
    #[error("byte list `{text}`: {why}")]
    ByteList { text: String, why: String },
}

impl IsaError {
    /// The stable name of the rule this refusal applies.
    pub fn rule(&self) -> &'static str {
        match self {
            IsaError::UnknownTarget { .. } => "unknown-target",
            IsaError::UnknownMnemonic { .. } => "unknown-mnemonic",
            IsaError::Syntax { .. } => "syntax",
            IsaError::OffsetRange { .. } => "offset-range",
            IsaError::NoGds { .. } => "no-gds",
            IsaError::NoAgprs { .. } => "no-agprs",
            IsaError::MixedAgprVgpr { .. } => "mixed-agpr-vgpr",
            IsaError::AddrNotVgpr { .. } => "addr-vgpr",
            IsaError::OddTuple { .. } => "even-tuples",
            IsaError::RegisterRange { .. } => "register-range",
            IsaError::OperandWidth { .. } => "operand-width",
            IsaError::NotDs { .. } => "not-ds",
            IsaError::UnknownOpcode { .. } => "unknown-opcode",
            IsaError::InvalidEncoding { .. } => "invalid-encoding",
            IsaError::ByteList { .. } => "byte-list",
        }
    }
}

#[cfg(test)]
mod tests;
