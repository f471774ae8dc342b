//! The shape of one row of a DS opcode table (see `table.rs`).

/// One 8-bit register field of the DS encoding (docs/src/internals/facts.md, encoding table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `ADDR`, bits 39:32: the VGPR holding the LDS byte address.
    Addr,
    /// `DATA0`, bits 47:40.
    Data0,
    /// `DATA1`, bits 55:48.
    Data1,
    /// `VDST`, bits 63:56: the returned data.
    Vdst,
}

impl Field {
    /// The ISA's name of the field, as error messages use it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Addr => "addr",
            Field::Data0 => "data0",
            Field::Data1 => "data1",
            Field::Vdst => "vdst",
        }
    }

    /// This field's bit in an `AccForm::Fields` mask.
    pub const fn mask_bit(self) -> u8 {
        match self {
            Field::Addr => 1,
            Field::Data0 => 2,
            Field::Data1 => 4,
            Field::Vdst => 8,
        }
    }
}

/// One register operand of an instruction, in LLVM's print order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// Which encoding field holds the register number.
    pub field: Field,
    /// Width of the register tuple in dwords (1 = `v5`, 2 = `v[5:6]`, ...).
    pub dwords: u8,
    /// The tuple must start at an even register (LLVM `*_Align2` classes,
    /// gfx90a+ CDNA and gfx1250).
    pub even: bool,
}

/// How the 16 offset bits are written in LLVM syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetForm {
    /// One 16-bit `offset:N` = `{offset1, offset0}`, printed only when nonzero.
    Single,
    /// Two 8-bit offsets `offset0:N offset1:M` (the `2addr` forms), each
    /// printed only when nonzero.
    Pair,
    /// `ds_swizzle_b32`: the 16 bits are a swizzle pattern, printed as
    /// `offset:swizzle(...)` the way LLVM's AMDGPUInstPrinter::printSwizzle does.
    Swizzle,
    /// No offset field (`ds_nop`): the 16 bits must be zero.
    NoOffset,
}

/// What the `gds` bit means for an opcode on a family (as LLVM 22 decodes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GdsForm {
    /// `gds` may be set or clear; printed as ` gds` when set.
    Optional,
    /// Only valid with the bit set (the GWS and ordered-count ops); always
    /// printed.
    Required,
    /// LLVM's decoder rejects the word when the bit is set.
    NotAllowed,
    /// The family has no GDS; LLVM's decoder accepts the bit but drops it
    /// (gfx90a, gfx942, gfx950). dsxor refuses such a word instead (see
    /// `text.rs`, round-trip policy).
    Ignored,
}

/// Whether the `acc` bit (bit 25, VI layout only) selects AGPRs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccForm {
    /// LLVM rejects (or flags as an invalid register) the word with acc set.
    None,
    /// With acc set, the fields in this mask (`Field::mask_bit`) name AGPRs
    /// (`a5`, `a[4:5]`); the others stay VGPRs.
    Fields(u8),
}

/// One DS opcode of one encoding family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// The 8-bit `OP` field.
    pub op: u8,
    /// LLVM's mnemonic.
    pub name: &'static str,
    /// Register operands in print order. Fields not listed must be 0.
    pub operands: &'static [Operand],
    /// How the offset bits are written.
    pub offset: OffsetForm,
    /// What the gds bit means.
    pub gds: GdsForm,
    /// What the acc bit means.
    pub acc: AccForm,
}

impl OpInfo {
    /// The operand stored in `field`, if this opcode has one.
    pub fn operand(&self, field: Field) -> Option<Operand> {
        self.operands.iter().copied().find(|o| o.field == field)
    }
}
