//! gfx11 (RDNA3) machine code → a compact instruction form, decoded once.
//!
//! Encodings and opcode numbers are those of LLVM's gfx11 assembler
//! (llvm/lib/Target/AMDGPU/SOPInstructions.td, VOP1/VOP2/VOP3/VOPC/VOPD
//! Instructions.td, DSInstructions.td, FLATInstructions.td, SMInstructions.td),
//! each checked here with `llvm-mc-22 -mcpu=gfx1100 -show-encoding` on the
//! corpus in tests/emu_data/corpus_gfx11.s (and `llvm-objdump-22 -d` in
//! tests/it/emu_decode_llvm.rs). Anything not in these tables decodes to
//! [`Inst::Unsupported`], which is an error when executed and is counted by
//! the coverage test — never skipped.
//!
//! The vector ALU is grouped by encoding, one op family and one
//! [`Inst`] variant each: VOP1/VOP2/VOP3/VOP3SD are [`VOp`]
//! ([`Inst::Valu`]: an e32 and its e64 promotion are one op), VOPC is
//! [`Cmp`] ([`Inst::Vopc`]), VOP3P is [`P3Op`] ([`Inst::Vop3p`]), VOPD is
//! [`VopdOp`] ([`Inst::Vopd`]). One exception, by operand model: the gfx11
//! true16 16-bit integer ops of VOP1/VOP2/VOP3/VOPC are [`Op16`]
//! ([`Inst::Valu16`]), because their operands are VGPR halves, chosen by
//! bit 7 of an e32's VGPR field or a VOP3's op_sel (LLVM's real-true16
//! `VGPR_16` operands), which no 32-bit op has; in `VOp` every op would
//! carry half selects only they read. Which module runs an op is a
//! property of the op, not of its family: `VOp`'s lane maps and the rest
//! run in `wave::valu`, its lane permutes, M0-relative moves and quad
//! SADs in `vext` ([`VOp::in_vext`]); `P3Op`'s packed and dot ops in
//! `vop3p`, its WMMAs in `wmma`.

use std::fmt;
use std::sync::LazyLock;

use crate::isa::alu::{AluOp, Format, Implicit, Kind, ALU_OPS};

/// A scalar or vector source operand, as the 8/9-bit source field encodes it
/// (RDNA3 ISA guide §"Scalar/vector operand encoding"; LLVM SIDefines.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// SGPR file index: 0–105 SGPRs, 106/107 vcc_lo/hi, 124 null (reads 0),
    /// 125 m0, 126/127 exec_lo/hi.
    S(u8),
    /// VGPR number (source field 256–511).
    V(u8),
    /// Inline constant, raw code 128–208 (integers) or 240–248 (floats).
    Const(u8),
    /// 32-bit literal (code 255) that follows the instruction.
    Lit(u32),
    /// src_vccz (251), src_execz (252), src_scc (253).
    Vccz,
    Execz,
    Scc,
}

impl Src {
    /// The 9-bit source field this operand was decoded from (VGPRs from
    /// 256; a literal's is 255), the inverse of the decoder's mapping. An
    /// instruction whose pseudocode reads a "raw value from instruction"
    /// reads this.
    pub fn code(self) -> u16 {
        match self {
            Src::S(r) => r as u16,
            Src::V(r) => 256 + r as u16,
            Src::Const(c) => c as u16,
            Src::Lit(_) => 255,
            Src::Vccz => 251,
            Src::Execz => 252,
            Src::Scc => 253,
        }
    }
}

pub const VCC_LO: u8 = 106;
pub const NULL: u8 = 124;
pub const M0: u8 = 125;
pub const EXEC_LO: u8 = 126;

/// The 32-bit value of an inline constant (code 128–208, 240–248).
pub fn inline_const32(code: u8) -> u32 {
    match code {
        128..=192 => (code - 128) as u32,
        193..=208 => (-((code - 192) as i32)) as u32,
        // f32 bit patterns of 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2π).
        240 => 0x3f00_0000,
        241 => 0xbf00_0000,
        242 => 0x3f80_0000,
        243 => 0xbf80_0000,
        244 => 0x4000_0000,
        245 => 0xc000_0000,
        246 => 0x4080_0000,
        247 => 0xc080_0000,
        248 => 0x3e22_f983,
        _ => 0,
    }
}

/// The 64-bit value of an inline constant for a 64-bit operand: integers
/// sign-extend, floats are the f64 bit patterns (RDNA3 ISA guide
/// §"Inline constants").
pub fn inline_const64(code: u8) -> u64 {
    match code {
        128..=208 => inline_const32(code) as i32 as i64 as u64,
        240 => 0x3fe0_0000_0000_0000,
        241 => 0xbfe0_0000_0000_0000,
        242 => 0x3ff0_0000_0000_0000,
        243 => 0xbff0_0000_0000_0000,
        244 => 0x4000_0000_0000_0000,
        245 => 0xc000_0000_0000_0000,
        246 => 0x4010_0000_0000_0000,
        247 => 0xc010_0000_0000_0000,
        248 => 0x3fc4_5f30_6dc9_c882,
        _ => 0,
    }
}

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

/// The opcode → op map of one encoding `format` for one family of decoded
/// ops, built once from [`ALU_OPS`], the one table of gfx11 ALU mnemonics,
/// formats, opcodes and operand kinds (shared with the encoders of
/// `isa::alu`): each row of `format` with an opcode in `opcodes` whose
/// mnemonic, less LLVM's `_e32`/`_e64`, names an op of the family. Indexed
/// by opcode; `None` where the family has no op.
fn opcode_map<T: Copy>(
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
fn row_of(mnemonic: &str, format: Format) -> Option<&'static AluOp> {
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
fn implicit_map<T: Copy>(
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
            fn from_op(op: u32) -> Option<$t> {
                static MAP: LazyLock<Vec<Option<$t>>> =
                    LazyLock::new(|| opcode_map($t::ALL, $t::name, $format, $opcodes));
                MAP.get(op as usize).copied().flatten()
            }
            /// SCC, VCC, EXEC and M0 as the table's row has them.
            pub fn implicit(self) -> Implicit {
                static MAP: LazyLock<Vec<Implicit>> =
                    LazyLock::new(|| implicit_map($t::ALL, $t::name, &[$format]));
                MAP[self as usize]
            }
        }
    };
}

/// The implicit operands of the VOPC row with opcode `op` (0..0x100, v_cmpx
/// at 0x80 and up): its e32 form (format VOPC) or its e64 one (VOP3, same
/// opcode); None where the table has no such compare.
fn vopc_implicit(op: u32, enc: VEnc) -> Option<Implicit> {
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

ops!(
    $ sop2_each;
    /// SOP2 (bits 31:30 = 10, op 29:23).
    Sop2 {
    AddU32 = "s_add_u32", SubU32 = "s_sub_u32", AddI32 = "s_add_i32", SubI32 = "s_sub_i32",
    AddcU32 = "s_addc_u32", SubbU32 = "s_subb_u32", AbsdiffI32 = "s_absdiff_i32",
    LshlB32 = "s_lshl_b32", LshlB64 = "s_lshl_b64", LshrB32 = "s_lshr_b32", LshrB64 = "s_lshr_b64",
    AshrI32 = "s_ashr_i32", AshrI64 = "s_ashr_i64",
    Lshl1AddU32 = "s_lshl1_add_u32", Lshl2AddU32 = "s_lshl2_add_u32",
    Lshl3AddU32 = "s_lshl3_add_u32", Lshl4AddU32 = "s_lshl4_add_u32",
    MinI32 = "s_min_i32", MinU32 = "s_min_u32", MaxI32 = "s_max_i32", MaxU32 = "s_max_u32",
    AndB32 = "s_and_b32", AndB64 = "s_and_b64", OrB32 = "s_or_b32", OrB64 = "s_or_b64",
    XorB32 = "s_xor_b32", XorB64 = "s_xor_b64", NandB32 = "s_nand_b32", NandB64 = "s_nand_b64",
    NorB32 = "s_nor_b32", NorB64 = "s_nor_b64", XnorB32 = "s_xnor_b32", XnorB64 = "s_xnor_b64",
    AndNot1B32 = "s_and_not1_b32", AndNot1B64 = "s_and_not1_b64",
    OrNot1B32 = "s_or_not1_b32", OrNot1B64 = "s_or_not1_b64",
    BfeU32 = "s_bfe_u32", BfeI32 = "s_bfe_i32", BfeU64 = "s_bfe_u64", BfeI64 = "s_bfe_i64",
    BfmB32 = "s_bfm_b32", BfmB64 = "s_bfm_b64", MulI32 = "s_mul_i32",
    MulHiU32 = "s_mul_hi_u32", MulHiI32 = "s_mul_hi_i32",
    CselectB32 = "s_cselect_b32", CselectB64 = "s_cselect_b64",
    PackLlB32B16 = "s_pack_ll_b32_b16", PackLhB32B16 = "s_pack_lh_b32_b16",
    PackHhB32B16 = "s_pack_hh_b32_b16", PackHlB32B16 = "s_pack_hl_b32_b16",
});

table_rows!(Sop2, Format::Sop2, 0..0x80);

impl Sop2 {
    /// Whether src0 is a 64-bit operand.
    pub fn src0_64(self) -> bool {
        use Sop2::*;
        matches!(
            self,
            LshlB64
                | LshrB64
                | AshrI64
                | AndB64
                | OrB64
                | XorB64
                | NandB64
                | NorB64
                | XnorB64
                | AndNot1B64
                | OrNot1B64
                | BfeU64
                | BfeI64
                | CselectB64
        )
    }
    /// Whether src1 is a 64-bit operand.
    pub fn src1_64(self) -> bool {
        use Sop2::*;
        matches!(
            self,
            AndB64
                | OrB64
                | XorB64
                | NandB64
                | NorB64
                | XnorB64
                | AndNot1B64
                | OrNot1B64
                | CselectB64
        )
    }
}

ops!(
    $ sopk_each;
    /// SOPK (bits 31:28 = 1011, op 27:23).
    Sopk {
    MovkI32 = "s_movk_i32", Version = "s_version", CmovkI32 = "s_cmovk_i32",
    CmpkEqI32 = "s_cmpk_eq_i32", CmpkLgI32 = "s_cmpk_lg_i32", CmpkGtI32 = "s_cmpk_gt_i32",
    CmpkGeI32 = "s_cmpk_ge_i32", CmpkLtI32 = "s_cmpk_lt_i32", CmpkLeI32 = "s_cmpk_le_i32",
    CmpkEqU32 = "s_cmpk_eq_u32", CmpkLgU32 = "s_cmpk_lg_u32", CmpkGtU32 = "s_cmpk_gt_u32",
    CmpkGeU32 = "s_cmpk_ge_u32", CmpkLtU32 = "s_cmpk_lt_u32", CmpkLeU32 = "s_cmpk_le_u32",
    AddkI32 = "s_addk_i32", MulkI32 = "s_mulk_i32",
    WaitcntVscnt = "s_waitcnt_vscnt", WaitcntVmcnt = "s_waitcnt_vmcnt",
    WaitcntExpcnt = "s_waitcnt_expcnt", WaitcntLgkmcnt = "s_waitcnt_lgkmcnt",
});

table_rows!(Sopk, Format::Sopk, 0..0x20);

ops!(
    /// The SOPK hardware-register moves ([`Inst::Hwreg`]).
    HwregOp {
    Get = "s_getreg_b32", Set = "s_setreg_b32", SetImm32 = "s_setreg_imm32_b32",
});

ops!(
    /// The SOP1 SGPR-relative moves ([`Inst::SMovrel`]); the RDNA3 ISA
    /// guide's pseudocode at each in `Wave::smovrel`.
    SMovrel {
    MovrelsB32 = "s_movrels_b32", MovrelsB64 = "s_movrels_b64",
    MovreldB32 = "s_movreld_b32", MovreldB64 = "s_movreld_b64",
    MovrelsdTwoB32 = "s_movrelsd_2_b32",
});

/// The SGPRs an M0-relative move (s_movrels/s_movreld/s_movrelsd_2) may
/// reach: s0..s105, the SGPRs proper (LLVM: gfx11 has 106 addressable
/// SGPRs; 106 up are VCC, trap temporaries, M0, EXEC). The RDNA3 guide's
/// pseudocode indexes `SGPR[addr]` without a bound; an index past the SGPRs
/// stops the wave with an error naming it ([`POLICY_MOVREL_PAST_SGPRS_FAULTS`])
/// rather than guess what the hardware reads there.
pub const MOVREL_SGPRS: u64 = 106;

/// See [`MOVREL_SGPRS`].
pub const POLICY_MOVREL_PAST_SGPRS_FAULTS: &str = "movrel-past-sgprs-faults";

table_rows!(SMovrel, Format::Sop1, 0..0x100);

impl SMovrel {
    /// Dwords moved: 2 where the row's destination is an SGPR pair
    /// ([`Kind::Sgpr64`]), else 1.
    pub fn dwords(self) -> u8 {
        static MAP: LazyLock<Vec<u8>> = LazyLock::new(|| {
            SMovrel::ALL
                .iter()
                .map(|o| match row_of(o.name(), Format::Sop1).map(|r| r.dst) {
                    Some(Kind::Sgpr64) => 2,
                    Some(_) => 1,
                    None => panic!("{} has no row in isa::alu::ALU_OPS", o.name()),
                })
                .collect()
        });
        MAP[self as usize]
    }
    /// Whether the row's source is of an SGPR-only kind ([`Kind::Sgpr32`],
    /// [`Kind::Sgpr64`]: s_movrels'), not any scalar source.
    pub fn sgpr_only_source(self) -> bool {
        static MAP: LazyLock<Vec<bool>> = LazyLock::new(|| {
            SMovrel::ALL
                .iter()
                .map(|o| match row_of(o.name(), Format::Sop1).map(|r| r.srcs) {
                    Some(srcs) => matches!(srcs.first(), Some(Kind::Sgpr32 | Kind::Sgpr64)),
                    None => panic!("{} has no row in isa::alu::ALU_OPS", o.name()),
                })
                .collect()
        });
        MAP[self as usize]
    }
    /// The SGPRs `(from, to)` the move reads and writes for this M0: the
    /// encoded numbers plus the index (RDNA4 guide §16.3, whose SOP1
    /// opcodes 64-68 are gfx11's: S_MOVRELS_B32 "addr = SRC0.u32 // Raw
    /// value from instruction; addr += M0.u32[31 : 0]"; S_MOVRELD the same
    /// on DST; S_MOVRELSD_2_B32 "addrs += M0.u32[9 : 0]; addrd +=
    /// M0.u32[25 : 16]"). `from` is `None` for s_movreld, whose source is
    /// a value ("SGPR[addr].b32 = S0.b32"), read as any scalar operand.
    /// S_MOVRELSD_2_B32's source index is the raw field, so a constant or
    /// literal there (llvm-mc takes one: LLVM `SOP1_32`, `SSrc_b32`)
    /// indexes from its code, 128 up: past the SGPRs. Unbounded: the
    /// caller checks the range. One function for the interpreter and the
    /// hazard checker, so both see the same registers.
    pub fn indices(self, sdst: u8, s0: Src, m0: u32) -> (Option<u64>, u64) {
        let m0 = m0 as u64;
        let (d, s) = (sdst as u64, s0.code() as u64);
        match self {
            SMovrel::MovrelsB32 | SMovrel::MovrelsB64 => (Some(s + m0), d),
            SMovrel::MovreldB32 | SMovrel::MovreldB64 => (None, d + m0),
            SMovrel::MovrelsdTwoB32 => (Some(s + (m0 & 0x3ff)), d + (m0 >> 16 & 0x3ff)),
        }
    }
}

ops!(
    $ sop1_each;
    /// SOP1 (bits 31:23 = 0x17d, op 15:8).
    Sop1 {
    MovB32 = "s_mov_b32", MovB64 = "s_mov_b64", CmovB32 = "s_cmov_b32", CmovB64 = "s_cmov_b64",
    BrevB32 = "s_brev_b32", BrevB64 = "s_brev_b64", CtzI32B32 = "s_ctz_i32_b32",
    CtzI32B64 = "s_ctz_i32_b64", ClzI32U32 = "s_clz_i32_u32", ClzI32U64 = "s_clz_i32_u64",
    ClsI32 = "s_cls_i32", ClsI32I64 = "s_cls_i32_i64", SextI32I8 = "s_sext_i32_i8",
    SextI32I16 = "s_sext_i32_i16", Bitset0B32 = "s_bitset0_b32", Bitset0B64 = "s_bitset0_b64",
    Bitset1B32 = "s_bitset1_b32", Bitset1B64 = "s_bitset1_b64",
    BitreplicateB64B32 = "s_bitreplicate_b64_b32", AbsI32 = "s_abs_i32",
    QuadmaskB32 = "s_quadmask_b32", QuadmaskB64 = "s_quadmask_b64",
    WqmB32 = "s_wqm_b32", WqmB64 = "s_wqm_b64",
    Bcnt0I32B32 = "s_bcnt0_i32_b32", Bcnt0I32B64 = "s_bcnt0_i32_b64",
    Bcnt1I32B32 = "s_bcnt1_i32_b32", Bcnt1I32B64 = "s_bcnt1_i32_b64",
    NotB32 = "s_not_b32", NotB64 = "s_not_b64",
    AndSaveexecB32 = "s_and_saveexec_b32", AndSaveexecB64 = "s_and_saveexec_b64",
    OrSaveexecB32 = "s_or_saveexec_b32", OrSaveexecB64 = "s_or_saveexec_b64",
    XorSaveexecB32 = "s_xor_saveexec_b32", XorSaveexecB64 = "s_xor_saveexec_b64",
    NandSaveexecB32 = "s_nand_saveexec_b32", NandSaveexecB64 = "s_nand_saveexec_b64",
    NorSaveexecB32 = "s_nor_saveexec_b32", NorSaveexecB64 = "s_nor_saveexec_b64",
    XnorSaveexecB32 = "s_xnor_saveexec_b32", XnorSaveexecB64 = "s_xnor_saveexec_b64",
    AndNot0SaveexecB32 = "s_and_not0_saveexec_b32", AndNot0SaveexecB64 = "s_and_not0_saveexec_b64",
    OrNot0SaveexecB32 = "s_or_not0_saveexec_b32", OrNot0SaveexecB64 = "s_or_not0_saveexec_b64",
    AndNot1SaveexecB32 = "s_and_not1_saveexec_b32", AndNot1SaveexecB64 = "s_and_not1_saveexec_b64",
    OrNot1SaveexecB32 = "s_or_not1_saveexec_b32", OrNot1SaveexecB64 = "s_or_not1_saveexec_b64",
    AndNot0WrexecB32 = "s_and_not0_wrexec_b32", AndNot0WrexecB64 = "s_and_not0_wrexec_b64",
    AndNot1WrexecB32 = "s_and_not1_wrexec_b32", AndNot1WrexecB64 = "s_and_not1_wrexec_b64",
    GetpcB64 = "s_getpc_b64", SetpcB64 = "s_setpc_b64", SwappcB64 = "s_swappc_b64",
});

table_rows!(Sop1, Format::Sop1, 0..0x100);

impl Sop1 {
    /// Whether ssrc0 is a 64-bit operand.
    pub fn src0_64(self) -> bool {
        use Sop1::*;
        matches!(
            self,
            MovB64
                | CmovB64
                | BrevB64
                | CtzI32B64
                | ClzI32U64
                | ClsI32I64
                | Bcnt0I32B64
                | Bcnt1I32B64
                | QuadmaskB64
                | WqmB64
                | NotB64
                | AndSaveexecB64
                | OrSaveexecB64
                | XorSaveexecB64
                | NandSaveexecB64
                | NorSaveexecB64
                | XnorSaveexecB64
                | AndNot0SaveexecB64
                | OrNot0SaveexecB64
                | AndNot1SaveexecB64
                | OrNot1SaveexecB64
                | AndNot0WrexecB64
                | AndNot1WrexecB64
                | SetpcB64
                | SwappcB64
        )
    }
}

ops!(
    $ sopc_each;
    /// SOPC (bits 31:23 = 0x17e, op 22:16).
    Sopc {
    EqI32 = "s_cmp_eq_i32", LgI32 = "s_cmp_lg_i32", GtI32 = "s_cmp_gt_i32", GeI32 = "s_cmp_ge_i32",
    LtI32 = "s_cmp_lt_i32", LeI32 = "s_cmp_le_i32", EqU32 = "s_cmp_eq_u32", LgU32 = "s_cmp_lg_u32",
    GtU32 = "s_cmp_gt_u32", GeU32 = "s_cmp_ge_u32", LtU32 = "s_cmp_lt_u32", LeU32 = "s_cmp_le_u32",
    Bitcmp0B32 = "s_bitcmp0_b32", Bitcmp1B32 = "s_bitcmp1_b32", Bitcmp0B64 = "s_bitcmp0_b64",
    Bitcmp1B64 = "s_bitcmp1_b64", EqU64 = "s_cmp_eq_u64", LgU64 = "s_cmp_lg_u64",
});

table_rows!(Sopc, Format::Sopc, 0..0x80);

/// Condition of an SOPP branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Always,
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
    /// s_cbranch_cdbgsys, _cdbguser, _cdbgsys_or_user, _cdbgsys_and_user:
    /// taken on the conditional-debug bits of STATUS, which only a debugger
    /// sets. [`POLICY_NO_DEBUGGER`]: never taken here.
    CdbgSys,
    CdbgUser,
    CdbgSysOrUser,
    CdbgSysAndUser,
}

/// The software device runs without a debugger attached: STATUS's
/// COND_DBG_SYS and COND_DBG_USER bits are 0 (no one sets them), so the
/// s_cbranch_cdbg* branches fall through, and MODE.DEBUG_EN is whatever the
/// kernel sets with s_setreg (nothing single-steps).
pub const POLICY_NO_DEBUGGER: &str = "no-debugger";

impl Cond {
    pub fn name(self) -> &'static str {
        match self {
            Cond::Always => "s_branch",
            Cond::Scc0 => "s_cbranch_scc0",
            Cond::Scc1 => "s_cbranch_scc1",
            Cond::Vccz => "s_cbranch_vccz",
            Cond::Vccnz => "s_cbranch_vccnz",
            Cond::Execz => "s_cbranch_execz",
            Cond::Execnz => "s_cbranch_execnz",
            Cond::CdbgSys => "s_cbranch_cdbgsys",
            Cond::CdbgUser => "s_cbranch_cdbguser",
            Cond::CdbgSysOrUser => "s_cbranch_cdbgsys_or_user",
            Cond::CdbgSysAndUser => "s_cbranch_cdbgsys_and_user",
        }
    }
}

ops!(
    $ vop_each;
    /// Vector ALU operations of VOP1, VOP2, VOP3 and VOP3SD (VOPC, VOP3P,
    /// VOPD and the true16 ops are their own families: the module doc).
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
    fn from_vop1(op: u32) -> Option<VOp> {
        static MAP: LazyLock<Vec<Option<VOp>>> =
            LazyLock::new(|| opcode_map(VOp::ALL, VOp::name, Format::Vop1, 0..0x80));
        MAP.get(op as usize).copied().flatten()
    }
    fn from_vop2(op: u32) -> Option<VOp> {
        static MAP: LazyLock<Vec<Option<VOp>>> =
            LazyLock::new(|| opcode_map(VOp::ALL, VOp::name, Format::Vop2, 0..0x40));
        MAP.get(op as usize).copied().flatten()
    }
    /// VOP3 opcodes 0x200 and up (VOP3-only instructions).
    fn from_vop3(op: u32) -> Option<VOp> {
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
    fn vop3_only(self) -> bool {
        !(0..0x80).any(|op| VOp::from_vop1(op) == Some(self) || VOp::from_vop2(op) == Some(self))
    }
    /// Instructions that exist only in VOP1 form (printed without `_e32`):
    /// llvm-mc-22 refuses their `_e64` ("e64 variant of this instruction
    /// is not supported"; VOP1Instructions.td's `VOP1Only`).
    fn vop1_only(self) -> bool {
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
    fn from_op(op: u32) -> Option<Cmp> {
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

/// Which encoding a VALU instruction came in (for its printed name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VEnc {
    E32,
    E64,
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    Sop2 {
        op: Sop2,
        sdst: u8,
        s0: Src,
        s1: Src,
    },
    Sopk {
        op: Sopk,
        sdst: u8,
        simm16: u16,
    },
    Sop1 {
        op: Sop1,
        sdst: u8,
        s0: Src,
    },
    Sopc {
        op: Sopc,
        s0: Src,
        s1: Src,
    },
    /// An instruction with no architectural effect here: s_nop, s_clause,
    /// s_delay_alu, s_waitcnt* (no effect of its own: the run loops land the
    /// results a wait covers, `emu::late`; see
    /// `emu::wave`'s header; `emu::hazard` checks the waits a GPU needs),
    /// s_set_inst_prefetch_distance, cache invalidations, hints.
    Nop {
        name: &'static str,
        simm16: u16,
    },
    Branch {
        cond: Cond,
        simm16: i16,
        target: Option<u32>,
    },
    Barrier,
    Endpgm,
    /// s_endpgm_saved: ends the wave like s_endpgm.
    EndpgmSaved,
    Sendmsg {
        simm16: u16,
    },
    /// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 (SOPK 17/18/19):
    /// `sreg` is the destination of a get and the source of a set; `imm32`
    /// the literal of s_setreg_imm32_b32. Semantics in [`super::hwreg`].
    Hwreg {
        op: HwregOp,
        sreg: u8,
        simm16: u16,
        imm32: u32,
    },
    /// s_call_b64 (SOPK 20): `D0.i64 = PC + 4; PC = PC + signext(SIMM16 *
    /// 4) + 4` (RDNA3 ISA guide, S_CALL_B64), `target` resolved like a
    /// branch's.
    Call {
        sdst: u8,
        simm16: i16,
        target: Option<u32>,
    },
    /// SGPR-relative moves indexed by M0 (SOP1 64..68): `sdst` is the
    /// SGPR number the index is added to, as is `s0`'s field for
    /// s_movrels and s_movrelsd_2 ([`SMovrel::indices`]); s_movreld's `s0`
    /// is the value moved.
    SMovrel {
        op: SMovrel,
        sdst: u8,
        s0: Src,
    },
    /// Executing it is a fault (s_trap, s_code_end padding, s_sethalt).
    Trap {
        name: &'static str,
        simm16: u16,
    },
    Smem {
        dwords: u8,
        sdata: u8,
        sbase: u8,
        offset: i32,
        soffset: Option<u8>,
    },
    Valu {
        op: VOp,
        enc: VEnc,
        vdst: u8,
        sdst: u8,
        src: [Src; 3],
        /// The VOP3 op_sel field, which only v_permlane*16 may set (bit 0
        /// fetch-inactive, bit 1 bound-ctrl); 0 otherwise.
        op_sel: u8,
    },
    Vopc {
        cmp: Cmp,
        cmpx: bool,
        enc: VEnc,
        sdst: u8,
        src0: Src,
        src1: Src,
    },
    Vopd {
        x: VopdHalf,
        y: VopdHalf,
    },
    Ds(Ds),
    Flat(Flat),
    /// A 16-bit integer VALU instruction (true16 halves; [`super::valu16`]).
    Valu16(Box<V16>),
    /// A VOP3P instruction ([`P3Inst`], executed by `vop3p.rs`).
    Vop3p(Box<P3Inst>),
    /// Not supported by the software device: an error if executed.
    Unsupported(Box<Unsupported>),
}

/// Why an instruction word is not supported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// Encoding family (SOP2, VOP3, DS, ...).
    pub encoding: &'static str,
    pub opcode: u32,
    /// Mnemonic when known (e.g. a DS or FLAT opcode this device does not model).
    pub mnemonic: Option<String>,
    /// What exactly is missing.
    pub reason: String,
    pub words: Vec<u32>,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = self.words.iter().map(|w| format!("{w:08x}")).collect();
        write!(
            f,
            "{} ({} opcode {}, words {}): {}",
            self.mnemonic.as_deref().unwrap_or("unknown instruction"),
            self.encoding,
            self.opcode,
            words.join(" "),
            self.reason
        )
    }
}

impl Inst {
    /// The implicit operands (SCC, VCC, EXEC, M0) of the table row
    /// (`isa::alu::ALU_OPS`; for a VOPD, both halves' `VOPD_OPS` rows) this
    /// instruction was decoded from; None for an instruction the table has
    /// no row for (SOPP, SMEM, DS, FLAT, the hardware-register moves),
    /// whose implicit operands the caller knows from the instruction's
    /// kind.
    pub fn implicit(&self) -> Option<Implicit> {
        match self {
            Inst::Sop2 { op, .. } => Some(op.implicit()),
            Inst::Sopk { op, .. } => Some(op.implicit()),
            Inst::Sop1 { op, .. } => Some(op.implicit()),
            Inst::Sopc { op, .. } => Some(op.implicit()),
            Inst::SMovrel { op, .. } => Some(op.implicit()),
            Inst::Valu { op, enc, .. } => Some(op.implicit(*enc)),
            Inst::Vopc { cmp, cmpx, enc, .. } => cmp.implicit(*cmpx, *enc),
            Inst::Valu16(v) => v.op.implicit(v.enc),
            Inst::Vop3p(p) => Some(p.op.implicit()),
            Inst::Vopd { x, y } => Some(x.op.implicit().with(y.op.implicit())),
            _ => None,
        }
    }

    /// The mnemonic as llvm-objdump prints it (with `_e32`/`_e64` where it
    /// prints one); for VOPD both halves joined by ` :: `.
    pub fn mnemonic(&self) -> String {
        match self {
            Inst::Sop2 { op, .. } => op.name().into(),
            Inst::Sopk { op, .. } => op.name().into(),
            Inst::Sop1 { op, .. } => op.name().into(),
            Inst::Sopc { op, .. } => op.name().into(),
            Inst::Nop { name, .. } | Inst::Trap { name, .. } => (*name).into(),
            Inst::Branch { cond, .. } => cond.name().into(),
            Inst::Barrier => "s_barrier".into(),
            Inst::Endpgm => "s_endpgm".into(),
            Inst::EndpgmSaved => "s_endpgm_saved".into(),
            Inst::Sendmsg { .. } => "s_sendmsg".into(),
            Inst::Hwreg { op, .. } => op.name().into(),
            Inst::Call { .. } => "s_call_b64".into(),
            Inst::SMovrel { op, .. } => op.name().into(),
            Inst::Smem { dwords, .. } => format!("s_load_b{}", *dwords as u32 * 32),
            Inst::Valu { op, enc, .. } => {
                // llvm-objdump: `_e32`/`_e64` on forms that have both
                // encodings, none on VOP3-only or VOP1-only ones, none on
                // v_nop and e32 v_readfirstlane_b32.
                match enc {
                    _ if *op == VOp::Nop => op.name().into(),
                    VEnc::E32 if *op == VOp::ReadfirstlaneB32 || op.vop1_only() => op.name().into(),
                    VEnc::E32 => format!("{}_e32", op.name()),
                    VEnc::E64 if op.vop3_only() => op.name().into(),
                    VEnc::E64 => format!("{}_e64", op.name()),
                }
            }
            Inst::Vopc { cmp, cmpx, enc, .. } => {
                let sfx = if *enc == VEnc::E32 { "_e32" } else { "_e64" };
                format!("{}{sfx}", cmp.name(*cmpx))
            }
            Inst::Vopd { x, y } => format!("{} :: {}", x.op.name(), y.op.name()),
            Inst::Ds(d) => d.name.into(),
            Inst::Flat(f) => f.name.into(),
            Inst::Valu16(v) => v.mnemonic(),
            Inst::Vop3p(p) => p.op.name().into(),
            Inst::Unsupported(u) => u.mnemonic.clone().unwrap_or_else(|| "<unsupported>".into()),
        }
    }
}

/// Decoded `.text`: instructions in address order.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// Address (in the code object's virtual address space) of each instruction.
    pub pcs: Vec<u64>,
    pub insts: Vec<Inst>,
    /// Size in bytes of each instruction.
    pub sizes: Vec<u8>,
    /// Address of the first byte of the decoded text.
    pub base: u64,
    /// For each 4-byte word of the text, the index of the instruction that
    /// starts there, or `u32::MAX` inside an instruction.
    pub index_of_word: Vec<u32>,
    /// One past the highest VGPR any instruction names (with room for its
    /// widest operand): registers above are never touched by this program.
    pub vgpr_limit: usize,
    /// The interpreter's pre-resolved form of each instruction
    /// ([`super::wave::op_for`]), made once here; a placeholder where it
    /// has none.
    pub ops: Vec<super::wave::Op>,
    /// For each instruction, how many instructions from it on have an
    /// `Op` (0: it has none) and are not the compare of a fused
    /// compare-and-branch: the straight runs the interpreter executes as a
    /// block.
    pub runs: Vec<u32>,
    /// For each instruction, how the block loop goes on when a run stops
    /// there ([`super::wave::exits_for`]): a resolved branch, a fused
    /// scalar compare and branch, or the generic path.
    pub exits: Vec<super::wave::Exit>,
}

impl Decoded {
    /// Instruction index at byte address `pc`, if an instruction starts there.
    pub fn index_at(&self, pc: u64) -> Option<u32> {
        let off = pc.checked_sub(self.base)?;
        if off % 4 != 0 {
            return None;
        }
        let i = *self.index_of_word.get((off / 4) as usize)?;
        (i != u32::MAX).then_some(i)
    }
}

fn src_scalar(code: u32, lit: &mut Option<u32>, next: Option<u32>) -> Result<Src, String> {
    let c = code as u8;
    Ok(match code {
        0..=105 | 106 | 107 | 124 | 125 | 126 | 127 => Src::S(c),
        128..=208 | 240..=248 => Src::Const(c),
        251 => Src::Vccz,
        252 => Src::Execz,
        253 => Src::Scc,
        255 => {
            let v = next.ok_or_else(|| "literal operand past the end of .text".to_string())?;
            *lit = Some(v);
            Src::Lit(v)
        }
        256..=511 => Src::V((code - 256) as u8),
        108..=123 => {
            return Err(format!(
                "operand ttmp{} (trap temporaries) is not modelled",
                code - 108
            ))
        }
        235..=238 => return Err(format!("aperture operand (code {code}) is not modelled")),
        233 | 234 | 250 => return Err("DPP operand is not modelled".to_string()),
        254 => return Err("lds_direct operand is not modelled".to_string()),
        _ => return Err(format!("reserved operand code {code}")),
    })
}

fn sdst_ok(code: u32) -> Result<u8, String> {
    match code {
        0..=107 | 124..=127 => Ok(code as u8),
        _ => Err(format!("scalar destination code {code} is not modelled")),
    }
}

/// Policy (software device): a launched kernel's program is its own code
/// alone when that code cannot leave itself, else the whole `.text`
/// ([`decode_kernel`]).
pub const POLICY_DECODE_KERNEL_RANGE: &str = "decode-kernel-range";

/// Decode what the kernel whose code is `[entry, entry + size)` can run:
/// that range alone when it is closed (every branch lands inside it; no
/// `s_call_b64`, `s_setpc_b64` or `s_swappc_b64`, whose targets may lie
/// elsewhere; its last instruction ends the wave or branches back), else the
/// whole of `text` as [`decode_text`] does. The range is the kernel's
/// `STT_FUNC` symbol (AMDGPUUsage.rst, "AMDGPU ELF Symbols": the kernel entry
/// point in `.text`; its `st_size` per the ELF gABI), as
/// `codeobj::Kernel::code_size` gives it. A code object holds every kernel
/// of its source (dsxor's: 23 kernels, 16 KiB of `.text`), and a device
/// keeps each loaded object's program, so decoding only what a launch runs
/// keeps a device's memory to the kernels it launches
/// ([`POLICY_DECODE_KERNEL_RANGE`]). A wave that still left the range would
/// stop with [`super::WaveError::PcOutsideText`], never run other bytes.
pub fn decode_kernel(text: &[u8], base: u64, entry: u64, size: u64) -> Decoded {
    let range = entry
        .checked_sub(base)
        .filter(|off| off.is_multiple_of(4) && size > 0 && size.is_multiple_of(4))
        .and_then(|off| Some((off as usize, usize::try_from(off.checked_add(size)?).ok()?)))
        .filter(|&(start, end)| end <= text.len() && start < end);
    if let Some((start, end)) = range {
        let d = decode_text(&text[start..end], entry);
        if stays_inside(&d) {
            return d;
        }
    }
    decode_text(text, base)
}

/// [`decode_kernel`] for `kernel` of the code object `co`: its `.text`,
/// its entry and its code size. The one way both software devices (the
/// software device backend and the software HIP runtime) decode a launch.
pub fn decode_kernel_of(
    co: &crate::codeobj::CodeObject,
    kernel: &crate::codeobj::Kernel,
) -> Result<Decoded, crate::codeobj::CodeObjectError> {
    let text = co.text()?;
    Ok(decode_kernel(
        text.bytes,
        text.vaddr,
        kernel.entry_vaddr,
        kernel.code_size,
    ))
}

/// Whether a decoded range's control flow stays in it ([`decode_kernel`]).
fn stays_inside(d: &Decoded) -> bool {
    let leaves = d.insts.iter().any(|i| match i {
        Inst::Branch { target, .. } => target.is_none(),
        Inst::Call { .. } => true,
        Inst::Sop1 { op, .. } => matches!(op, Sop1::SetpcB64 | Sop1::SwappcB64),
        _ => false,
    });
    let ends = matches!(
        d.insts.last(),
        Some(
            Inst::Endpgm
                | Inst::EndpgmSaved
                | Inst::Branch {
                    cond: Cond::Always,
                    ..
                }
        )
    );
    !leaves && ends
}

/// Decode the whole of `text` (the bytes of `.text`, loaded at `base`).
/// Never fails: words that are not understood become [`Inst::Unsupported`].
pub fn decode_text(text: &[u8], base: u64) -> Decoded {
    let words: Vec<u32> = text
        .chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(b)
        })
        .collect();
    let mut out = Decoded {
        pcs: Vec::new(),
        insts: Vec::new(),
        sizes: Vec::new(),
        base,
        index_of_word: vec![u32::MAX; words.len()],
        vgpr_limit: 1,
        ops: Vec::new(),
        runs: Vec::new(),
        exits: Vec::new(),
    };
    let mut i = 0usize;
    while i < words.len() {
        let (inst, n) = decode_one(&words[i..]);
        if let Some(slot) = out.index_of_word.get_mut(i) {
            *slot = out.insts.len() as u32;
        }
        out.pcs.push(base + 4 * i as u64);
        out.sizes.push((4 * n) as u8);
        out.insts.push(inst);
        i += n.max(1);
    }
    out.vgpr_limit = out.insts.iter().map(vgpr_extent).max().unwrap_or(0).max(1);
    // Resolve branch targets to instruction indices once.
    for k in 0..out.insts.len() {
        let simm = match &out.insts[k] {
            Inst::Branch { simm16, .. } | Inst::Call { simm16, .. } => *simm16,
            _ => continue,
        };
        let pc = out.pcs[k] as i64 + 4 + 4 * (simm as i64);
        let t = if pc >= 0 {
            out.index_at(pc as u64)
        } else {
            None
        };
        if let Inst::Branch { target, .. } | Inst::Call { target, .. } = &mut out.insts[k] {
            *target = t;
        }
    }
    let ops: Vec<Option<super::wave::Op>> = out.insts.iter().map(super::wave::op_for).collect();
    out.exits = super::wave::exits_for(&out.insts);
    out.runs = vec![0; ops.len()];
    for k in (0..ops.len()).rev() {
        // A fused compare ends the run before it: the block loop runs it
        // with its branch.
        let fused = matches!(out.exits[k], super::wave::Exit::CmpBranch { .. });
        if ops[k].is_some() && !fused {
            out.runs[k] = 1 + out.runs.get(k + 1).copied().unwrap_or(0);
        }
    }
    out.ops = ops
        .into_iter()
        .map(|o| o.unwrap_or_else(super::wave::no_op))
        .collect();
    out
}

/// One past the highest VGPR `inst` may touch (every operand counted as
/// four registers wide, an over-estimate that is always safe).
fn vgpr_extent(inst: &Inst) -> usize {
    let v = |s: &Src| match s {
        Src::V(r) => *r as usize + 4,
        _ => 0,
    };
    let r = |x: u8| x as usize + 4;
    match inst {
        // An M0-relative move may touch any VGPR.
        Inst::Valu { op, .. } if op.movrel() => super::wave::VGPRS,
        Inst::Valu { vdst, src, .. } => r(*vdst).max(src.iter().map(v).max().unwrap_or(0)),
        Inst::Vopc { src0, src1, .. } => v(src0).max(v(src1)),
        Inst::Valu16(x) => {
            let d = if matches!(x.op, Op16::Cmp { .. }) {
                0
            } else {
                r(x.vdst)
            };
            d.max(x.src.iter().map(v).max().unwrap_or(0))
        }
        Inst::Vopd { x, y } => [
            r(x.vdst),
            r(y.vdst),
            v(&x.src0),
            v(&y.src0),
            r(x.vsrc1),
            r(y.vsrc1),
        ]
        .into_iter()
        .max()
        .unwrap_or(0),
        Inst::Ds(d) => [r(d.addr), r(d.data0), r(d.data1), r(d.vdst)]
            .into_iter()
            .max()
            .unwrap_or(0),
        Inst::Flat(f) => [r(f.vaddr), r(f.vdata), r(f.vdst)]
            .into_iter()
            .max()
            .unwrap_or(0),
        // A wave32 WMMA's C and D are 8 VGPRs.
        Inst::Vop3p(p) if p.op.kind() == P3Kind::Wmma => {
            (p.vdst as usize + 8).max(p.src.iter().map(v).max().unwrap_or(0) + 4)
        }
        Inst::Vop3p(p) => r(p.vdst).max(p.src.iter().map(v).max().unwrap_or(0)),
        _ => 0,
    }
}

fn unsupported(
    encoding: &'static str,
    opcode: u32,
    mnemonic: Option<String>,
    reason: impl Into<String>,
    words: &[u32],
) -> Inst {
    Inst::Unsupported(Box::new(Unsupported {
        encoding,
        opcode,
        mnemonic,
        reason: reason.into(),
        words: words.to_vec(),
    }))
}

/// Decode one instruction from `w` (at least one word). Returns the
/// instruction and its length in words.
pub fn decode_one(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let w1 = w.get(1).copied();
    if w0 >> 23 == 0x17d {
        return decode_sop1(w);
    }
    if w0 >> 23 == 0x17e {
        return decode_sopc(w);
    }
    if w0 >> 23 == 0x17f {
        return (decode_sopp(w0), 1);
    }
    if w0 >> 28 == 0xb {
        return decode_sopk(w);
    }
    if w0 >> 30 == 0b10 {
        return decode_sop2(w);
    }
    if w0 >> 25 == 0x3f {
        return decode_vop1(w);
    }
    if w0 >> 25 == 0x3e {
        return decode_vopc(w);
    }
    if w0 >> 31 == 0 {
        return decode_vop2(w);
    }
    let Some(w1v) = w1 else {
        return (
            unsupported(
                "?",
                0,
                None,
                "64-bit encoding truncated at the end of .text",
                &w[..1],
            ),
            1,
        );
    };
    match w0 >> 26 {
        0b111101 => (decode_smem(w0, w1v), 2),
        0b110101 => decode_vop3(w),
        0b110010 => decode_vopd(w),
        0b110110 => (decode_ds(w0, w1v), 2),
        0b110111 => (decode_flat(w0, w1v), 2),
        0b110011 => decode_vop3p(w),
        // buffer_gl0_inv / buffer_gl1_inv (MUBUF opcodes 43/44, no operands):
        // cache invalidations, nothing to do for memory that has no caches.
        0b111000 if w1v == 0 && (w0 & 0x03ff_ffff) == 43 << 18 => (
            Inst::Nop {
                name: "buffer_gl0_inv",
                simm16: 0,
            },
            2,
        ),
        0b111000 if w1v == 0 && (w0 & 0x03ff_ffff) == 44 << 18 => (
            Inst::Nop {
                name: "buffer_gl1_inv",
                simm16: 0,
            },
            2,
        ),
        0b111000 | 0b111001 => (
            unsupported(
                "MUBUF/MTBUF",
                (w0 >> 18) & 0xff,
                None,
                "buffer instructions are not modelled",
                &w[..2],
            ),
            2,
        ),
        0b111100 => (
            unsupported(
                "MIMG",
                (w0 >> 18) & 0xff,
                None,
                "image instructions are not modelled",
                &w[..2],
            ),
            2,
        ),
        _ => (
            unsupported("?", w0 >> 26, None, "unknown encoding", &w[..1]),
            1,
        ),
    }
}

/// Read ssrc fields that may use a literal.
fn scalar_srcs(w: &[u32], codes: &[u32]) -> Result<(Vec<Src>, usize), String> {
    let mut lit = None;
    let next = w.get(1).copied();
    let mut v = Vec::with_capacity(codes.len());
    for &c in codes {
        if c >= 256 {
            return Err("VGPR in a scalar operand".into());
        }
        v.push(src_scalar(c, &mut lit, next)?);
    }
    Ok((v, if lit.is_some() { 2 } else { 1 }))
}

fn decode_sop2(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let op = (w0 >> 23) & 0x7f;
    let Some(sop) = Sop2::from_op(op) else {
        return (
            unsupported("SOP2", op, None, "opcode not modelled", &w[..1]),
            1,
        );
    };
    match (
        scalar_srcs(w, &[w0 & 0xff, (w0 >> 8) & 0xff]),
        sdst_ok((w0 >> 16) & 0x7f),
    ) {
        (Ok((s, n)), Ok(sdst)) => (
            Inst::Sop2 {
                op: sop,
                sdst,
                s0: s[0],
                s1: s[1],
            },
            n,
        ),
        (Err(e), _) | (_, Err(e)) => (
            unsupported("SOP2", op, Some(sop.name().into()), e, &w[..1]),
            1,
        ),
    }
}

fn decode_sop1(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let op = (w0 >> 8) & 0xff;
    // Named, with why they are not modelled (not "opcode not modelled").
    let why = match op {
        74 => Some((
            "s_rfe_b64",
            "returns from a trap handler, which the software device does not run (s_trap faults)",
        )),
        76 | 77 => Some((
            if op == 76 {
                "s_sendmsg_rtn_b32"
            } else {
                "s_sendmsg_rtn_b64"
            },
            "message replies (doorbell, DDID, TBA/TMA, realtime, save-wave) come from the \
             dispatcher and firmware, which the software device does not model",
        )),
        _ => None,
    };
    if let Some((name, reason)) = why {
        return (
            unsupported("SOP1", op, Some(name.into()), reason, &w[..1]),
            1,
        );
    }
    if let Some(m) = SMovrel::from_op(op) {
        // An operand of an SGPR-only kind in the row
        // (`isa::alu::Kind::Sgpr32`/`Sgpr64`: the destination, s_movrels'
        // source) is an SGPR number the index is added to: a constant
        // there is no register to index from. The other sources
        // (s_movreld's value, s_movrelsd_2's `SSrc_b32`) take what any
        // SOP1 source takes, a literal included.
        let sgpr_only = m.sgpr_only_source();
        let sdst = (w0 >> 16) & 0x7f;
        let s0 = w0 & 0xff;
        let not_sgpr = sdst >= VCC_LO as u32 || (sgpr_only && s0 >= VCC_LO as u32);
        let decoded = if not_sgpr {
            Err("operand is not an SGPR".to_string())
        } else {
            scalar_srcs(w, &[s0])
        };
        return match decoded {
            Ok((s, n)) => (
                Inst::SMovrel {
                    op: m,
                    sdst: sdst as u8,
                    s0: s[0],
                },
                n,
            ),
            Err(e) => (
                unsupported("SOP1", op, Some(m.name().into()), e, &w[..1]),
                1,
            ),
        };
    }
    let Some(sop) = Sop1::from_op(op) else {
        return (
            unsupported("SOP1", op, None, "opcode not modelled", &w[..1]),
            1,
        );
    };
    match (scalar_srcs(w, &[w0 & 0xff]), sdst_ok((w0 >> 16) & 0x7f)) {
        (Ok((s, n)), Ok(sdst)) => (
            Inst::Sop1 {
                op: sop,
                sdst,
                s0: s[0],
            },
            n,
        ),
        (Err(e), _) | (_, Err(e)) => (
            unsupported("SOP1", op, Some(sop.name().into()), e, &w[..1]),
            1,
        ),
    }
}

fn decode_sopc(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let op = (w0 >> 16) & 0x7f;
    let Some(sop) = Sopc::from_op(op) else {
        return (
            unsupported("SOPC", op, None, "opcode not modelled", &w[..1]),
            1,
        );
    };
    match scalar_srcs(w, &[w0 & 0xff, (w0 >> 8) & 0xff]) {
        Ok((s, n)) => (
            Inst::Sopc {
                op: sop,
                s0: s[0],
                s1: s[1],
            },
            n,
        ),
        Err(e) => (
            unsupported("SOPC", op, Some(sop.name().into()), e, &w[..1]),
            1,
        ),
    }
}

fn decode_sopk(w: &[u32]) -> (Inst, usize) {
    let w0 = w[0];
    let op = (w0 >> 23) & 0x1f;
    let simm16 = w0 as u16;
    let hwreg = match op {
        17 => Some(HwregOp::Get),
        18 => Some(HwregOp::Set),
        19 => Some(HwregOp::SetImm32),
        _ => None,
    };
    if let Some(hop) = hwreg {
        let sreg = (w0 >> 16) & 0x7f;
        return match (hop, w.get(1)) {
            (HwregOp::SetImm32, None) => (
                unsupported(
                    "SOPK",
                    op,
                    Some(hop.name().into()),
                    "literal truncated at the end of .text",
                    &w[..1],
                ),
                1,
            ),
            (HwregOp::SetImm32, Some(&imm32)) => (
                Inst::Hwreg {
                    op: hop,
                    sreg: 0,
                    simm16,
                    imm32,
                },
                2,
            ),
            // s_getreg_b32's destination and s_setreg_b32's source are in
            // the same field (LLVM: SReg_32), decoded alike.
            (_, _) => match sdst_ok(sreg) {
                Ok(sreg) => (
                    Inst::Hwreg {
                        op: hop,
                        sreg,
                        simm16,
                        imm32: 0,
                    },
                    1,
                ),
                Err(e) => (
                    unsupported("SOPK", op, Some(hop.name().into()), e, &w[..1]),
                    1,
                ),
            },
        };
    }
    if op == 22 || op == 23 {
        // llvm-mc decodes them for gfx1100, but the RDNA3 guide's SOPK table
        // (§16.2, pages 209-216) goes from opcode 20 to 24: no source says
        // what they do, so they are not guessed.
        let name = if op == 22 {
            "s_subvector_loop_begin"
        } else {
            "s_subvector_loop_end"
        };
        return (
            unsupported(
                "SOPK",
                op,
                Some(name.into()),
                "not in the RDNA3 guide's SOPK table: its behaviour is undocumented",
                &w[..1],
            ),
            1,
        );
    }
    if op == 20 {
        return match sdst_ok((w0 >> 16) & 0x7f) {
            Ok(sdst) => (
                Inst::Call {
                    sdst,
                    simm16: simm16 as i16,
                    target: None,
                },
                1,
            ),
            Err(e) => (
                unsupported("SOPK", op, Some("s_call_b64".into()), e, &w[..1]),
                1,
            ),
        };
    }
    let Some(sop) = Sopk::from_op(op) else {
        return (
            unsupported("SOPK", op, None, "opcode not modelled", &[w0]),
            1,
        );
    };
    match sdst_ok((w0 >> 16) & 0x7f) {
        Ok(sdst) => (
            Inst::Sopk {
                op: sop,
                sdst,
                simm16,
            },
            1,
        ),
        Err(e) => (
            unsupported("SOPK", op, Some(sop.name().into()), e, &[w0]),
            1,
        ),
    }
}

fn decode_sopp(w0: u32) -> Inst {
    let op = (w0 >> 16) & 0x7f;
    let simm16 = w0 as u16;
    let nop = |name| Inst::Nop { name, simm16 };
    let br = |cond| Inst::Branch {
        cond,
        simm16: simm16 as i16,
        target: None,
    };
    match op {
        0 => nop("s_nop"),
        1 => Inst::Trap {
            name: "s_setkill",
            simm16,
        },
        2 => Inst::Trap {
            name: "s_sethalt",
            simm16,
        },
        3 => nop("s_sleep"),
        4 => nop("s_set_inst_prefetch_distance"),
        5 => nop("s_clause"),
        7 => nop("s_delay_alu"),
        8 => nop("s_waitcnt_depctr"),
        9 => nop("s_waitcnt"),
        10 => nop("s_wait_idle"),
        16 => Inst::Trap {
            name: "s_trap",
            simm16,
        },
        17 => nop("s_round_mode"),
        18 => nop("s_denorm_mode"),
        31 => Inst::Trap {
            name: "s_code_end",
            simm16,
        },
        32 => br(Cond::Always),
        33 => br(Cond::Scc0),
        34 => br(Cond::Scc1),
        35 => br(Cond::Vccz),
        36 => br(Cond::Vccnz),
        37 => br(Cond::Execz),
        38 => br(Cond::Execnz),
        39 => br(Cond::CdbgSys),
        40 => br(Cond::CdbgUser),
        41 => br(Cond::CdbgSysOrUser),
        42 => br(Cond::CdbgSysAndUser),
        48 => Inst::Endpgm,
        // "End of program; terminate wavefront ... the wave was saved by a
        // context switch" (S_ENDPGM_SAVED): for the wave, an end.
        49 => Inst::EndpgmSaved,
        // Pixel-shader only (ordered pixel export): undefined in a compute
        // kernel, so a fault here rather than a guess.
        50 => Inst::Trap {
            name: "s_endpgm_ordered_ps_done",
            simm16,
        },
        // Wakes waves of the workgroup sleeping in s_sleep, which the
        // software device does not put to sleep (s_sleep is a no-op).
        52 => nop("s_wakeup"),
        // Send the message, then halt: halting is a stop the device cannot
        // resume (no debugger, see POLICY_NO_DEBUGGER), so a fault.
        55 => Inst::Trap {
            name: "s_sendmsghalt",
            simm16,
        },
        // Performance-level hints and thread-trace data: no architectural
        // effect (no performance levels, no thread trace).
        56 => nop("s_incperflevel"),
        57 => nop("s_decperflevel"),
        58 => nop("s_ttracedata"),
        59 => nop("s_ttracedata_imm"),
        // Waits for an event the wave's own memory already completed at
        // issue (the export-ready event is graphics-only).
        11 => nop("s_wait_event"),
        53 => nop("s_setprio"),
        54 => Inst::Sendmsg { simm16 },
        60 => nop("s_icache_inv"),
        61 => Inst::Barrier,
        _ => unsupported("SOPP", op, None, "opcode not modelled", &[w0]),
    }
}

fn decode_smem(w0: u32, w1: u32) -> Inst {
    let op = (w0 >> 18) & 0xff;
    let dwords = match op {
        0 => 1,
        1 => 2,
        2 => 4,
        3 => 8,
        4 => 16,
        0x20 | 0x21 => {
            return Inst::Nop {
                simm16: 0,
                name: if op == 0x21 {
                    "s_dcache_inv"
                } else {
                    "s_gl1_inv"
                },
            }
        }
        _ => return unsupported("SMEM", op, None, "opcode not modelled", &[w0, w1]),
    };
    let sbase = ((w0 & 0x3f) << 1) as u8;
    let sdata = ((w0 >> 6) & 0x7f) as u8;
    let soff = (w1 >> 25) & 0x7f;
    // offset is a signed 21-bit byte offset (SMInstructions.td, gfx11).
    let offset = ((w1 & 0x1f_ffff) << 11) as i32 >> 11;
    let soffset = if soff == NULL as u32 {
        None
    } else {
        Some(soff as u8)
    };
    Inst::Smem {
        dwords,
        sdata,
        sbase,
        offset,
        soffset,
    }
}

fn decode_vop1(w: &[u32]) -> (Inst, usize) {
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

fn decode_vop2(w: &[u32]) -> (Inst, usize) {
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

fn decode_vopc(w: &[u32]) -> (Inst, usize) {
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

fn decode_vop3(w: &[u32]) -> (Inst, usize) {
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

fn decode_vopd(w: &[u32]) -> (Inst, usize) {
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

fn decode_ds(w0: u32, w1: u32) -> Inst {
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

fn decode_flat(w0: u32, w1: u32) -> Inst {
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

// ---------------------------------------------------------------------------
// 16-bit integer VALU (gfx11 true16): decoded here, executed by `valu16`.
// ---------------------------------------------------------------------------

/// A 16-bit integer VALU operation of gfx11 (VOP1, VOP3, VOPC), executed
/// by [`super::valu16`]. Opcodes are LLVM 22's gfx11 table
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
    /// v_cmp / v_cmpx on 16-bit integers: `cond` as in [`Cmp`] (1 lt,
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
    fn from_vop1(op: u32) -> Option<Op16> {
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
    fn from_vopc(op: u32) -> Option<Op16> {
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
    fn from_vop3(op: u32) -> Option<Op16> {
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
fn decode16_vop1(w: &[u32], op: u32) -> Option<(Inst, usize)> {
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
fn decode16_vopc(w: &[u32], op: u32) -> Option<(Inst, usize)> {
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
fn decode16_vop3(w: &[u32], op: u32) -> Option<(Inst, usize)> {
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

// ---------------------------------------------------------------------------
// VOP3P: the packed 16-bit integer ops, the dot products and the integer
// WMMAs ([`P3Inst`], executed by `vop3p.rs` and `wmma.rs`). Opcodes: the
// table's VOP3P rows (LLVM 22's VOP3PInstructions.td, each checked with
// `llvm-mc-22 -mcpu=gfx1100 -show-encoding`).
// ---------------------------------------------------------------------------

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
fn decode_vop3p(w: &[u32]) -> (Inst, usize) {
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

    /// A kernel's range is decoded alone only when nothing in it can leave
    /// it; otherwise the whole text (policy decode-kernel-range). Each word
    /// is checked to decode as what it stands for, so a wrong encoding here
    /// fails rather than testing nothing (the encodings: llvm-mc-22
    /// -mcpu=gfx1100 -show-encoding).
    #[test]
    fn a_kernel_range_is_decoded_alone_only_when_closed() {
        const NOP: u32 = 0xbf80_0000; // s_nop 0
        const END: u32 = 0xbfb0_0000; // s_endpgm
        const BRANCH: u32 = 0xbfa0_0000; // s_branch, SIMM16 in the low half
        const CALL: u32 = 0xba00_0000; // s_call_b64 s[0:1], SIMM16 low
        const SETPC: u32 = 0xbe80_4800; // s_setpc_b64 s[0:1]
        let bytes = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let base = 0x1000;
        // Kernel at word 0, two words; a second function after it.
        let cases: [(&str, [u32; 4], bool); 6] = [
            ("ends in s_endpgm", [NOP, END, NOP, END], true),
            ("loops back", [NOP, BRANCH | 0xfffe, NOP, END], true),
            ("falls off its end", [NOP, NOP, NOP, END], false),
            ("branches past its end", [BRANCH | 1, END, NOP, END], false),
            ("calls out", [CALL | 1, END, NOP, END], false),
            ("sets the pc", [SETPC, END, NOP, END], false),
        ];
        for (what, words, alone) in cases {
            let whole = decode_text(&bytes(&words), base);
            assert!(
                !whole
                    .insts
                    .iter()
                    .any(|i| matches!(i, Inst::Unsupported(_))),
                "{what}: {:?}",
                whole.insts
            );
            let d = decode_kernel(&bytes(&words), base, base, 8);
            let want = if alone { 2 } else { 4 };
            assert_eq!(d.insts.len(), want, "{what}");
            assert_eq!(d.pcs[0], base, "{what}");
        }
        assert!(matches!(
            decode_text(&bytes(&[CALL | 1]), base).insts[0],
            Inst::Call { .. }
        ));
        assert!(matches!(
            decode_text(&bytes(&[SETPC]), base).insts[0],
            Inst::Sop1 {
                op: Sop1::SetpcB64,
                ..
            }
        ));
        // A range outside the text, or not whole words: the whole text.
        let words = bytes(&[NOP, END, NOP, END]);
        assert_eq!(decode_kernel(&words, base, base + 16, 8).insts.len(), 4);
        assert_eq!(decode_kernel(&words, base, base, 6).insts.len(), 4);
        assert_eq!(decode_kernel(&words, base, base - 4, 8).insts.len(), 4);
        // The second function alone.
        let d = decode_kernel(&words, base, base + 8, 8);
        assert_eq!((d.insts.len(), d.pcs[0]), (2, base + 8));
    }

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
