//! Finding DS instructions in `.text`: the DS field layout per generation.
//!
//! Layouts (DESIGN.md "Facts"; LLVM llvm/lib/Target/AMDGPU/DSInstructions.td,
//! checked with llvm-mc): the 64-bit DS word has `110110` in bits 31:26 and
//! offset0 7:0, offset1 15:8, addr 39:32, data0 47:40, data1 55:48,
//! vdst 63:56 everywhere; gfx6/7 and gfx10/11/12 put gds at 17 and op at
//! 25:18, gfx8/gfx9 (incl. gfx90a/gfx942) put gds at 16, op at 24:17 and the
//! AGPR bit `acc` at 25.
//!
//! Policy until the `isa` module lands on main: this file decodes only the
//! DS fields, by scanning `.text` dword by dword, and names only
//! `ds_xor_rtn_b64` (op 107 in every generation). A dword scan can take a
//! literal or a second instruction dword for a DS word, so every caller that
//! acts on a match (the offset patcher) demands exactly one match and checks
//! it against the `<kernel>.ds_xor_site` label the kernel source plants.

/// `ds_xor_rtn_b64`'s opcode in every generation (DSInstructions.td).
pub const OP_DS_XOR_RTN_B64: u8 = 107;

/// Where a generation keeps gds, op and acc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsLayout {
    /// gfx6/7, gfx10, gfx11, gfx12: gds 17, op 25:18.
    Gfx10Style,
    /// gfx8, gfx9, gfx90a, gfx942, gfx950: gds 16, op 24:17, acc 25.
    Gfx9Style,
}

impl DsLayout {
    /// The layout for a processor name (`gfx1100`, `gfx90a`, `gfx9-generic`).
    pub fn for_processor(processor: &str) -> DsLayout {
        let digits = processor.trim_start_matches("gfx");
        // gfx8xx and gfx9xx (three characters, or a "9-…" generic name).
        let gen9 = (digits.starts_with('8') || digits.starts_with('9'))
            && (digits.len() == 3 || digits.starts_with("9-"));
        if gen9 {
            DsLayout::Gfx9Style
        } else {
            DsLayout::Gfx10Style
        }
    }
}

/// The fields of one DS instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsFields {
    pub op: u8,
    pub offset0: u8,
    pub offset1: u8,
    pub gds: bool,
    /// AGPR data/vdst (gfx90a+ only; always false in the gfx10 layout).
    pub acc: bool,
    pub addr: u8,
    pub data0: u8,
    pub data1: u8,
    pub vdst: u8,
}

impl DsFields {
    /// `{offset1, offset0}` as one 16-bit offset.
    pub fn offset(&self) -> u16 {
        u16::from(self.offset1) << 8 | u16::from(self.offset0)
    }

    /// Mnemonic, when this module knows it.
    pub fn mnemonic(&self) -> Option<&'static str> {
        (self.op == OP_DS_XOR_RTN_B64).then_some("ds_xor_rtn_b64")
    }

    /// Operands in LLVM's syntax, for the instructions `mnemonic` knows.
    pub fn operands(&self) -> Option<String> {
        if self.op != OP_DS_XOR_RTN_B64 {
            return None;
        }
        let r = if self.acc { 'a' } else { 'v' };
        let mut s = format!(
            "{r}[{}:{}], v{}, {r}[{}:{}]",
            self.vdst,
            u16::from(self.vdst) + 1,
            self.addr,
            self.data0,
            u16::from(self.data0) + 1
        );
        if self.offset() != 0 {
            s.push_str(&format!(" offset:{}", self.offset()));
        }
        if self.gds {
            s.push_str(" gds");
        }
        Some(s)
    }
}

/// Decode a 64-bit DS word (low dword first in memory), or None when bits
/// 31:26 are not `110110`.
pub fn decode(word: u64, layout: DsLayout) -> Option<DsFields> {
    let lo = word as u32;
    if lo >> 26 != 0b110110 {
        return None;
    }
    let (op, gds, acc) = match layout {
        DsLayout::Gfx10Style => (((lo >> 18) & 0xff) as u8, (lo >> 17) & 1 != 0, false),
        DsLayout::Gfx9Style => (
            ((lo >> 17) & 0xff) as u8,
            (lo >> 16) & 1 != 0,
            (lo >> 25) & 1 != 0,
        ),
    };
    Some(DsFields {
        op,
        offset0: lo as u8,
        offset1: (lo >> 8) as u8,
        gds,
        acc,
        addr: (word >> 32) as u8,
        data0: (word >> 40) as u8,
        data1: (word >> 48) as u8,
        vdst: (word >> 56) as u8,
    })
}

/// Replace offset0/offset1 of a DS word.
pub fn with_offset(word: u64, offset: u16) -> u64 {
    (word & !0xffff) | u64::from(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_table_examples() {
        // DESIGN.md: ds_xor_rtn_b64 v[5:6], v1, v[2:3] = 00 00 ac d9 01 02 00 05 (gfx11)
        let w = u64::from_le_bytes([0x00, 0x00, 0xac, 0xd9, 0x01, 0x02, 0x00, 0x05]);
        let f = decode(w, DsLayout::Gfx10Style).unwrap();
        assert_eq!(
            (f.op, f.vdst, f.addr, f.data0, f.offset()),
            (107, 5, 1, 2, 0)
        );
        assert_eq!(f.operands().unwrap(), "v[5:6], v1, v[2:3]");
        // … and 00 00 d6 d8 01 02 00 05 on gfx9.
        let w = u64::from_le_bytes([0x00, 0x00, 0xd6, 0xd8, 0x01, 0x02, 0x00, 0x05]);
        let f = decode(w, DsLayout::Gfx9Style).unwrap();
        assert_eq!((f.op, f.gds, f.acc), (107, false, false));
        assert_eq!(
            decode(with_offset(w, 0x1234), DsLayout::Gfx9Style)
                .unwrap()
                .offset(),
            0x1234
        );
    }

    #[test]
    fn layouts() {
        assert_eq!(DsLayout::for_processor("gfx90a"), DsLayout::Gfx9Style);
        assert_eq!(DsLayout::for_processor("gfx942"), DsLayout::Gfx9Style);
        assert_eq!(DsLayout::for_processor("gfx803"), DsLayout::Gfx9Style);
        assert_eq!(
            DsLayout::for_processor("gfx9-4-generic"),
            DsLayout::Gfx9Style
        );
        assert_eq!(DsLayout::for_processor("gfx1100"), DsLayout::Gfx10Style);
        assert_eq!(DsLayout::for_processor("gfx1030"), DsLayout::Gfx10Style);
        assert_eq!(DsLayout::for_processor("gfx700"), DsLayout::Gfx10Style);
        assert_eq!(
            DsLayout::for_processor("gfx11-generic"),
            DsLayout::Gfx10Style
        );
    }
}
