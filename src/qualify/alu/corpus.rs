//! What the ALU corpus runs: every instruction of [`corpus_ops`], the
//! [`CHAINS`], the wave sizes each runs in, and [`NOT_IN_CORPUS`], the
//! integer instructions the software device decodes that are left out, each
//! with its reason.

use std::sync::LazyLock;

use crate::isa::alu::{ALU_OPS, VOPD_OPS};

/// Every instruction of the ALU corpus, by the table's mnemonic: every row
/// of `isa::alu::ALU_OPS` (the one table the software device's decoder,
/// the encoders and the hazard checker's implicit operands also come from)
/// that [`NOT_IN_CORPUS`] does not leave out with a reason, in the table's
/// order, then the VOPD halves of `isa::alu::VOPD_OPS`. A row added to the
/// table is in the corpus until it has pseudocode or an exclusion: the
/// corpus cannot silently miss an instruction the table has. (The list, not
/// the semantics: the pseudocode stays apart from `emu`.)
pub fn corpus_ops() -> &'static [&'static str] {
    static OPS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        ALU_OPS
            .iter()
            .map(|r| r.name)
            .filter(|n| !NOT_IN_CORPUS.iter().any(|(x, _)| x == n))
            .chain(VOPD_OPS.iter().map(|v| v.name))
            .collect()
    });
    &OPS
}

const WHY_FLOW: &str = "program flow: the slot is straight-line code between two labels and the harness stores the block after it; a branch, call or end of program would leave the slot";
const WHY_HINT: &str = "a scheduling, wait or performance hint with no effect on the register block (without memory in flight the software device runs it as a no-op)";
const WHY_STOPS: &str = "stops the wave (a trap, a halt or code-end padding): the software device faults on it, so there is no register block to compare";
const WHY_HWREG: &str = "reads or writes a hardware register: MODE starts from the kernel descriptor on the software device and from the firmware's defaults on a GPU, HW_ID/SHADER_CYCLES differ by nature, and none of them is in the harness's block; not made deterministic here";
const WHY_M0: &str = "M0-relative: M0 is not in the harness's register block (kernels/dsxor.hip), so its index cannot be set or kept inside the block; needs a harness with M0 as an input and regenerated prebuilt objects";

/// What the software device decodes that the corpus does not run, each
/// with the reason (tests/it/emu_qualify.rs checks that every integer SALU, VALU
/// and VOPD instruction `emu` decodes is in [`corpus_ops`] or here).
pub const NOT_IN_CORPUS: &[(&str, &str)] = &[
    ("s_branch", WHY_FLOW),
    ("s_cbranch_scc0", WHY_FLOW),
    ("s_cbranch_scc1", WHY_FLOW),
    ("s_cbranch_vccz", WHY_FLOW),
    ("s_cbranch_vccnz", WHY_FLOW),
    ("s_cbranch_execz", WHY_FLOW),
    ("s_cbranch_execnz", WHY_FLOW),
    ("s_cbranch_cdbgsys", WHY_FLOW),
    ("s_cbranch_cdbguser", WHY_FLOW),
    ("s_cbranch_cdbgsys_or_user", WHY_FLOW),
    ("s_cbranch_cdbgsys_and_user", WHY_FLOW),
    ("s_call_b64", WHY_FLOW),
    ("s_setpc_b64", WHY_FLOW),
    ("s_swappc_b64", WHY_FLOW),
    ("s_endpgm", WHY_FLOW),
    ("s_endpgm_saved", WHY_FLOW),
    (
        "s_getpc_b64",
        "reads the program counter, which is where the loader put the code object: differs between the GPU and the software device by nature",
    ),
    (
        "s_endpgm_ordered_ps_done",
        "pixel-shader only; the software device faults on it (no compute meaning)",
    ),
    ("s_trap", WHY_STOPS),
    ("s_setkill", WHY_STOPS),
    ("s_sethalt", WHY_STOPS),
    ("s_code_end", WHY_STOPS),
    ("s_sendmsghalt", WHY_STOPS),
    (
        "s_sendmsg",
        "sends a message to the dispatcher/firmware: no effect on the register block the harness can observe",
    ),
    (
        "s_barrier",
        "workgroup synchronization: no effect on the register block of the one-wave harness",
    ),
    ("s_nop", WHY_HINT),
    ("s_sleep", WHY_HINT),
    ("s_set_inst_prefetch_distance", WHY_HINT),
    ("s_clause", WHY_HINT),
    ("s_delay_alu", WHY_HINT),
    ("s_waitcnt_depctr", WHY_HINT),
    ("s_waitcnt", WHY_HINT),
    ("s_wait_idle", WHY_HINT),
    ("s_wait_event", WHY_HINT),
    ("s_waitcnt_vscnt", WHY_HINT),
    ("s_waitcnt_vmcnt", WHY_HINT),
    ("s_waitcnt_expcnt", WHY_HINT),
    ("s_waitcnt_lgkmcnt", WHY_HINT),
    ("s_setprio", WHY_HINT),
    ("s_incperflevel", WHY_HINT),
    ("s_decperflevel", WHY_HINT),
    ("s_ttracedata", WHY_HINT),
    ("s_ttracedata_imm", WHY_HINT),
    ("s_icache_inv", WHY_HINT),
    ("s_wakeup", WHY_HINT),
    ("s_version", WHY_HINT),
    ("v_nop", WHY_HINT),
    (
        "v_readfirstlane_b32_e64",
        "llvm-mc-22 refuses it for gfx1100 (\"e64 variant of this instruction is not \
         supported\"), so no encoding of it can be checked against the oracle; the e32 \
         form v_readfirstlane_b32 is in the corpus",
    ),
    (
        "s_round_mode",
        "sets MODE's float rounding bits: float state, which the integer corpus does not observe (MODE is not in the block)",
    ),
    (
        "s_denorm_mode",
        "sets MODE's float denormal bits: float state, which the integer corpus does not observe (MODE is not in the block)",
    ),
    ("s_getreg_b32", WHY_HWREG),
    ("s_setreg_b32", WHY_HWREG),
    ("s_setreg_imm32_b32", WHY_HWREG),
    ("s_movrels_b32", WHY_M0),
    ("s_movrels_b64", WHY_M0),
    ("s_movreld_b32", WHY_M0),
    ("s_movreld_b64", WHY_M0),
    ("s_movrelsd_2_b32", WHY_M0),
    ("v_movrels_b32_e32", WHY_M0),
    ("v_movrels_b32_e64", WHY_M0),
    ("v_movreld_b32_e32", WHY_M0),
    ("v_movreld_b32_e64", WHY_M0),
    ("v_movrelsd_b32_e32", WHY_M0),
    ("v_movrelsd_b32_e64", WHY_M0),
    ("v_movrelsd_2_b32_e32", WHY_M0),
    ("v_movrelsd_2_b32_e64", WHY_M0),
    ("v_swaprel_b32", WHY_M0),
];

/// Multi-instruction programs: a result feeding the next instruction.
pub const CHAINS: &[&str] = &[
    "chain_s_add_u32_s_addc_u32",
    "chain_v_add_co_u32_v_add_co_ci_u32",
    "chain_v_cmp_v_cndmask",
    "chain_s_cmp_s_cselect",
];

/// Every program name of the corpus: [`corpus_ops`] then [`CHAINS`].
pub fn corpus_names() -> Vec<&'static str> {
    corpus_ops().iter().chain(CHAINS).copied().collect()
}

/// Whether `name` only runs in wave32: VOPD, and the 32-bit
/// saveexec/wrexec forms (wave32's EXEC is EXEC_LO, RDNA3 guide "Wave32
/// and wave64"; LLVM selects the `_b32` forms for wave32 and the `_b64`
/// ones for wave64).
pub fn wave32_only(name: &str) -> bool {
    name.starts_with("v_dual_") || (exec_mask_op(name) && name.ends_with("_b32"))
}

/// The SALU ops that read and write EXEC as a lane mask: the saveexec and
/// wrexec families.
fn exec_mask_op(name: &str) -> bool {
    name.starts_with("s_") && (name.contains("_saveexec_") || name.contains("_wrexec_"))
}

/// Whether `name` only runs in wave64 here: the integer WMMAs. In wave32
/// their D alone is 8 VGPRs, the whole block v16..v23, and D may not
/// overlap A or B (LLVM VOP3PInstructions.td: "Matrices A and B cannot
/// overlap with D"), so no wave32 WMMA fits the harness; in wave64 D is 4.
/// The 64-bit saveexec/wrexec forms run in wave64 only (see [`wave32_only`]).
pub fn wave64_only(name: &str) -> bool {
    name.starts_with("v_wmma_") || (exec_mask_op(name) && name.ends_with("_b64"))
}
