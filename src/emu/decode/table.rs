//! The op families and what the decoder derives for them from
//! [`ALU_OPS`], the one table of gfx11 ALU mnemonics, formats, opcodes and
//! operand kinds: the `ops!` macro a family is declared with (its variants
//! and mnemonics; the lists are in `scalar.rs`, `vector.rs` and
//! `vop3p.rs`), each family's opcode map and implicit operands (`table_rows!`,
//! [`opcode_map`], [`implicit_map`], [`row_of`]) and the VOPC rows'
//! implicit operands ([`vopc_implicit`]). The tests here hold every op of
//! every family to a row of the table.

use std::sync::LazyLock;

use super::VEnc;
use crate::isa::alu::{AluOp, Format, Implicit, ALU_OPS};

macro_rules! ops {
    ($(#[$m:meta])* $name:ident { $($v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($v),* }
        impl $name {
            /// Every opcode of the family, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$v),*];
            pub fn name(self) -> &'static str { match self { $($name::$v => $s),* } }
        }
    };
    // The same, and a macro `$each` that hands its caller every opcode of
    // the family as a list of variant names, `$each!(m!(args))` expanding
    // to `m!([V0, V1, ...] args)`: the pre-resolved handler table of
    // `emu::wave::handlers` is built from it, so an opcode added here gets
    // its handler without being listed twice. (`$d` is a `$` token: a
    // macro_rules written by a macro needs one for its own variables.)
    ($d:tt $each:ident; $(#[$m:meta])* $name:ident { $($v:ident = $s:literal),* $(,)? }) => {
        ops!($(#[$m])* $name { $($v = $s),* });
        macro_rules! $each {
            ($d cb:ident ! ( $d ($d args:tt)* )) => { $d cb!([$($v),*] $d ($d args)*) };
        }
        pub(crate) use $each;
    };
}
pub(super) use ops;

/// The opcode → op map of one encoding `format` for one family of decoded
/// ops, built once from [`ALU_OPS`], the one table of gfx11 ALU mnemonics,
/// formats, opcodes and operand kinds (shared with the encoders of
/// `isa::alu`): each row of `format` with an opcode in `opcodes` whose
/// mnemonic, less LLVM's `_e32`/`_e64`, names an op of the family. Indexed
/// by opcode; `None` where the family has no op.
pub(super) fn opcode_map<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    format: Format,
    opcodes: std::ops::Range<u16>,
) -> Vec<Option<T>> {
    let mut map = vec![None; opcodes.end as usize];
    for row in ALU_OPS
        .iter()
        .filter(|r| r.format == format && opcodes.contains(&r.opcode))
    {
        let bare = row
            .name
            .strip_suffix("_e32")
            .or_else(|| row.name.strip_suffix("_e64"));
        let mnemonic = bare.unwrap_or(row.name);
        if let Some(&op) = all.iter().find(|&&o| name(o) == mnemonic) {
            map[row.opcode as usize] = Some(op);
        }
    }
    map
}

/// The table row of `op` in `format` (its operand kinds, its second
/// destination), if the table has one.
pub(super) fn row_of(mnemonic: &str, format: Format) -> Option<&'static AluOp> {
    ALU_OPS.iter().find(|r| {
        r.format == format
            && (r.name == mnemonic
                || r.name
                    .strip_prefix(mnemonic)
                    .is_some_and(|t| t == "_e32" || t == "_e64"))
    })
}

/// The implicit operands (isa::alu::AluOp::implicit) of every op of a
/// family, indexed like `all`, each from the op's first row among
/// `formats` (an op's e32 and e64 forms are different rows: an e32's VCC
/// is implicit, an e64's mask an operand). Built once per family; an op
/// without a row is a broken table, which the decoder's tests catch
/// (`every_op_has_an_implicit_row`) before anything runs.
pub(super) fn implicit_map<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    formats: &[Format],
) -> Vec<Implicit> {
    all.iter()
        .map(|&o| {
            formats
                .iter()
                .find_map(|&f| row_of(name(o), f))
                .map(|r| r.implicit)
                .unwrap_or_else(|| panic!("{} has no row in isa::alu::ALU_OPS", name(o)))
        })
        .collect()
}

/// A scalar family's `from_op` (its opcode map in `format`, opcodes in
/// `opcodes`) and `implicit` (SCC, VCC, EXEC and M0 as its row has them),
/// both built once from the table ([`opcode_map`], [`implicit_map`]).
macro_rules! table_rows {
    ($t:ident, $format:expr, $opcodes:expr) => {
        impl $t {
            pub(super) fn from_op(op: u32) -> Option<$t> {
                use std::sync::LazyLock;
                use $crate::emu::decode::table::opcode_map;
                static MAP: LazyLock<Vec<Option<$t>>> =
                    LazyLock::new(|| opcode_map($t::ALL, $t::name, $format, $opcodes));
                MAP.get(op as usize).copied().flatten()
            }
            /// SCC, VCC, EXEC and M0 as the table's row has them.
            pub fn implicit(self) -> $crate::isa::alu::Implicit {
                use std::sync::LazyLock;
                use $crate::emu::decode::table::implicit_map;
                use $crate::isa::alu::Implicit;
                static MAP: LazyLock<Vec<Implicit>> =
                    LazyLock::new(|| implicit_map($t::ALL, $t::name, &[$format]));
                MAP[self as usize]
            }
        }
    };
}
pub(super) use table_rows;

/// The implicit operands of the VOPC row with opcode `op` (0..0x100, v_cmpx
/// at 0x80 and up): its e32 form (format VOPC) or its e64 one (VOP3, same
/// opcode); None where the table has no such compare.
pub(super) fn vopc_implicit(op: u32, enc: VEnc) -> Option<Implicit> {
    static MAP: LazyLock<[Vec<Option<Implicit>>; 2]> = LazyLock::new(|| {
        let of = |format: Format| {
            let mut m = vec![None; 0x100];
            for r in ALU_OPS
                .iter()
                .filter(|r| r.format == format && r.opcode < 0x100)
            {
                m[r.opcode as usize] = Some(r.implicit);
            }
            m
        };
        [of(Format::Vopc), of(Format::Vop3)]
    });
    let e = usize::from(enc == VEnc::E64);
    MAP[e].get(op as usize).copied().flatten()
}

#[cfg(test)]
mod table_tests {
    use super::super::scalar::{SMovrel, Sop1, Sop2, Sopc, Sopk};
    use super::super::true16::Op16;
    use super::super::vector::{Cmp, VOp};
    use super::super::vop3p::P3Op;
    use super::super::VEnc;

    /// Each op of each family the decoder derives from `isa::alu`'s table
    /// has a row there: a family op with no row would never decode.
    #[test]
    fn every_op_has_an_opcode_in_the_table() {
        fn all_found<T: Copy + PartialEq + std::fmt::Debug>(
            all: &[T],
            maps: &[&dyn Fn(u32) -> Option<T>],
        ) {
            for &o in all {
                let found = (0..0x400).any(|op| maps.iter().any(|m| m(op) == Some(o)));
                assert!(found, "{o:?} has no opcode in isa::alu::ALU_OPS");
            }
        }
        all_found(Sop2::ALL, &[&Sop2::from_op]);
        all_found(Sop1::ALL, &[&Sop1::from_op]);
        all_found(SMovrel::ALL, &[&SMovrel::from_op]);
        all_found(Sopc::ALL, &[&Sopc::from_op]);
        all_found(Sopk::ALL, &[&Sopk::from_op]);
        all_found(
            VOp::ALL,
            &[&VOp::from_vop1, &VOp::from_vop2, &VOp::from_vop3],
        );
        all_found(P3Op::ALL, &[&P3Op::from_op]);
        for &o in P3Op::ALL {
            // Panics (naming it) if a VOP3P op has no row.
            let _ = o.arity();
        }
        for &o in VOp::ALL {
            // Panics (naming it) if a VALU op has no row.
            let _ = o.arity();
        }
    }

    /// Every op the decoder produces has a row to take its implicit
    /// operands from (the hazard checker's EXEC, VCC and M0), in each
    /// encoding it decodes from.
    #[test]
    fn every_op_has_an_implicit_row() {
        // Each of these panics, naming the op, if one has no row.
        for &o in Sop2::ALL {
            let _ = o.implicit();
        }
        for &o in Sop1::ALL {
            let _ = o.implicit();
        }
        for &o in SMovrel::ALL {
            let _ = (o.implicit(), o.dwords(), o.sgpr_only_source());
        }
        for &o in Sopc::ALL {
            let _ = o.implicit();
        }
        for &o in Sopk::ALL {
            let _ = o.implicit();
        }
        for &o in P3Op::ALL {
            let _ = o.implicit();
        }
        for &o in VOp::ALL {
            let _ = (o.implicit(VEnc::E32), o.implicit(VEnc::E64));
        }
        for op in 0..0x100 {
            if let Some(c) = Cmp::from_op(op & 0x7f) {
                let cmpx = op >= 0x80;
                assert_eq!(c.opcode(cmpx), op, "{c:?}");
                for enc in [VEnc::E32, VEnc::E64] {
                    assert!(c.implicit(cmpx, enc).is_some(), "{} {enc:?}", c.name(cmpx));
                }
            }
        }
        let e32 = (0..0x80)
            .filter_map(Op16::from_vop1)
            .chain((0..0x100).filter_map(Op16::from_vopc));
        for o in e32 {
            assert!(o.implicit(VEnc::E32).is_some(), "{} e32", o.name());
        }
        for o in (0..0x400).filter_map(Op16::from_vop3) {
            assert!(o.implicit(VEnc::E64).is_some(), "{} e64", o.name());
        }
    }
}
