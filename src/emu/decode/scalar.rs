//! The scalar encodings: SOP1, SOP2, SOPC, SOPK, SOPP and SMEM, their op
//! families ([`Sop1`], [`Sop2`], [`Sopc`], [`Sopk`], [`HwregOp`],
//! [`SMovrel`]), the branch conditions ([`Cond`]) and their decoders.

use std::sync::LazyLock;

use super::operand::{scalar_srcs, sdst_ok, Src, NULL, VCC_LO};
use super::table::{ops, row_of, table_rows};
use super::{unsupported, Inst};
use crate::isa::alu::{Format, Kind};

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

pub(super) fn decode_sop2(w: &[u32]) -> (Inst, usize) {
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

pub(super) fn decode_sop1(w: &[u32]) -> (Inst, usize) {
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

pub(super) fn decode_sopc(w: &[u32]) -> (Inst, usize) {
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

pub(super) fn decode_sopk(w: &[u32]) -> (Inst, usize) {
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

pub(super) fn decode_sopp(w0: u32) -> Inst {
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

pub(super) fn decode_smem(w0: u32, w1: u32) -> Inst {
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
