//! The ALU corpus of `dsxor qualify` (issue 16): integer SALU, VALU and
//! VOPD programs run in the harness kernel `dsxor_alu_harness`
//! (kernels/dsxor.hip, gfx11 only), on the GPU and on the software device,
//! each held against the pseudocode's answer ([`run_pseudocode`]).
//!
//! The harness loads a register block — VGPRs v16..v23 per lane, SGPRs
//! s32..s39, VCC, EXEC and SCC — from buffers, runs its program slot (32
//! dwords of `s_nop 0` between the labels `dsxor_alu_harness.slot` and
//! `dsxor_alu_harness.slot_end`) and stores the block back. [`program`]
//! writes a program's words, encoded by [`crate::isa::alu`] (checked
//! against llvm-mc), over the start of the slot; the rest stays s_nop and
//! nothing else in the object changes, so the patched object is as valid a
//! code object as the shipped one.
//!
//! Each program is one instruction of [`CORPUS_OPS`] with operands drawn
//! from the block (SGPRs, VGPRs, VCC, integer inline constants, literals;
//! bit-field extracts get offsets and widths that run past bit 31), or one
//! of the [`CHAINS`] (a carry chain, a compare feeding a select), run on
//! inputs mixing random values with values at the signed/unsigned, 24-bit
//! and shift-count boundaries, under the EXEC shapes of the DS corpus (all,
//! none, even lanes, one lane, the high half, random). VOPD programs run in
//! wave32 only (LLVM: "instruction requires wavesize=32").
//!
//! The pseudocode ([`run_pseudocode`]) is written here from the RDNA3 ISA
//! guide's instruction descriptions (chapter "Instructions": "SOP2
//! Instructions", "SOP1 Instructions", "SOPC Instructions", "VOP2
//! Instructions", "VOP1 Instructions", "VOPC Instructions", "VOP3 & VOP3SD
//! Instructions", "VOPD Instructions"), quoted at each op, independent of
//! `emu` (which the corpus tests) and `model`. Where the guide is silent,
//! a named policy says what dsxor assumes:
//! - [`POLICY_MASK_INACTIVE_ZERO`]: a lane mask an instruction writes (VOPC,
//!   VOP3SD carry out) has 0 in the bits of inactive lanes. The guide says
//!   so for compares ("Vector compare": inactive lanes write 0); dsxor
//!   assumes the same for carry outs. A GPU that keeps those bits shows up
//!   as a disagreement, which is what qualifying is for.
//! - [`POLICY_WIDE_MASK`]: in `(1 << width) - 1` with a width of the
//!   operand's size or more (S_BFE's 7-bit width), the mask is all ones
//!   (whether the shift is read as saturating at 0 or as unbounded, the
//!   result truncated to the operand is all ones).
//!
//! - [`POLICY_D16_KEEPS_OTHER_HALF`]: a 16-bit result (true16 `.l`/`.h`)
//!   writes its half and keeps the other. The guide's pseudocode writes
//!   `D0.u16` and says nothing of the rest; LLVM
//!   (`GCNSubtarget::zeroesHigh16BitsOfDest`): "On gfx10, all 16-bit
//!   instructions preserve the high bits".
//! - [`POLICY_CLAMP_SATURATES`]: CLAMP on an integer instruction saturates
//!   the exact result to the destination type (the guide's note "Supports
//!   saturation (unsigned 16-bit integer domain)"; LLVM selects
//!   `llvm.uadd.sat.i16` to `v_add_nc_u16 ... clamp`).
//! - [`POLICY_CVT_PK_SATURATES`]: the guide does not define `u32_to_u16` /
//!   `i32_to_i16`; dsxor assumes they saturate (Mesa's NIR
//!   `pack_uint_2x16`, lowered to V_CVT_PK_U16_U32 by ACO: "clamp is
//!   applied").
//!
//! The 16-bit integer VALU is in the corpus with random `.l`/`.h` halves
//! (VOP3 OPSEL, VOP1/VOPC bit 7 of the VGPR number) and CLAMP where the
//! instruction has it: add/sub/mul_lo, the shifts, min/max, mad (16- and
//! 32-bit results), min3/max3/med3, and/or/xor/not/mov, cndmask, swap, the
//! conversions (cvt_i32_i16, cvt_u32_u16, cvt_pk_i16_i32, cvt_pk_u16_u32,
//! sat_pk_u8_i16) and every v_cmp/v_cmpx on i16/u16, VOPC and VOP3 forms.
//!
//! The packed integer (VOP3P) ops run with random op_sel / op_sel_hi (and
//! clamp on v_pk_{add,sub}_{i,u}16), the dot products with random neg_lo
//! signedness selects and clamp, v_permlane*16 with random lane selects and
//! fetch-inactive / bound-ctrl bits; their pseudocode is in
//! [`packed_and_lanes`], under the emulator's named policies where the guide
//! is silent: `emu::vext::PACKED_HALVES`, `PACKED_CLAMP`, `DOT_CLAMP`,
//! `PERMLANE_INACTIVE_SOURCE`, `PERMLANE64_WAVE32` (restated there, not
//! imported: the pseudocode shares no code with `emu`).
//!
//! The integer WMMAs (`v_wmma_i32_16x16x16_iu8/iu4`, [`wmma_program`])
//! run in wave64 only ([`wave64_only`]: in wave32 D alone fills the block)
//! with random neg_lo signedness and clamp, C = D in place or an inline
//! constant, on inputs whose A and B are replicated across the 16-lane
//! groups as the guide requires ([`replicate_wmma_inputs`]); their
//! pseudocode is [`wmma`], restating `emu::wmma`'s policies
//! (wmma-exec-all-lanes, wmma-clamp-saturates, wmma-unreplicated-error,
//! wmma-overlap-error).
//!
//! SOPK runs with its SIMM16 drawn at the 16-bit boundaries (the
//! register operand from the block); the saveexec/wrexec family runs as is
//! (the harness captures EXEC after the slot and restores it before storing
//! the block), `_b32` forms in wave32 and `_b64` forms in wave64
//! ([`wave32_only`], [`wave64_only`]); v_readlane/v_writelane take an SGPR
//! or inline-constant lane select, v_readfirstlane meets every EXEC shape
//! (EXEC = 0 reads lane 0). The VOP3 (`_e64`) forms of the VOP1/VOP2/VOPC
//! integer ops run beside their `_e32` forms, every integer 32/64-bit
//! v_cmp/v_cmpx condition (`f` and `t` included) in both.
//!
//! Not in the corpus (honestly: not qualified): float and DPP/SDWA
//! operations (the software device decodes none); the modifiers abs, neg
//! and omod, clamp elsewhere, OPSEL on 32-bit operands, and float inline
//! constants in 16-bit operands; the VOPD float halves; and each integer
//! instruction the software device decodes that is listed in
//! [`NOT_IN_CORPUS`] with its reason: program flow (branches, calls,
//! s_setpc/s_swappc, s_endpgm: the slot is straight-line code), s_getpc
//! (the code's address differs by nature), traps and halts (the software
//! device faults), waits, hints and s_nop/v_nop (no effect on the block),
//! s_round_mode/s_denorm_mode (float MODE state), s_getreg/s_setreg (MODE
//! starts from the descriptor on the software device and from firmware
//! defaults on a GPU; HW_ID and the cycle counter differ by nature), and
//! the M0-relative moves (M0 is not in the harness's block).
//! tests/qualify.rs fails when the software device decodes an integer
//! instruction that is in neither list. Whatever is not in [`CORPUS_OPS`]
//! or [`CHAINS`] is not qualified; the record lists exactly what ran.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{agrees, split, summary, ExecPattern, QualifyError, SideRun, Unfinished};
use crate::backend::{ArgValue, Backend, Dispatch};
use crate::case::WaveSize;
use crate::codeobj::CodeObject;
use crate::isa::alu::{alu_op, AluInst, Inst, Opnd, VopdHalf};

/// The harness kernel.
pub const HARNESS: &str = "dsxor_alu_harness";
/// Its slot's labels.
pub const SLOT: &str = "dsxor_alu_harness.slot";
pub const SLOT_END: &str = "dsxor_alu_harness.slot_end";
/// `s_nop 0` (SOPP opcode 0; llvm-mc: `[0x00,0x00,0x80,0xbf]`).
pub const S_NOP_0: u32 = 0xbf80_0000;
/// The VGPR block: v16..v23 (pinned in kernels/dsxor.hip).
pub const V_BASE: u8 = 16;
/// The SGPR block: s32..s39.
pub const S_BASE: u8 = 32;
/// Registers per block.
pub const BLOCK: usize = 8;
/// Dwords of `sin` / `sout`: 8 SGPRs, VCC lo/hi, EXEC lo/hi, SCC.
const SCALAR_DWORDS: usize = 13;

/// Policy: the bits of inactive lanes in a lane mask an instruction writes
/// are 0 (see the module text).
pub const POLICY_MASK_INACTIVE_ZERO: &str = "mask-inactive-zero";
/// Policy: `(1 << width) - 1` with width >= the operand size is all ones.
pub const POLICY_WIDE_MASK: &str = "wide-mask";
/// Policy: a 16-bit result written to one half of a VGPR keeps the other
/// half (see the module text).
pub const POLICY_D16_KEEPS_OTHER_HALF: &str = "d16-keeps-other-half";
/// Policy: the CLAMP bit of an integer instruction saturates its exact
/// result to the destination type's range.
pub const POLICY_CLAMP_SATURATES: &str = "int-clamp-saturates";
/// Policy: `u32_to_u16` / `i32_to_i16` of V_CVT_PK_U16_U32 /
/// V_CVT_PK_I16_I32 saturate.
pub const POLICY_CVT_PK_SATURATES: &str = "cvt-pk-saturates";

/// The register block of one wave, before or after a program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AluState {
    /// Per lane, v16..v23.
    pub v: Vec<[u32; BLOCK]>,
    /// s32..s39.
    pub s: [u32; BLOCK],
    /// VCC (wave32: VCC_LO is the mask, VCC_HI an ordinary SGPR).
    pub vcc: u64,
    /// EXEC (wave32: the low half; the high half is not compared).
    pub exec: u64,
    pub scc: bool,
}

/// Every instruction of the ALU corpus, by the table's mnemonic.
pub const CORPUS_OPS: &[&str] = &[
    "s_add_u32",
    "s_sub_u32",
    "s_add_i32",
    "s_sub_i32",
    "s_addc_u32",
    "s_subb_u32",
    "s_absdiff_i32",
    "s_lshl_b32",
    "s_lshl_b64",
    "s_lshr_b32",
    "s_lshr_b64",
    "s_ashr_i32",
    "s_ashr_i64",
    "s_lshl2_add_u32",
    "s_min_i32",
    "s_min_u32",
    "s_max_i32",
    "s_max_u32",
    "s_and_b32",
    "s_and_b64",
    "s_or_b32",
    "s_xor_b32",
    "s_xor_b64",
    "s_bfe_u32",
    "s_bfe_i32",
    "s_bfe_u64",
    "s_bfe_i64",
    "s_mul_i32",
    "s_mul_hi_u32",
    "s_mul_hi_i32",
    "s_cselect_b32",
    "s_lshl1_add_u32",
    "s_lshl4_add_u32",
    "s_or_b64",
    "s_nand_b32",
    "s_xnor_b32",
    "s_and_not1_b32",
    "s_bfm_b32",
    "s_cselect_b64",
    "s_pack_ll_b32_b16",
    "s_pack_lh_b32_b16",
    "s_pack_hh_b32_b16",
    "s_pack_hl_b32_b16",
    "s_mov_b32",
    "s_brev_b32",
    "s_ctz_i32_b32",
    "s_clz_i32_u32",
    "s_sext_i32_i8",
    "s_sext_i32_i16",
    "s_abs_i32",
    "s_bcnt1_i32_b32",
    "s_not_b32",
    "s_cmov_b32",
    "s_brev_b64",
    "s_ctz_i32_b64",
    "s_cls_i32",
    "s_bitset0_b32",
    "s_bitset1_b32",
    "s_bitreplicate_b64_b32",
    "s_bcnt0_i32_b32",
    "s_quadmask_b32",
    "s_wqm_b32",
    "s_cmp_eq_i32",
    "s_cmp_lt_i32",
    "s_cmp_gt_u32",
    "s_cmp_le_u32",
    "s_bitcmp1_b32",
    "s_cmp_lg_u64",
    "s_cmp_ge_i32",
    "s_cmp_lg_u32",
    "s_bitcmp0_b64",
    "v_mov_b32_e32",
    "v_not_b32_e32",
    "v_bfrev_b32_e32",
    "v_clz_i32_u32_e32",
    "v_ctz_i32_b32_e32",
    "v_cls_i32_e32",
    "v_cvt_f32_ubyte0_e32",
    "v_cvt_f32_ubyte1_e32",
    "v_cvt_f32_ubyte2_e32",
    "v_cvt_f32_ubyte3_e32",
    "v_cndmask_b32_e32",
    "v_mul_i32_i24_e32",
    "v_mul_u32_u24_e32",
    "v_mul_hi_u32_u24_e32",
    "v_min_i32_e32",
    "v_max_i32_e32",
    "v_min_u32_e32",
    "v_max_u32_e32",
    "v_lshlrev_b32_e32",
    "v_lshrrev_b32_e32",
    "v_ashrrev_i32_e32",
    "v_and_b32_e32",
    "v_or_b32_e32",
    "v_xor_b32_e32",
    "v_add_co_ci_u32_e32",
    "v_sub_co_ci_u32_e32",
    "v_add_nc_u32_e32",
    "v_sub_nc_u32_e32",
    "v_subrev_nc_u32_e32",
    "v_xnor_b32_e32",
    "v_cndmask_b32_e64",
    "v_add_co_ci_u32_e64",
    "v_mad_i32_i24",
    "v_mad_u32_u24",
    "v_bfe_u32",
    "v_bfe_i32",
    "v_bfi_b32",
    "v_alignbit_b32",
    "v_min3_u32",
    "v_med3_i32",
    "v_xor3_b32",
    "v_lshl_add_u32",
    "v_add3_u32",
    "v_lerp_u8",
    "v_min3_i32",
    "v_max3_i32",
    "v_med3_u32",
    "v_sad_u8",
    "v_sad_hi_u8",
    "v_sad_u16",
    "v_sad_u32",
    "v_msad_u8",
    "v_perm_b32",
    "v_add_lshl_u32",
    "v_lshl_or_b32",
    "v_and_or_b32",
    "v_or3_b32",
    "v_mbcnt_lo_u32_b32",
    "v_mbcnt_hi_u32_b32",
    "v_mad_u64_u32",
    "v_mad_i64_i32",
    "v_add_co_u32",
    "v_sub_co_u32",
    "v_mul_lo_u32",
    "v_mul_hi_u32",
    "v_mul_hi_i32",
    "v_lshlrev_b64",
    "v_ashrrev_i64",
    "v_cmp_lt_i32_e32",
    "v_cmp_eq_i32_e32",
    "v_cmp_le_i32_e32",
    "v_cmp_gt_i32_e32",
    "v_cmp_ne_i32_e32",
    "v_cmp_ge_i32_e32",
    "v_cmp_lt_u32_e32",
    "v_cmp_eq_u32_e32",
    "v_cmp_le_u32_e32",
    "v_cmp_gt_u32_e32",
    "v_cmp_ne_u32_e32",
    "v_cmp_ge_u32_e32",
    "v_cmp_lt_i64_e32",
    "v_cmp_eq_u64_e32",
    "v_cmp_lt_i32_e64",
    "v_cmp_gt_u32_e64",
    "v_cmpx_gt_u32_e32",
    "v_add_nc_i16",
    "v_add_nc_u16",
    "v_sub_nc_i16",
    "v_sub_nc_u16",
    "v_mul_lo_u16",
    "v_lshlrev_b16",
    "v_lshrrev_b16",
    "v_ashrrev_i16",
    "v_max_i16",
    "v_max_u16",
    "v_min_i16",
    "v_min_u16",
    "v_mad_i16",
    "v_mad_u16",
    "v_mad_i32_i16",
    "v_mad_u32_u16",
    "v_max3_i16",
    "v_max3_u16",
    "v_min3_i16",
    "v_min3_u16",
    "v_med3_i16",
    "v_med3_u16",
    "v_and_b16",
    "v_or_b16",
    "v_xor_b16",
    "v_cndmask_b16",
    "v_cvt_pk_i16_i32",
    "v_cvt_pk_u16_u32",
    "v_mov_b16_e32",
    "v_mov_b16_e64",
    "v_not_b16_e32",
    "v_not_b16_e64",
    "v_swap_b16",
    "v_cvt_i32_i16_e32",
    "v_cvt_i32_i16_e64",
    "v_cvt_u32_u16_e32",
    "v_cvt_u32_u16_e64",
    "v_sat_pk_u8_i16_e32",
    "v_sat_pk_u8_i16_e64",
    "v_cmp_lt_i16_e32",
    "v_cmp_eq_i16_e32",
    "v_cmp_le_i16_e32",
    "v_cmp_gt_i16_e32",
    "v_cmp_ne_i16_e32",
    "v_cmp_ge_i16_e32",
    "v_cmp_lt_u16_e32",
    "v_cmp_eq_u16_e32",
    "v_cmp_le_u16_e32",
    "v_cmp_gt_u16_e32",
    "v_cmp_ne_u16_e32",
    "v_cmp_ge_u16_e32",
    "v_cmp_lt_i16_e64",
    "v_cmp_eq_i16_e64",
    "v_cmp_le_i16_e64",
    "v_cmp_gt_i16_e64",
    "v_cmp_ne_i16_e64",
    "v_cmp_ge_i16_e64",
    "v_cmp_lt_u16_e64",
    "v_cmp_eq_u16_e64",
    "v_cmp_le_u16_e64",
    "v_cmp_gt_u16_e64",
    "v_cmp_ne_u16_e64",
    "v_cmp_ge_u16_e64",
    "v_cmpx_lt_i16_e32",
    "v_cmpx_eq_i16_e32",
    "v_cmpx_le_i16_e32",
    "v_cmpx_gt_i16_e32",
    "v_cmpx_ne_i16_e32",
    "v_cmpx_ge_i16_e32",
    "v_cmpx_lt_u16_e32",
    "v_cmpx_eq_u16_e32",
    "v_cmpx_le_u16_e32",
    "v_cmpx_gt_u16_e32",
    "v_cmpx_ne_u16_e32",
    "v_cmpx_ge_u16_e32",
    "v_cmpx_lt_i16_e64",
    "v_cmpx_eq_i16_e64",
    "v_cmpx_le_i16_e64",
    "v_cmpx_gt_i16_e64",
    "v_cmpx_ne_i16_e64",
    "v_cmpx_ge_i16_e64",
    "v_cmpx_lt_u16_e64",
    "v_cmpx_eq_u16_e64",
    "v_cmpx_le_u16_e64",
    "v_cmpx_gt_u16_e64",
    "v_cmpx_ne_u16_e64",
    "v_cmpx_ge_u16_e64",
    "v_qsad_pk_u16_u8",
    "v_mqsad_pk_u16_u8",
    "v_mqsad_u32_u8",
    "v_permlane16_b32",
    "v_permlanex16_b32",
    "v_maxmin_u32",
    "v_minmax_u32",
    "v_maxmin_i32",
    "v_minmax_i32",
    "v_permlane64_b32",
    "v_pk_mad_i16",
    "v_pk_mul_lo_u16",
    "v_pk_add_i16",
    "v_pk_sub_i16",
    "v_pk_lshlrev_b16",
    "v_pk_lshrrev_b16",
    "v_pk_ashrrev_i16",
    "v_pk_max_i16",
    "v_pk_min_i16",
    "v_pk_mad_u16",
    "v_pk_add_u16",
    "v_pk_sub_u16",
    "v_pk_max_u16",
    "v_pk_min_u16",
    "v_dot4_i32_iu8",
    "v_dot4_u32_u8",
    "v_dot8_i32_iu4",
    "v_dot8_u32_u4",
    "v_wmma_i32_16x16x16_iu8",
    "v_wmma_i32_16x16x16_iu4",
    "v_dual_mov_b32",
    "v_dual_cndmask_b32",
    "v_dual_add_nc_u32",
    "v_dual_lshlrev_b32",
    "v_dual_and_b32",
    "s_lshl3_add_u32",
    "s_nand_b64",
    "s_nor_b32",
    "s_nor_b64",
    "s_xnor_b64",
    "s_and_not1_b64",
    "s_or_not1_b32",
    "s_or_not1_b64",
    "s_bfm_b64",
    "s_mov_b64",
    "s_cmov_b64",
    "s_clz_i32_u64",
    "s_cls_i32_i64",
    "s_bitset0_b64",
    "s_bitset1_b64",
    "s_bcnt0_i32_b64",
    "s_bcnt1_i32_b64",
    "s_quadmask_b64",
    "s_wqm_b64",
    "s_not_b64",
    "s_and_saveexec_b32",
    "s_and_saveexec_b64",
    "s_or_saveexec_b32",
    "s_or_saveexec_b64",
    "s_xor_saveexec_b32",
    "s_xor_saveexec_b64",
    "s_nand_saveexec_b32",
    "s_nand_saveexec_b64",
    "s_nor_saveexec_b32",
    "s_nor_saveexec_b64",
    "s_xnor_saveexec_b32",
    "s_xnor_saveexec_b64",
    "s_and_not0_saveexec_b32",
    "s_and_not0_saveexec_b64",
    "s_or_not0_saveexec_b32",
    "s_or_not0_saveexec_b64",
    "s_and_not1_saveexec_b32",
    "s_and_not1_saveexec_b64",
    "s_or_not1_saveexec_b32",
    "s_or_not1_saveexec_b64",
    "s_and_not0_wrexec_b32",
    "s_and_not0_wrexec_b64",
    "s_and_not1_wrexec_b32",
    "s_and_not1_wrexec_b64",
    "s_cmp_lg_i32",
    "s_cmp_gt_i32",
    "s_cmp_le_i32",
    "s_cmp_eq_u32",
    "s_cmp_ge_u32",
    "s_cmp_lt_u32",
    "s_bitcmp0_b32",
    "s_bitcmp1_b64",
    "s_cmp_eq_u64",
    "s_movk_i32",
    "s_cmovk_i32",
    "s_cmpk_eq_i32",
    "s_cmpk_lg_i32",
    "s_cmpk_gt_i32",
    "s_cmpk_ge_i32",
    "s_cmpk_lt_i32",
    "s_cmpk_le_i32",
    "s_cmpk_eq_u32",
    "s_cmpk_lg_u32",
    "s_cmpk_gt_u32",
    "s_cmpk_ge_u32",
    "s_cmpk_lt_u32",
    "s_cmpk_le_u32",
    "s_addk_i32",
    "s_mulk_i32",
    "v_readfirstlane_b32",
    "v_swap_b32",
    "v_mul_hi_i32_i24_e32",
    "v_subrev_co_ci_u32_e32",
    "v_mov_b32_e64",
    "v_not_b32_e64",
    "v_bfrev_b32_e64",
    "v_clz_i32_u32_e64",
    "v_ctz_i32_b32_e64",
    "v_cls_i32_e64",
    "v_cvt_f32_ubyte0_e64",
    "v_cvt_f32_ubyte1_e64",
    "v_cvt_f32_ubyte2_e64",
    "v_cvt_f32_ubyte3_e64",
    "v_mul_i32_i24_e64",
    "v_mul_hi_i32_i24_e64",
    "v_mul_u32_u24_e64",
    "v_mul_hi_u32_u24_e64",
    "v_min_i32_e64",
    "v_max_i32_e64",
    "v_min_u32_e64",
    "v_max_u32_e64",
    "v_lshlrev_b32_e64",
    "v_lshrrev_b32_e64",
    "v_ashrrev_i32_e64",
    "v_and_b32_e64",
    "v_or_b32_e64",
    "v_xor_b32_e64",
    "v_xnor_b32_e64",
    "v_add_nc_u32_e64",
    "v_sub_nc_u32_e64",
    "v_subrev_nc_u32_e64",
    "v_sub_co_ci_u32_e64",
    "v_subrev_co_ci_u32_e64",
    "v_alignbyte_b32",
    "v_max3_u32",
    "v_xad_u32",
    "v_bfm_b32",
    "v_bcnt_u32_b32",
    "v_sub_nc_i32",
    "v_add_nc_i32",
    "v_lshrrev_b64",
    "v_readlane_b32",
    "v_writelane_b32",
    "v_subrev_co_u32",
    "v_cmp_f_i32_e32",
    "v_cmp_f_i32_e64",
    "v_cmpx_f_i32_e32",
    "v_cmpx_f_i32_e64",
    "v_cmpx_lt_i32_e32",
    "v_cmpx_lt_i32_e64",
    "v_cmp_eq_i32_e64",
    "v_cmpx_eq_i32_e32",
    "v_cmpx_eq_i32_e64",
    "v_cmp_le_i32_e64",
    "v_cmpx_le_i32_e32",
    "v_cmpx_le_i32_e64",
    "v_cmp_gt_i32_e64",
    "v_cmpx_gt_i32_e32",
    "v_cmpx_gt_i32_e64",
    "v_cmp_ne_i32_e64",
    "v_cmpx_ne_i32_e32",
    "v_cmpx_ne_i32_e64",
    "v_cmp_ge_i32_e64",
    "v_cmpx_ge_i32_e32",
    "v_cmpx_ge_i32_e64",
    "v_cmp_t_i32_e32",
    "v_cmp_t_i32_e64",
    "v_cmpx_t_i32_e32",
    "v_cmpx_t_i32_e64",
    "v_cmp_f_u32_e32",
    "v_cmp_f_u32_e64",
    "v_cmpx_f_u32_e32",
    "v_cmpx_f_u32_e64",
    "v_cmp_lt_u32_e64",
    "v_cmpx_lt_u32_e32",
    "v_cmpx_lt_u32_e64",
    "v_cmp_eq_u32_e64",
    "v_cmpx_eq_u32_e32",
    "v_cmpx_eq_u32_e64",
    "v_cmp_le_u32_e64",
    "v_cmpx_le_u32_e32",
    "v_cmpx_le_u32_e64",
    "v_cmpx_gt_u32_e64",
    "v_cmp_ne_u32_e64",
    "v_cmpx_ne_u32_e32",
    "v_cmpx_ne_u32_e64",
    "v_cmp_ge_u32_e64",
    "v_cmpx_ge_u32_e32",
    "v_cmpx_ge_u32_e64",
    "v_cmp_t_u32_e32",
    "v_cmp_t_u32_e64",
    "v_cmpx_t_u32_e32",
    "v_cmpx_t_u32_e64",
    "v_cmp_f_i64_e32",
    "v_cmp_f_i64_e64",
    "v_cmpx_f_i64_e32",
    "v_cmpx_f_i64_e64",
    "v_cmp_lt_i64_e64",
    "v_cmpx_lt_i64_e32",
    "v_cmpx_lt_i64_e64",
    "v_cmp_eq_i64_e32",
    "v_cmp_eq_i64_e64",
    "v_cmpx_eq_i64_e32",
    "v_cmpx_eq_i64_e64",
    "v_cmp_le_i64_e32",
    "v_cmp_le_i64_e64",
    "v_cmpx_le_i64_e32",
    "v_cmpx_le_i64_e64",
    "v_cmp_gt_i64_e32",
    "v_cmp_gt_i64_e64",
    "v_cmpx_gt_i64_e32",
    "v_cmpx_gt_i64_e64",
    "v_cmp_ne_i64_e32",
    "v_cmp_ne_i64_e64",
    "v_cmpx_ne_i64_e32",
    "v_cmpx_ne_i64_e64",
    "v_cmp_ge_i64_e32",
    "v_cmp_ge_i64_e64",
    "v_cmpx_ge_i64_e32",
    "v_cmpx_ge_i64_e64",
    "v_cmp_t_i64_e32",
    "v_cmp_t_i64_e64",
    "v_cmpx_t_i64_e32",
    "v_cmpx_t_i64_e64",
    "v_cmp_f_u64_e32",
    "v_cmp_f_u64_e64",
    "v_cmpx_f_u64_e32",
    "v_cmpx_f_u64_e64",
    "v_cmp_lt_u64_e32",
    "v_cmp_lt_u64_e64",
    "v_cmpx_lt_u64_e32",
    "v_cmpx_lt_u64_e64",
    "v_cmp_eq_u64_e64",
    "v_cmpx_eq_u64_e32",
    "v_cmpx_eq_u64_e64",
    "v_cmp_le_u64_e32",
    "v_cmp_le_u64_e64",
    "v_cmpx_le_u64_e32",
    "v_cmpx_le_u64_e64",
    "v_cmp_gt_u64_e32",
    "v_cmp_gt_u64_e64",
    "v_cmpx_gt_u64_e32",
    "v_cmpx_gt_u64_e64",
    "v_cmp_ne_u64_e32",
    "v_cmp_ne_u64_e64",
    "v_cmpx_ne_u64_e32",
    "v_cmpx_ne_u64_e64",
    "v_cmp_ge_u64_e32",
    "v_cmp_ge_u64_e64",
    "v_cmpx_ge_u64_e32",
    "v_cmpx_ge_u64_e64",
    "v_cmp_t_u64_e32",
    "v_cmp_t_u64_e64",
    "v_cmpx_t_u64_e32",
    "v_cmpx_t_u64_e64",
];

const WHY_FLOW: &str = "program flow: the slot is straight-line code between two labels and the harness stores the block after it; a branch, call or end of program would leave the slot";
const WHY_HINT: &str = "a scheduling, wait or performance hint with no effect on the register block (the software device completes memory at issue and runs it as a no-op)";
const WHY_STOPS: &str = "stops the wave (a trap, a halt or code-end padding): the software device faults on it, so there is no register block to compare";
const WHY_HWREG: &str = "reads or writes a hardware register: MODE starts from the kernel descriptor on the software device and from the firmware's defaults on a GPU, HW_ID/SHADER_CYCLES differ by nature, and none of them is in the harness's block; not made deterministic here";
const WHY_M0: &str = "M0-relative: M0 is not in the harness's register block (kernels/dsxor.hip), so its index cannot be set or kept inside the block; needs a harness with M0 as an input and regenerated prebuilt objects";

/// What the software device decodes that the corpus does not run, each
/// with the reason (tests/qualify.rs checks that every integer SALU, VALU
/// and VOPD instruction `emu` decodes is in [`CORPUS_OPS`] or here).
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

/// Every program name of the corpus: [`CORPUS_OPS`] then [`CHAINS`].
pub fn corpus_names() -> Vec<&'static str> {
    CORPUS_OPS.iter().chain(CHAINS).copied().collect()
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

/// Values at the boundaries integer ops care about: 0, ±1, the signed
/// 32-bit limits, the 24-bit (u24/i24) limits, shift counts around 32 and
/// 64.
const EDGES: &[u32] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    63,
    64,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_ffff,
    0xffff_fffe,
    0x007f_ffff,
    0x0080_0000,
    0x00ff_ffff,
    0x0100_0000,
    0xff80_0000,
    0x0000_ffff,
    0x0000_8000,
];

fn value(rng: &mut ChaCha8Rng) -> u32 {
    match rng.random_range(0..3u32) {
        0 => EDGES[rng.random_range(0..EDGES.len())],
        1 => rng.random_range(0..40u32),
        _ => rng.random(),
    }
}

fn vreg(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::V(V_BASE + rng.random_range(0..BLOCK as u8))
}
fn vpair(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::V(V_BASE + rng.random_range(0..BLOCK as u8 - 1))
}
fn vquad(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::V(V_BASE + rng.random_range(0..BLOCK as u8 - 3))
}
fn sreg(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::S(S_BASE + rng.random_range(0..BLOCK as u8))
}
fn spair(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::S(S_BASE + 2 * rng.random_range(0..BLOCK as u8 / 2))
}
fn int(rng: &mut ChaCha8Rng) -> Opnd {
    Opnd::Int(
        *[0i8, 1, 2, 16, 31, 32, 33, 63, 64, -1, -2, -16]
            .get(rng.random_range(0..12))
            .unwrap_or(&0),
    )
}
/// A literal that is not an inline constant's value (llvm-mc encodes those
/// as the inline constant: integers -16..=64 and the float constants'
/// bit patterns, which 32-bit integer operands accept too).
fn lit(rng: &mut ChaCha8Rng) -> Opnd {
    const FLOATS: [u32; 9] = [
        0x3f00_0000,
        0xbf00_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x4000_0000,
        0xc000_0000,
        0x4080_0000,
        0xc080_0000,
        0x3e22_f983,
    ];
    let mut v = match rng.random_range(0..2u32) {
        0 => EDGES[rng.random_range(0..EDGES.len())],
        _ => rng.random(),
    };
    while (-16..=64).contains(&(v as i32)) || FLOATS.contains(&v) {
        v = v.wrapping_add(0x0101_0100);
    }
    Opnd::Lit(v)
}
/// A literal for a 16-bit operand: a 16-bit value that llvm-mc does not
/// turn into an inline constant (integers -16..=64 as an i16, and the f16
/// bit patterns of the float inline constants, which 16-bit operands
/// accept as such).
fn lit16(rng: &mut ChaCha8Rng) -> Opnd {
    const F16: [u32; 9] = [
        0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
    ];
    const E: [u32; 8] = [
        0x7fff, 0x8000, 0x8001, 0xfffe, 0x00ff, 0x0100, 0xff00, 0x1234,
    ];
    let mut v = match rng.random_range(0..2u32) {
        0 => E[rng.random_range(0..E.len())],
        _ => rng.random_range(0..0x1_0000u32),
    };
    while (-16..=64).contains(&(v as u16 as i16)) || F16.contains(&v) {
        v = (v + 0x0101) & 0xffff;
    }
    Opnd::Lit(v)
}

/// A SOPK immediate: the signed/unsigned 16-bit boundaries, small values
/// (which the inputs' small values meet, so `s_cmpk_eq` is sometimes
/// true), or random.
fn imm16(rng: &mut ChaCha8Rng) -> Opnd {
    const E: [u32; 8] = [0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0xfffe, 0x00ff];
    Opnd::Lit(match rng.random_range(0..3u32) {
        0 => E[rng.random_range(0..E.len())],
        1 => rng.random_range(0..40u32),
        _ => rng.random_range(0..0x1_0000u32),
    })
}

fn mask(rng: &mut ChaCha8Rng, wave64: bool) -> Opnd {
    match rng.random_range(0..3u32) {
        0 => Opnd::Vcc,
        _ if wave64 => spair(rng),
        _ => sreg(rng),
    }
}

/// A random source of `kind`; `lit_ok` false when the instruction already
/// has its literal.
fn source(
    rng: &mut ChaCha8Rng,
    kind: crate::isa::alu::Kind,
    wave64: bool,
    lit_ok: &mut bool,
) -> Opnd {
    use crate::isa::alu::Kind::*;
    let r = rng.random_range(0..10u32);
    match kind {
        S32 => match r {
            0..=5 => sreg(rng),
            6..=7 => int(rng),
            _ if *lit_ok => {
                *lit_ok = false;
                lit(rng)
            }
            _ => sreg(rng),
        },
        S64 => match r {
            0..=7 => spair(rng),
            _ => int(rng),
        },
        V32 | V16 => vreg(rng),
        V64 => vpair(rng),
        Any16 => match r {
            0..=5 => vreg(rng),
            6..=7 => sreg(rng),
            8 => int(rng),
            _ if *lit_ok => {
                *lit_ok = false;
                lit16(rng)
            }
            _ => vreg(rng),
        },
        V128 => vquad(rng),
        Any32 => match r {
            0..=5 => vreg(rng),
            6..=7 => sreg(rng),
            8 => int(rng),
            _ if *lit_ok => {
                *lit_ok = false;
                lit(rng)
            }
            _ => vreg(rng),
        },
        Any64 => match r {
            0..=6 => vpair(rng),
            7..=8 => spair(rng),
            _ => int(rng),
        },
        Mask => mask(rng, wave64),
        // SOPK's SIMM16.
        Imm16 => imm16(rng),
        // The WMMAs' C / D (their programs come from `wmma_program`).
        Acc | AccSrc => Opnd::V(V_BASE + 4),
        None | Vcc => Opnd::Vcc,
    }
}

/// The `index`th program for `name` (an entry of [`corpus_names`]).
pub fn program_for(
    name: &str,
    wave64: bool,
    seed: u64,
    index: u64,
) -> Result<Vec<Inst>, QualifyError> {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ fxhash(name));
    let bad = |why: String| QualifyError::Corpus(format!("program for {name}: {why}"));
    let one = |n: &str, dst, sdst, srcs| {
        AluInst::new(n, dst, sdst, srcs)
            .map(Inst::One)
            .map_err(|e| bad(e.to_string()))
    };
    if let Some(rest) = name.strip_prefix("chain_") {
        let m = mask(&mut rng, wave64);
        return Ok(match rest {
            "s_add_u32_s_addc_u32" => vec![
                one(
                    "s_add_u32",
                    Some(Opnd::S(32)),
                    None,
                    vec![Opnd::S(34), Opnd::S(36)],
                )?,
                one(
                    "s_addc_u32",
                    Some(Opnd::S(33)),
                    None,
                    vec![Opnd::S(35), Opnd::S(37)],
                )?,
            ],
            "v_add_co_u32_v_add_co_ci_u32" => vec![
                one(
                    "v_add_co_u32",
                    Some(Opnd::V(16)),
                    Some(m),
                    vec![Opnd::V(18), Opnd::V(20)],
                )?,
                one(
                    "v_add_co_ci_u32_e64",
                    Some(Opnd::V(17)),
                    Some(m),
                    vec![Opnd::V(19), Opnd::V(21), m],
                )?,
            ],
            "v_cmp_v_cndmask" => vec![
                one(
                    "v_cmp_lt_i32_e64",
                    Some(m),
                    None,
                    vec![vreg(&mut rng), vreg(&mut rng)],
                )?,
                one(
                    "v_cndmask_b32_e64",
                    Some(vreg(&mut rng)),
                    None,
                    vec![vreg(&mut rng), sreg(&mut rng), m],
                )?,
            ],
            "s_cmp_s_cselect" => vec![
                one(
                    "s_cmp_lt_i32",
                    None,
                    None,
                    vec![sreg(&mut rng), sreg(&mut rng)],
                )?,
                one(
                    "s_cselect_b32",
                    Some(sreg(&mut rng)),
                    None,
                    vec![sreg(&mut rng), lit(&mut rng)],
                )?,
            ],
            _ => return Err(bad("no such chain".into())),
        });
    }
    if name.starts_with("v_dual_") {
        // The named op as Y; X a mov or cndmask (the integer X halves).
        let x_name = if rng.random_bool(0.5) {
            "v_dual_mov_b32"
        } else {
            "v_dual_cndmask_b32"
        };
        let (x_name, y_name) = if name == "v_dual_cndmask_b32" && rng.random_bool(0.5) {
            (name_static(name), "v_dual_mov_b32")
        } else {
            (x_name, name_static(name))
        };
        // Banks: X src0 bank 0/1, Y src0 bank 2/3; X vsrc1 bank 0/1, Y 2/3;
        // vdsts of opposite parity.
        let bank = |rng: &mut ChaCha8Rng, b: u8| Opnd::V(V_BASE + b + 4 * rng.random_range(0..2u8));
        let src0 = |rng: &mut ChaCha8Rng, b: u8| match rng.random_range(0..4u32) {
            0 => sreg(rng),
            1 => int(rng),
            _ => {
                let k = rng.random_range(0..2u8);
                bank(rng, b + k)
            }
        };
        let vx = V_BASE + 2 * rng.random_range(0..4u8);
        let vy = V_BASE + 1 + 2 * rng.random_range(0..4u8);
        let (vx, vy) = if rng.random_bool(0.5) {
            (vx, vy)
        } else {
            (vy, vx)
        };
        let srcs = |rng: &mut ChaCha8Rng, n: &str, b: u8| {
            let mut v = vec![src0(rng, b)];
            if n != "v_dual_mov_b32" {
                let k = rng.random_range(0..2u8);
                v.push(bank(rng, b + k));
            }
            v
        };
        let x = VopdHalf {
            name: x_name,
            vdst: vx,
            srcs: srcs(&mut rng, x_name, 0),
        };
        let mut y = VopdHalf {
            name: y_name,
            vdst: vy,
            srcs: srcs(&mut rng, y_name, 2),
        };
        // The constant bus: cndmask reads VCC, so with it the two src0s
        // hold at most one more scalar value (llvm-mc refuses more).
        let scalar = |o: &Opnd| matches!(o, Opnd::S(_) | Opnd::Lit(_));
        if (x_name == "v_dual_cndmask_b32" || y_name == "v_dual_cndmask_b32")
            && scalar(&x.srcs[0])
            && scalar(&y.srcs[0])
            && x.srcs[0] != y.srcs[0]
        {
            let k = rng.random_range(0..2u8);
            y.srcs[0] = bank(&mut rng, 2 + k);
        }
        return Ok(vec![Inst::Dual(x, y)]);
    }
    if name.starts_with("v_wmma_") {
        if !wave64 {
            return Err(bad("runs in wave64 only (see wave64_only)".into()));
        }
        return wmma_program(name, &mut rng).map_err(|e| bad(e.to_string()));
    }
    let op = alu_op(name).ok_or_else(|| bad("not in the ALU table".into()))?;
    use crate::isa::alu::Kind;
    let mut lit_ok = true;
    let dst = match op.dst {
        Kind::S32 => Some(sreg(&mut rng)),
        Kind::S64 => Some(spair(&mut rng)),
        Kind::V32 | Kind::V16 => Some(vreg(&mut rng)),
        Kind::V64 => Some(vpair(&mut rng)),
        Kind::V128 => Some(vquad(&mut rng)),
        Kind::Mask => Some(mask(&mut rng, wave64)),
        _ => None,
    };
    let sdst = match op.sdst {
        Kind::Mask => Some(mask(&mut rng, wave64)),
        _ => None,
    };
    let mut srcs: Vec<Opnd> = op
        .srcs
        .iter()
        .filter(|k| **k != Kind::Vcc)
        .map(|k| source(&mut rng, *k, wave64, &mut lit_ok))
        .collect();
    // SOPK's register operand (s_cmpk_*'s first source) is an SGPR.
    if op.format == crate::isa::alu::Format::Sopk {
        for (k, kind) in op.srcs.iter().enumerate() {
            if *kind == Kind::S32 {
                srcs[k] = sreg(&mut rng);
            }
        }
    }
    // The lane select of v_readlane/v_writelane: an SGPR or an inline
    // constant (its low 5 or 6 bits pick the lane).
    if matches!(name, "v_readlane_b32" | "v_writelane_b32") {
        if let Some(Opnd::Lit(_)) = srcs.get(1) {
            srcs[1] = sreg(&mut rng);
        }
    }
    // Bit-field extracts: offsets and widths that end past bit 31 half the
    // time (a past emulator bug lived there).
    match name {
        "s_bfe_u32" | "s_bfe_i32" | "s_bfe_u64" | "s_bfe_i64" => {
            let bits = if name.ends_with("64") { 64 } else { 32 };
            let off = rng.random_range(0..bits);
            let width = if rng.random_bool(0.5) {
                rng.random_range(bits - off..=bits + 8)
            } else {
                rng.random_range(0..=bits - off)
            };
            srcs[1] = Opnd::Lit(off | width << 16 | rng.random_range(0..2u32) << 8);
            if let Opnd::Lit(_) | Opnd::Int(_) = srcs[0] {
                srcs[0] = if bits == 64 {
                    spair(&mut rng)
                } else {
                    sreg(&mut rng)
                };
            }
        }
        "v_bfe_u32" | "v_bfe_i32" if rng.random_bool(0.75) => {
            let off = rng.random_range(0..32u32);
            let width = if rng.random_bool(0.5) {
                rng.random_range((32 - off).min(31)..32)
            } else {
                rng.random_range(0..32 - off)
            };
            srcs[1] = Opnd::Int(off as i8);
            srcs[2] = Opnd::Int(width as i8);
            if let Opnd::Lit(_) = srcs[0] {
            } else if rng.random_bool(0.3) {
                srcs[0] = Opnd::Lit(0x8000_0000 | rng.random::<u32>());
            }
        }
        // Byte selectors 0..=14 half the time (random words select 0xff in
        // most bytes): an inline constant selects byte 0 by it, 0 elsewhere.
        "v_perm_b32" if rng.random_bool(0.5) => srcs[2] = Opnd::Int(rng.random_range(0..=14)),
        _ => {}
    }
    // The constant bus (RDNA3 guide, "VALU instructions": at most two
    // scalar values, SGPRs or a literal, per VALU instruction; llvm-mc:
    // "violates constant bus restrictions"): VALU sources past two
    // distinct scalar values become VGPRs.
    // The 64-bit shifts take one scalar operand at most (LLVM
    // AMDGPUAsmParser::getConstantBusLimit: "64-bit shift instructions can
    // use only one scalar value input" on gfx10+; llvm-mc-22 refuses
    // `v_lshrrev_b64 v[16:17], s34, s[34:35]`).
    let bus = if matches!(name, "v_lshlrev_b64" | "v_lshrrev_b64" | "v_ashrrev_i64") {
        1
    } else {
        2
    };
    if name.starts_with("v_") {
        let mut scalars: Vec<Opnd> = Vec::new();
        if let Some(m @ (Opnd::S(_) | Opnd::Vcc)) = srcs
            .last()
            .copied()
            .filter(|_| op.srcs.last() == Some(&Kind::Mask))
        {
            scalars.push(m);
        }
        for (k, s) in srcs.iter_mut().enumerate() {
            if op.srcs.get(k) == Some(&Kind::Mask) {
                continue;
            }
            // A scalar-only operand (v_permlane*16's lane selects) stays
            // scalar: at most two such, so it always fits the bus.
            if op.srcs.get(k) == Some(&Kind::S32) {
                if !scalars.contains(s) {
                    scalars.push(*s);
                }
                continue;
            }
            if let Opnd::S(_) | Opnd::Vcc | Opnd::Lit(_) = *s {
                // No literal in src2 (llvm-mc refuses some, e.g.
                // v_alignbit_b32's).
                if !scalars.contains(s) || bus == 1 || (k >= 2 && matches!(s, Opnd::Lit(_))) {
                    if scalars.len() >= bus || (k >= 2 && matches!(s, Opnd::Lit(_))) {
                        *s = if matches!(op.srcs.get(k), Some(Kind::Any64)) {
                            vpair(&mut rng)
                        } else {
                            vreg(&mut rng)
                        };
                        continue;
                    }
                    scalars.push(*s);
                }
            }
        }
    }
    // 16-bit operands: a random half of each VGPR one; clamp half the time
    // where the instruction has it.
    let mut hi = 0u8;
    for (k, (kind, s)) in op.srcs.iter().zip(&srcs).enumerate() {
        if matches!(kind, Kind::V16 | Kind::Any16) && matches!(s, Opnd::V(_)) {
            hi |= (rng.random_bool(0.5) as u8) << k;
        }
    }
    if op.dst == Kind::V16 {
        hi |= (rng.random_bool(0.5) as u8) << 3;
    }
    let clamp16 = op.clamp && rng.random_bool(0.5);
    // Modifiers: op_sel / op_sel_hi on the packed ops, clamp where it is
    // modelled, the iu dot products' neg_lo signedness selects,
    // v_permlane*16's fetch-inactive / bound-ctrl bits.
    let n = srcs.len() as u32;
    let mut mods = crate::isa::alu::Mods::default();
    if name.starts_with("v_pk_") {
        mods.op_sel = rng.random_range(0..1u32 << n) as u8;
        mods.op_sel_hi = rng.random_range(0..1u32 << n) as u8 | (0b111 & !((1 << n) - 1)) as u8;
        mods.clamp = matches!(
            name,
            "v_pk_add_i16" | "v_pk_add_u16" | "v_pk_sub_i16" | "v_pk_sub_u16"
        ) && rng.random_bool(0.5);
    }
    if name.starts_with("v_dot") {
        if name.contains("_iu") {
            mods.neg_lo = rng.random_range(0..4u8);
        }
        mods.clamp = rng.random_bool(0.5);
    }
    if name.starts_with("v_permlane") && name.ends_with("16_b32") {
        mods.op_sel = rng.random_range(0..4u8);
    }
    one(name, dst, sdst, srcs).map(|i| match i {
        Inst::One(a) if a.is16() => vec![Inst::One(a.with_halves(hi, clamp16))],
        Inst::One(a) => vec![Inst::One(a.with_mods(mods))],
        other => vec![other],
    })
}

/// A wave64 integer WMMA within the block: D = v[20:23] (4 VGPRs in
/// wave64); C is D itself ("The typical case is that C and D are the
/// same", RDNA3 guide §7.9) or, a third of the time, an integer inline
/// constant; A and B take v16..v19, which D may not overlap: iu4's two
/// 2-VGPR matrices are v[16:17] and v[18:19] in either order, or the same
/// pair a quarter of the time; iu8's 4-VGPR A and B are both v[16:19] (A
/// may overlap B: neither LLVM's constraints nor the guide forbid it), so
/// its programs compute A * A^T + C. neg_lo[1:0] (the signedness of A and
/// B) and clamp are random.
fn wmma_program(name: &str, rng: &mut ChaCha8Rng) -> Result<Vec<Inst>, crate::isa::alu::AluError> {
    let (a, b) = if name.ends_with("iu8") {
        (16, 16)
    } else if rng.random_bool(0.25) {
        let p = 16 + 2 * rng.random_range(0..2u8);
        (p, p)
    } else if rng.random_bool(0.5) {
        (16, 18)
    } else {
        (18, 16)
    };
    let c = if rng.random_range(0..3u32) == 0 {
        int(rng)
    } else {
        Opnd::V(20)
    };
    let mods = crate::isa::alu::Mods {
        neg_lo: rng.random_range(0..4u8),
        clamp: rng.random_bool(0.5),
        ..Default::default()
    };
    let i = AluInst::new(
        name,
        Some(Opnd::V(20)),
        None,
        vec![Opnd::V(a), Opnd::V(b), c],
    )?;
    Ok(vec![Inst::One(i.with_mods(mods))])
}

/// Make a WMMA program's input legal: the guide requires A and B
/// replicated across the wave (§7.9: "A and B matrices: lanes 0-15 data
/// are replicated into lanes 16-31 (for wave64: also into lanes 32-47 and
/// 48-63)"), so every lane of their VGPRs takes lane `l % 16`'s value. C is
/// left random; other programs' inputs are left alone.
pub fn replicate_wmma_inputs(insts: &[Inst], st: &mut AluState) {
    for inst in insts {
        let Inst::One(i) = inst else { continue };
        if !i.op.name.starts_with("v_wmma_") {
            continue;
        }
        let regs = if i.op.name.ends_with("iu8") { 4 } else { 2 };
        for src in &i.srcs[..2] {
            let Opnd::V(n) = *src else { continue };
            for r in n..n + regs {
                let Some(k) = (r as usize)
                    .checked_sub(V_BASE as usize)
                    .filter(|k| *k < BLOCK)
                else {
                    continue;
                };
                for l in 16..st.v.len() {
                    st.v[l][k] = st.v[l % 16][k];
                }
            }
        }
    }
}

fn name_static(name: &str) -> &'static str {
    crate::isa::alu::VOPD_OPS
        .iter()
        .find(|e| e.0 == name)
        .map_or("v_dual_mov_b32", |e| e.0)
}

/// FNV-1a of a name (a stable per-program seed mix).
fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The input of the `index`th program: random block values and an EXEC
/// shape (every 6 programs cover every shape).
pub fn input(seed: u64, wave: WaveSize, index: u64) -> (AluState, ExecPattern) {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed.rotate_left(17) ^ index.wrapping_mul(0xa076_1d64_78bd_642f));
    let lanes = wave.lanes() as usize;
    let exec_shape = ExecPattern::ALL[(index % ExecPattern::ALL.len() as u64) as usize];
    let one = rng.random_range(0..lanes);
    let mut exec = 0u64;
    for l in 0..lanes {
        let on = match exec_shape {
            ExecPattern::All => true,
            ExecPattern::None => false,
            ExecPattern::Even => l % 2 == 0,
            ExecPattern::OneLane => l == one,
            ExecPattern::HighHalf => l >= lanes / 2,
            ExecPattern::Random => rng.random_bool(0.5),
        };
        exec |= (on as u64) << l;
    }
    let v = (0..lanes)
        .map(|_| std::array::from_fn(|_| value(&mut rng)))
        .collect();
    let s = std::array::from_fn(|_| value(&mut rng));
    let vcc = rng.random::<u64>() & wave_mask(lanes as u32)
        | (rng.random::<u64>() & !wave_mask(lanes as u32));
    (
        AluState {
            v,
            s,
            vcc,
            exec,
            scc: rng.random_bool(0.5),
        },
        exec_shape,
    )
}

fn wave_mask(lanes: u32) -> u64 {
    if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    }
}

// ---------------------------------------------------------------------------
// The pseudocode.
// ---------------------------------------------------------------------------

struct Machine<'a> {
    st: &'a mut AluState,
    wave64: bool,
    lanes: usize,
}

impl Machine<'_> {
    fn vidx(n: u8, what: &str) -> Result<usize, String> {
        let i = n.wrapping_sub(V_BASE) as usize;
        if i < BLOCK {
            Ok(i)
        } else {
            Err(format!("{what} v{n} is outside the block v16..v23"))
        }
    }
    fn sidx(n: u8, what: &str) -> Result<usize, String> {
        let i = n.wrapping_sub(S_BASE) as usize;
        if i < BLOCK {
            Ok(i)
        } else {
            Err(format!("{what} s{n} is outside the block s32..s39"))
        }
    }
    /// S0.u32 of lane `l`.
    fn r32(&self, o: Opnd, l: usize) -> Result<u32, String> {
        Ok(match o {
            Opnd::V(n) => self.st.v[l][Self::vidx(n, "source")?],
            Opnd::S(n) => self.st.s[Self::sidx(n, "source")?],
            Opnd::Vcc => self.st.vcc as u32,
            // Integer inline constants: the value, as a 32-bit two's
            // complement (guide "Scalar operands", inline constants).
            Opnd::Int(n) => n as i32 as u32,
            Opnd::Lit(v) => v,
        })
    }
    /// S0.u64 of lane `l`: a register pair, or a constant sign-extended to
    /// 64 bits (guide: integer inline constants are sign-extended for
    /// 64-bit operands).
    fn r64(&self, o: Opnd, l: usize) -> Result<u64, String> {
        Ok(match o {
            Opnd::V(n) => {
                let i = Self::vidx(n, "source")?;
                Self::vidx(n + 1, "source")?;
                self.st.v[l][i] as u64 | (self.st.v[l][i + 1] as u64) << 32
            }
            Opnd::S(n) => {
                let i = Self::sidx(n, "source")?;
                Self::sidx(n + 1, "source")?;
                self.st.s[i] as u64 | (self.st.s[i + 1] as u64) << 32
            }
            Opnd::Vcc => self.st.vcc,
            Opnd::Int(n) => n as i64 as u64,
            Opnd::Lit(_) => return Err("a literal in a 64-bit operand is not in the corpus".into()),
        })
    }
    /// S0.u16 of lane `l`: half `hi` of a VGPR; the low 16 bits of an
    /// SGPR, inline constant or literal (guide, "16-bit operands").
    fn r16(&self, o: Opnd, hi: bool, l: usize) -> Result<u16, String> {
        let x = self.r32(o, l)?;
        Ok(match o {
            Opnd::V(_) if hi => (x >> 16) as u16,
            _ => x as u16,
        })
    }
    /// Write a 16-bit result to half `hi` of VGPR `d` in lane `l`; the other
    /// half keeps its value ([`POLICY_D16_KEEPS_OTHER_HALF`]).
    fn w16(&mut self, d: u8, hi: bool, l: usize, v: u16) -> Result<(), String> {
        let k = Self::vidx(d, "destination")?;
        let old = self.st.v[l][k];
        self.st.v[l][k] = if hi {
            (old & 0x0000_ffff) | (v as u32) << 16
        } else {
            (old & 0xffff_0000) | v as u32
        };
        Ok(())
    }
    /// A lane mask operand: 32 bits in wave32, 64 in wave64.
    fn rmask(&self, o: Opnd) -> Result<u64, String> {
        if self.wave64 {
            self.r64(o, 0)
        } else {
            self.r32(o, 0).map(u64::from)
        }
    }
    fn wmask(&mut self, o: Opnd, m: u64) -> Result<(), String> {
        match o {
            Opnd::Vcc if self.wave64 => self.st.vcc = m,
            // Wave32: VCC_LO only; VCC_HI keeps its value.
            Opnd::Vcc => self.st.vcc = (self.st.vcc & !0xffff_ffff) | (m & 0xffff_ffff),
            Opnd::S(n) if self.wave64 => self.ws64(n, m)?,
            Opnd::S(n) => self.st.s[Self::sidx(n, "destination")?] = m as u32,
            other => return Err(format!("{other:?} is not a mask destination")),
        }
        Ok(())
    }
    fn ws32(&mut self, o: Option<Opnd>, v: u32) -> Result<(), String> {
        match o {
            Some(Opnd::S(n)) => self.st.s[Self::sidx(n, "destination")?] = v,
            other => return Err(format!("{other:?} is not an SGPR destination")),
        }
        Ok(())
    }
    fn ws64(&mut self, n: u8, v: u64) -> Result<(), String> {
        let i = Self::sidx(n, "destination")?;
        Self::sidx(n + 1, "destination")?;
        self.st.s[i] = v as u32;
        self.st.s[i + 1] = (v >> 32) as u32;
        Ok(())
    }
    fn active(&self, l: usize) -> bool {
        self.st.exec >> l & 1 == 1
    }
    fn exec(&self) -> u64 {
        self.st.exec & wave_mask(self.lanes as u32)
    }
}

fn dst_v(o: Option<Opnd>) -> Result<u8, String> {
    match o {
        Some(Opnd::V(n)) => Ok(n),
        other => Err(format!("{other:?} is not a VGPR destination")),
    }
}

fn sext(x: u64, from_bits: u32) -> i64 {
    if from_bits == 0 {
        0
    } else if from_bits >= 64 {
        x as i64
    } else {
        ((x << (64 - from_bits)) as i64) >> (64 - from_bits)
    }
}

/// `(1 << w) - 1` at 64 bits, all ones from 64 on ([`POLICY_WIDE_MASK`]).
fn ones(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Unsigned bit-field extract at `bits` (32 or 64):
/// `D = ((S0 >> offset) & ((1 << width) - 1))`.
fn bfe_u(x: u64, off: u32, width: u32, bits: u32) -> u64 {
    (x >> off) & ones(width) & ones(bits)
}

/// Signed bit-field extract at `bits`:
/// `tmp = ((S0.i >> offset) & ((1 << width) - 1)); D = signext_from_bit(tmp, width)`.
/// `S0.i >> offset` is an arithmetic shift of the signed value, so a field
/// that runs past the top bit reads copies of the sign bit.
fn bfe_i(x: u64, off: u32, width: u32, bits: u32) -> u64 {
    let s = sext(x, bits) >> off;
    let tmp = (s as u64) & ones(width);
    (sext(tmp, width.min(64)) as u64) & ones(bits)
}

/// Run `insts` on `st` by the guide's pseudocode (`wave64`: the wave size).
pub fn run_pseudocode(insts: &[Inst], st: &mut AluState, wave64: bool) -> Result<(), String> {
    let lanes = st.v.len();
    for inst in insts {
        let mut m = Machine {
            st: &mut *st,
            wave64,
            lanes,
        };
        match inst {
            Inst::One(i) => one(&mut m, i)?,
            Inst::Dual(x, y) => dual(&mut m, x, y)?,
        }
    }
    Ok(())
}

fn dual(m: &mut Machine, x: &VopdHalf, y: &VopdHalf) -> Result<(), String> {
    // VOPD ("VOPD Instructions"): two independent VALU ops issued together;
    // both read their sources before either writes.
    let half = |m: &Machine, h: &VopdHalf, l: usize| -> Result<u32, String> {
        let s0 = m.r32(h.srcs[0], l)?;
        let s1 = match h.srcs.get(1) {
            Some(o) => m.r32(*o, l)?,
            None => 0,
        };
        Ok(match h.name {
            // V_DUAL_MOV_B32: D0.b32 = S0.b32.
            "v_dual_mov_b32" => s0,
            // V_DUAL_CNDMASK_B32: D0.u32 = VCC.u64[laneId] ? S1.u32 : S0.u32.
            "v_dual_cndmask_b32" => {
                if m.st.vcc >> l & 1 == 1 {
                    s1
                } else {
                    s0
                }
            }
            // V_DUAL_ADD_NC_U32: D0.u32 = S0.u32 + S1.u32.
            "v_dual_add_nc_u32" => s0.wrapping_add(s1),
            // V_DUAL_LSHLREV_B32: D0.u32 = (S1.u32 << S0[4 : 0].u32).
            "v_dual_lshlrev_b32" => s1 << (s0 & 31),
            // V_DUAL_AND_B32: D0.u32 = (S0.u32 & S1.u32).
            "v_dual_and_b32" => s0 & s1,
            other => return Err(format!("no pseudocode for {other}")),
        })
    };
    let mut writes = Vec::new();
    for l in 0..m.lanes {
        if m.active(l) {
            writes.push((l, x.vdst, half(m, x, l)?));
            writes.push((l, y.vdst, half(m, y, l)?));
        }
    }
    for (l, d, v) in writes {
        m.st.v[l][Machine::vidx(d, "destination")?] = v;
    }
    Ok(())
}

fn one(m: &mut Machine, i: &AluInst) -> Result<(), String> {
    let name = i.op.name;
    let src = |k: usize| -> Result<Opnd, String> {
        i.srcs
            .get(k)
            .copied()
            .ok_or_else(|| format!("{name}: source {k} missing"))
    };
    if name.starts_with("s_") {
        return salu(m, i, name);
    }
    if name.starts_with("v_cmp") {
        return vopc(m, i, name);
    }
    if name.starts_with("v_wmma_") {
        return wmma(m, i, name);
    }
    if let Some(r) = packed_and_lanes(m, i, name) {
        return r;
    }
    let base = name.trim_end_matches("_e32").trim_end_matches("_e64");
    if is_16bit(i) {
        return valu16(m, i, base);
    }
    if let Some(r) = lanes_and_swap(m, i, base) {
        return r;
    }
    let exec = m.exec();
    // Lane-mask inputs (VCC of e32 forms, the mask/carry source of e64 forms).
    let mask_in = match (base, i.op.format) {
        (
            "v_cndmask_b32" | "v_add_co_ci_u32" | "v_sub_co_ci_u32" | "v_subrev_co_ci_u32",
            crate::isa::alu::Format::Vop2,
        ) => m.rmask(Opnd::Vcc)?,
        ("v_cndmask_b32" | "v_add_co_ci_u32" | "v_sub_co_ci_u32" | "v_subrev_co_ci_u32", _) => {
            m.rmask(src(2)?)?
        }
        _ => 0,
    };
    let mut carry_out = 0u64;
    let mut writes32: Vec<(usize, u32)> = Vec::new();
    let mut writes64: Vec<(usize, u64)> = Vec::new();
    for l in 0..m.lanes {
        if !m.active(l) {
            continue;
        }
        let a = |k: usize| -> Result<u32, String> { m.r32(src(k)?, l) };
        let ci = mask_in >> l & 1;
        let u24 = |x: u32| x & 0x00ff_ffff;
        let i24 = |x: u32| sext(x as u64 & 0x00ff_ffff, 24);
        let r: u32 = match base {
            // VOP1. V_MOV_B32: D0.b32 = S0.b32.
            "v_mov_b32" => a(0)?,
            // V_NOT_B32: D0.u32 = ~S0.u32.
            "v_not_b32" => !a(0)?,
            // V_BFREV_B32: D0.u32[31 : 0] = S0.u32[0 : 31].
            "v_bfrev_b32" => a(0)?.reverse_bits(),
            // V_CLZ_I32_U32: "D0.i32 = -1; for i in 0 : 31 do if S0.u32[31 - i]
            // == 1'1U then D0.i32 = i; break" (the first one from the top).
            "v_clz_i32_u32" => first_one((0..32).map(|k| 31 - k), a(0)?),
            // V_CTZ_I32_B32: the same from bit 0 up.
            "v_ctz_i32_b32" => first_one(0..32, a(0)?),
            // V_CLS_I32: "D0.i32 = -1; for i in 1 : 31 do if S0.i32[31 - i]
            // != S0.i32[31] then D0.i32 = i; break".
            "v_cls_i32" => cls_i32(a(0)?),
            // V_CVT_F32_UBYTE0..3: "D0.f32 = 32'F(S0[7 : 0].u32)" (S0[15 :
            // 8], S0[23 : 16], S0[31 : 24] for 1..3); a byte is exact in f32.
            "v_cvt_f32_ubyte0" => ubyte_f32(a(0)?, 0),
            "v_cvt_f32_ubyte1" => ubyte_f32(a(0)?, 1),
            "v_cvt_f32_ubyte2" => ubyte_f32(a(0)?, 2),
            "v_cvt_f32_ubyte3" => ubyte_f32(a(0)?, 3),
            // VOP2. V_CNDMASK_B32: D0.u32 = VCC.u64[laneId] ? S1.u32 : S0.u32
            // (the e64 form's mask is S2).
            "v_cndmask_b32" => {
                if ci == 1 {
                    a(1)?
                } else {
                    a(0)?
                }
            }
            // V_MUL_I32_I24: D0.i32 = 32'I(S0.i24) * 32'I(S1.i24).
            "v_mul_i32_i24" => (i24(a(0)?) * i24(a(1)?)) as u32,
            // V_MUL_U32_U24: D0.u32 = 32'U(S0.u24) * 32'U(S1.u24).
            "v_mul_u32_u24" => u24(a(0)?).wrapping_mul(u24(a(1)?)),
            // V_MUL_HI_U32_U24: D0.u32 = 32'U((64'U(S0.u24) * 64'U(S1.u24)) >> 32U).
            "v_mul_hi_u32_u24" => ((u24(a(0)?) as u64 * u24(a(1)?) as u64) >> 32) as u32,
            // V_MIN_I32: D0.i32 = S0.i32 < S1.i32 ? S0.i32 : S1.i32; MAX: >=.
            "v_min_i32" => (a(0)? as i32).min(a(1)? as i32) as u32,
            "v_max_i32" => (a(0)? as i32).max(a(1)? as i32) as u32,
            "v_min_u32" => a(0)?.min(a(1)?),
            "v_max_u32" => a(0)?.max(a(1)?),
            // V_LSHLREV_B32: D0.u32 = (S1.u32 << S0[4 : 0].u32).
            "v_lshlrev_b32" => a(1)? << (a(0)? & 31),
            // V_LSHRREV_B32: D0.u32 = (S1.u32 >> S0[4 : 0].u32).
            "v_lshrrev_b32" => a(1)? >> (a(0)? & 31),
            // V_ASHRREV_I32: D0.i32 = (S1.i32 >> S0[4 : 0].u32).
            "v_ashrrev_i32" => ((a(1)? as i32) >> (a(0)? & 31)) as u32,
            "v_and_b32" => a(0)? & a(1)?,
            "v_or_b32" => a(0)? | a(1)?,
            "v_xor_b32" => a(0)? ^ a(1)?,
            // V_ADD_CO_CI_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32) +
            // VCC.u64[laneId].u64; VCC.u64[laneId] = tmp >= 0x100000000ULL ?
            // 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_add_co_ci_u32" => {
                let t = a(0)? as u64 + a(1)? as u64 + ci;
                carry_out |= ((t >> 32) & 1) << l;
                t as u32
            }
            // V_SUB_CO_CI_U32: "tmp = S0.u32 - S1.u32 - VCC.u64[laneId].u32;
            // VCC.u64[laneId] = 64'U(S1.u32) + VCC.u64[laneId].u64 >
            // 64'U(S0.u32) ? 1'1U : 1'0U".
            "v_sub_co_ci_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((y as u64 + ci > x as u64) as u64) << l;
                x.wrapping_sub(y).wrapping_sub(ci as u32)
            }
            // V_ADD_NC_U32: D0.u32 = S0.u32 + S1.u32 (no carry).
            "v_add_nc_u32" => a(0)?.wrapping_add(a(1)?),
            "v_sub_nc_u32" => a(0)?.wrapping_sub(a(1)?),
            // V_SUBREV_NC_U32: D0.u32 = S1.u32 - S0.u32.
            "v_subrev_nc_u32" => a(1)?.wrapping_sub(a(0)?),
            // VOP3. V_MAD_I32_I24: D0.i32 = 32'I(S0.i24) * 32'I(S1.i24) + S2.i32.
            "v_mad_i32_i24" => ((i24(a(0)?) * i24(a(1)?)) as u32).wrapping_add(a(2)?),
            // V_MAD_U32_U24: D0.u32 = 32'U(S0.u24) * 32'U(S1.u24) + S2.u32.
            "v_mad_u32_u24" => u24(a(0)?).wrapping_mul(u24(a(1)?)).wrapping_add(a(2)?),
            // V_BFE_U32: D0.u32 = ((S0.u32 >> S1[4 : 0].u32) & ((1U << S2[4 : 0].u32) - 1U)).
            "v_bfe_u32" => bfe_u(a(0)? as u64, a(1)? & 31, a(2)? & 31, 32) as u32,
            // V_BFE_I32: "tmp.i32 = ((S0.i32 >> S1[4 : 0].u32) & ((1 << S2[4 :
            // 0].u32) - 1)); D0.i32 = signext_from_bit(tmp.i32, S2[4 : 0].u32)".
            "v_bfe_i32" => bfe_i(a(0)? as u64, a(1)? & 31, a(2)? & 31, 32) as u32,
            // V_BFI_B32: D0.u32 = ((S0.u32 & S1.u32) | (~S0.u32 & S2.u32)).
            "v_bfi_b32" => {
                let s0 = a(0)?;
                (s0 & a(1)?) | (!s0 & a(2)?)
            }
            // V_ALIGNBIT_B32: D0.u32 = 32'U(({ S0.u32, S1.u32 } >> S2.u32[4 : 0].u32) & 0xffffffffLL).
            "v_alignbit_b32" => ((((a(0)? as u64) << 32) | a(1)? as u64) >> (a(2)? & 31)) as u32,
            // V_MIN3_U32: D0.u32 = v_min_u32(v_min_u32(S0.u32, S1.u32), S2.u32).
            "v_min3_u32" => a(0)?.min(a(1)?).min(a(2)?),
            // V_MED3_I32: "if v_max3_i32(S0, S1, S2) == S0 then D0 =
            // v_max_i32(S1, S2) elsif v_max3_i32(S0, S1, S2) == S1 then D0 =
            // v_max_i32(S0, S2) else D0 = v_max_i32(S0, S1) endif"
            // (drop the maximum, take the larger of the other two; with two
            // equal maxima that is the maximum, the median too).
            "v_med3_i32" => med3(a(0)? as i32, a(1)? as i32, a(2)? as i32) as u32,
            // V_XOR3_B32: D0.u32 = (S0.u32 ^ S1.u32 ^ S2.u32).
            "v_xor3_b32" => a(0)? ^ a(1)? ^ a(2)?,
            // V_LSHL_ADD_U32: D0.u32 = (S0.u32 << S1.u32[4 : 0].u32) + S2.u32.
            "v_lshl_add_u32" => (a(0)? << (a(1)? & 31)).wrapping_add(a(2)?),
            // V_ADD3_U32: D0.u32 = S0.u32 + S1.u32 + S2.u32.
            "v_add3_u32" => a(0)?.wrapping_add(a(1)?).wrapping_add(a(2)?),
            // V_XNOR_B32: D0.u32 = ~(S0.u32 ^ S1.u32).
            "v_xnor_b32" => !(a(0)? ^ a(1)?),
            // V_LERP_U8: "tmp = ((S0.u32[31 : 24] + S1.u32[31 : 24] + S2.u32[24].u8)
            // >> 1U << 24U); tmp += ((S0.u32[23 : 16] + S1.u32[23 : 16] +
            // S2.u32[16].u8) >> 1U << 16U); ... [15 : 8], S2.u32[8]; [7 : 0],
            // S2.u32[0]; D0.u32 = tmp.u32": per byte, the rounded average.
            "v_lerp_u8" => {
                let (x, y, z) = (a(0)?, a(1)?, a(2)?);
                (0..4)
                    .map(|k| {
                        let b = |v: u32| v >> (8 * k) & 0xff;
                        ((b(x) + b(y) + (z >> (8 * k) & 1)) >> 1) << (8 * k)
                    })
                    .sum()
            }
            // V_MIN3_I32 / V_MAX3_I32: v_min_i32(v_min_i32(S0, S1), S2) / max.
            "v_min3_i32" => (a(0)? as i32).min(a(1)? as i32).min(a(2)? as i32) as u32,
            "v_max3_i32" => (a(0)? as i32).max(a(1)? as i32).max(a(2)? as i32) as u32,
            // V_MED3_U32: V_MED3_I32's pseudocode on unsigned values.
            "v_med3_u32" => med3(a(0)?, a(1)?, a(2)?),
            // V_SAD_U8: "tmp = S2.u32; tmp += 32'U(ABSDIFF(S0.u32[7 : 0],
            // S1.u32[7 : 0])); ... [15 : 8], [23 : 16], [31 : 24]; D0.u32 = tmp".
            "v_sad_u8" => sad_u8(a(0)?, a(1)?, false).wrapping_add(a(2)?),
            // V_SAD_HI_U8: "D0.u32 = (32'U(v_sad_u8(S0, S1, 0)) << 16U) + S2.u32".
            "v_sad_hi_u8" => (sad_u8(a(0)?, a(1)?, false) << 16).wrapping_add(a(2)?),
            // V_SAD_U16: "tmp = S2.u32; tmp += ABSDIFF(S0[15 : 0].u16, S1[15 :
            // 0].u16); tmp += ABSDIFF(S0[31 : 16].u16, S1[31 : 16].u16)".
            "v_sad_u16" => {
                let (x, y) = (a(0)?, a(1)?);
                let d = |k: u32| (x >> k & 0xffff).abs_diff(y >> k & 0xffff);
                a(2)?.wrapping_add(d(0)).wrapping_add(d(16))
            }
            // V_SAD_U32: "D0.u32 = ABSDIFF(S0.u32, S1.u32) + S2.u32".
            "v_sad_u32" => a(0)?.abs_diff(a(1)?).wrapping_add(a(2)?),
            // V_MSAD_U8: V_SAD_U8 where "S1.u32[k + 7 : k] == 0U ? 0U :
            // ABSDIFF(...)": reference bytes of 0 are masked out.
            "v_msad_u8" => sad_u8(a(0)?, a(1)?, true).wrapping_add(a(2)?),
            // V_PERM_B32: "D0[31 : 24] = BYTE_PERMUTE({ S0.u32, S1.u32 },
            // S2.u32[31 : 24]); ... [23 : 16], [15 : 8], [7 : 0]".
            "v_perm_b32" => {
                let data = (a(0)? as u64) << 32 | a(1)? as u64;
                let sel = a(2)?;
                (0..4)
                    .map(|k| byte_permute(data, sel >> (8 * k) & 0xff) << (8 * k))
                    .sum()
            }
            // V_ADD_LSHL_U32: D0.u32 = ((S0.u32 + S1.u32) << S2.u32[4 : 0].u32).
            "v_add_lshl_u32" => a(0)?.wrapping_add(a(1)?) << (a(2)? & 31),
            // V_LSHL_OR_B32: D0.u32 = ((S0.u32 << S1[4 : 0].u32) | S2.u32).
            "v_lshl_or_b32" => (a(0)? << (a(1)? & 31)) | a(2)?,
            // V_AND_OR_B32: D0.u32 = ((S0.u32 & S1.u32) | S2.u32).
            "v_and_or_b32" => (a(0)? & a(1)?) | a(2)?,
            // V_OR3_B32: D0.u32 = (S0.u32 | S1.u32 | S2.u32).
            "v_or3_b32" => a(0)? | a(1)? | a(2)?,
            // V_MBCNT_LO_U32_B32: "ThreadMask = (1LL << laneId.u32) - 1LL;
            // MaskedValue = (S0.u32 & ThreadMask[31 : 0].u32); tmp = S1.u32;
            // tmp += countbits(MaskedValue); D0.u32 = tmp"; _HI: ThreadMask[63 : 32].
            "v_mbcnt_lo_u32_b32" | "v_mbcnt_hi_u32_b32" => {
                let thread_mask = (1u64 << l) - 1;
                let half = if base == "v_mbcnt_lo_u32_b32" {
                    thread_mask as u32
                } else {
                    (thread_mask >> 32) as u32
                };
                a(1)?.wrapping_add((a(0)? & half).count_ones())
            }
            // V_ADD_CO_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32);
            // VCC.u64[laneId] = tmp >= 0x100000000ULL ? 1'1U : 1'0U;
            // D0.u32 = tmp.u32" (VCC: the instruction's SDST).
            "v_add_co_u32" => {
                let t = a(0)? as u64 + a(1)? as u64;
                carry_out |= ((t >> 32) & 1) << l;
                t as u32
            }
            // V_SUB_CO_U32: "tmp = S0.u32 - S1.u32; VCC.u64[laneId] = S1.u32 >
            // S0.u32 ? 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_sub_co_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((y > x) as u64) << l;
                x.wrapping_sub(y)
            }
            // V_SUBREV_CO_CI_U32: "tmp = S1.u32 - S0.u32 - VCC.u64[laneId].u32;
            // VCC.u64[laneId] = 64'U(S0.u32) + VCC.u64[laneId].u64 >
            // 64'U(S1.u32) ? 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_subrev_co_ci_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((x as u64 + ci > y as u64) as u64) << l;
                y.wrapping_sub(x).wrapping_sub(ci as u32)
            }
            // V_SUBREV_CO_U32: "tmp = S1.u32 - S0.u32; VCC.u64[laneId] = S0.u32 >
            // S1.u32 ? 1'1U : 1'0U; D0.u32 = tmp.u32".
            "v_subrev_co_u32" => {
                let (x, y) = (a(0)?, a(1)?);
                carry_out |= ((x > y) as u64) << l;
                y.wrapping_sub(x)
            }
            // V_MUL_HI_I32_I24: "D0.i32 = 32'I((64'I(S0.i24) * 64'I(S1.i24)) >> 32U)".
            "v_mul_hi_i32_i24" => ((i24(a(0)?) * i24(a(1)?)) >> 32) as u32,
            // V_ALIGNBYTE_B32: "D0.u32 = 32'U(({ S0.u32, S1.u32 } >> (S2.u32[1 :
            // 0].u32 * 8U)) & 0xffffffffLL)".
            "v_alignbyte_b32" => {
                ((((a(0)? as u64) << 32) | a(1)? as u64) >> ((a(2)? & 3) * 8)) as u32
            }
            // V_MAX3_U32: "D0.u32 = v_max_u32(v_max_u32(S0.u32, S1.u32), S2.u32)".
            "v_max3_u32" => a(0)?.max(a(1)?).max(a(2)?),
            // V_XAD_U32: "D0.u32 = (S0.u32 ^ S1.u32) + S2.u32".
            "v_xad_u32" => (a(0)? ^ a(1)?).wrapping_add(a(2)?),
            // V_BFM_B32: "D0.u32 = (((1U << S0[4 : 0].u32) - 1U) << S1[4 : 0].u32)".
            "v_bfm_b32" => (ones(a(0)? & 31) as u32) << (a(1)? & 31),
            // V_BCNT_U32_B32: "tmp = S1.u32; for i in 0 : 31 do tmp += S0[i].u32
            // endfor; D0.u32 = tmp".
            "v_bcnt_u32_b32" => {
                let x = a(0)?;
                (0..32).fold(a(1)?, |t, k| t.wrapping_add(x >> k & 1))
            }
            // V_ADD_NC_I32: "D0.i32 = S0.i32 + S1.i32"; V_SUB_NC_I32: "D0.i32 =
            // S0.i32 - S1.i32" (no clamp in the corpus: the 32-bit result wraps).
            "v_add_nc_i32" => a(0)?.wrapping_add(a(1)?),
            "v_sub_nc_i32" => a(0)?.wrapping_sub(a(1)?),
            // V_MUL_LO_U32: D0.u32 = S0.u32 * S1.u32.
            "v_mul_lo_u32" => a(0)?.wrapping_mul(a(1)?),
            // V_MUL_HI_U32: D0.u32 = 32'U((64'U(S0.u32) * 64'U(S1.u32)) >> 32U).
            "v_mul_hi_u32" => ((a(0)? as u64 * a(1)? as u64) >> 32) as u32,
            // V_MUL_HI_I32: D0.i32 = 32'I((64'I(S0.i32) * 64'I(S1.i32)) >> 32U).
            "v_mul_hi_i32" => ((a(0)? as i32 as i64 * a(1)? as i32 as i64) >> 32) as u32,
            // 64-bit results.
            "v_mad_u64_u32" | "v_mad_i64_i32" | "v_lshlrev_b64" | "v_lshrrev_b64"
            | "v_ashrrev_i64" => {
                let r64: u64 = match base {
                    // V_MAD_U64_U32: "{ D1.u1, D0.u64 } = 65'B(65'U(S0.u32) *
                    // 65'U(S1.u32) + 65'U(S2.u64))".
                    "v_mad_u64_u32" => {
                        let t = a(0)? as u128 * a(1)? as u128 + m.r64(src(2)?, l)? as u128;
                        carry_out |= ((t >> 64) as u64 & 1) << l;
                        t as u64
                    }
                    // V_MAD_I64_I32: "{ D1.i1, D0.i64 } = 65'B(65'I(S0.i32) *
                    // 65'I(S1.i32) + 65'I(S2.i64))".
                    "v_mad_i64_i32" => {
                        let t = a(0)? as i32 as i128 * a(1)? as i32 as i128
                            + m.r64(src(2)?, l)? as i64 as i128;
                        carry_out |= ((t >> 64) as u64 & 1) << l;
                        t as u64
                    }
                    // V_LSHLREV_B64: D0.u64 = (S1.u64 << S0[5 : 0].u32).
                    "v_lshlrev_b64" => m.r64(src(1)?, l)? << (a(0)? & 63),
                    // V_LSHRREV_B64: D0.u64 = (S1.u64 >> S0[5 : 0].u32).
                    "v_lshrrev_b64" => m.r64(src(1)?, l)? >> (a(0)? & 63),
                    // V_ASHRREV_I64: D0.i64 = (S1.i64 >> S0[5 : 0].u32).
                    _ => ((m.r64(src(1)?, l)? as i64) >> (a(0)? & 63)) as u64,
                };
                writes64.push((l, r64));
                continue;
            }
            other => return Err(format!("no pseudocode for {other}")),
        };
        writes32.push((l, r));
    }
    let d = dst_v(i.dst)?;
    for (l, v) in writes32 {
        m.st.v[l][Machine::vidx(d, "destination")?] = v;
    }
    for (l, v) in writes64 {
        let k = Machine::vidx(d, "destination")?;
        Machine::vidx(d + 1, "destination")?;
        m.st.v[l][k] = v as u32;
        m.st.v[l][k + 1] = (v >> 32) as u32;
    }
    // The carry out ([`POLICY_MASK_INACTIVE_ZERO`]): e32 forms write VCC,
    // VOP3SD forms their SDST.
    let carries = matches!(
        base,
        "v_add_co_ci_u32"
            | "v_sub_co_ci_u32"
            | "v_add_co_u32"
            | "v_sub_co_u32"
            | "v_subrev_co_ci_u32"
            | "v_subrev_co_u32"
            | "v_mad_u64_u32"
            | "v_mad_i64_i32"
    );
    if carries {
        let to = i.sdst.unwrap_or(Opnd::Vcc);
        m.wmask(to, carry_out & exec)?;
    }
    Ok(())
}

/// The VALU instructions that reach across lanes or write two registers:
/// v_readlane_b32, v_writelane_b32, v_readfirstlane_b32 (none of them
/// looks at EXEC for the lane it reads or writes), and v_swap_b32.
fn lanes_and_swap(m: &mut Machine, i: &AluInst, base: &str) -> Option<Result<(), String>> {
    let run = |m: &mut Machine| -> Result<(), String> {
        let src = |k: usize| -> Result<Opnd, String> {
            i.srcs
                .get(k)
                .copied()
                .ok_or_else(|| format!("{base}: source {k} missing"))
        };
        let vgpr = |o: Opnd| match o {
            Opnd::V(n) => Machine::vidx(n, "source"),
            other => Err(format!("{base}: {other:?} is not a VGPR")),
        };
        // "if WAVE32 then lane = S1.u32[4 : 0].u32 else lane = S1.u32[5 :
        // 0].u32 endif".
        let lane_mask = m.lanes as u32 - 1;
        match base {
            // V_READLANE_B32: "... D0.b32 = VGPR[lane][SRC0.u32]".
            "v_readlane_b32" => {
                let lane = (m.r32(src(1)?, 0)? & lane_mask) as usize;
                let v = m.st.v[lane][vgpr(src(0)?)?];
                m.ws32(i.dst, v)
            }
            // V_WRITELANE_B32: "... VGPR[lane][VDST.u32] = S0.b32".
            "v_writelane_b32" => {
                let lane = (m.r32(src(1)?, 0)? & lane_mask) as usize;
                let v = m.r32(src(0)?, 0)?;
                let d = Machine::vidx(dst_v(i.dst)?, "destination")?;
                m.st.v[lane][d] = v;
                Ok(())
            }
            // V_READFIRSTLANE_B32: "if EXEC == 0x0LL then lane = 0U // Force
            // lane 0 if all lanes are disabled else lane =
            // 32'U(s_ff1_i32_b64(EXEC)) // Lowest active lane endif; D0.b32 =
            // VGPR[lane][SRC0.u32]" (wave32: EXEC_LO, s_ff1_i32_b32).
            "v_readfirstlane_b32" => {
                let e = m.exec();
                let lane = if e == 0 {
                    0
                } else {
                    e.trailing_zeros() as usize
                };
                let v = m.st.v[lane][vgpr(src(0)?)?];
                m.ws32(i.dst, v)
            }
            // V_SWAP_B32: "tmp = D0.b32; D0.b32 = S0.b32; S0.b32 = tmp" in
            // each active lane.
            _ => {
                let s = vgpr(src(0)?)?;
                let d = Machine::vidx(dst_v(i.dst)?, "destination")?;
                for l in 0..m.lanes {
                    if m.active(l) {
                        m.st.v[l].swap(d, s);
                    }
                }
                Ok(())
            }
        }
    };
    matches!(
        base,
        "v_readlane_b32" | "v_writelane_b32" | "v_readfirstlane_b32" | "v_swap_b32"
    )
    .then(|| run(m))
}

/// Whether `i` is one of the 16-bit integer VALU instructions (an operand
/// or the destination is a 16-bit half).
fn is_16bit(i: &AluInst) -> bool {
    use crate::isa::alu::Kind;
    i.op.dst == Kind::V16
        || i.op
            .srcs
            .iter()
            .any(|k| matches!(k, Kind::V16 | Kind::Any16))
        || matches!(i.op.name, "v_cvt_pk_i16_i32" | "v_cvt_pk_u16_u32")
}

/// The 16-bit integer VALU ("VOP3 & VOP3SD Instructions", "VOP1
/// Instructions" of the RDNA3 guide), per active lane. CLAMP:
/// [`POLICY_CLAMP_SATURATES`].
fn valu16(m: &mut Machine, i: &AluInst, base: &str) -> Result<(), String> {
    let s = |k: usize| -> Result<Opnd, String> {
        i.srcs
            .get(k)
            .copied()
            .ok_or_else(|| format!("{base}: source {k} missing"))
    };
    let d = dst_v(i.dst)?;
    let mask = if base == "v_cndmask_b16" {
        m.rmask(s(2)?)?
    } else {
        0
    };
    let clamp = i.mods.clamp;
    // Saturation to the destination type when CLAMP is set, else its low bits.
    let u16_of = |x: i64| -> u16 {
        if clamp {
            x.clamp(0, 0xffff) as u16
        } else {
            x as u16
        }
    };
    let i16_of = |x: i64| -> u16 {
        if clamp {
            x.clamp(i16::MIN as i64, i16::MAX as i64) as u16
        } else {
            x as u16
        }
    };
    enum Out {
        Half(u16),
        Whole(u32),
    }
    let mut writes: Vec<(usize, Out)> = Vec::new();
    // v_swap_b16's source register, per lane: (lane, block index, value).
    let mut swaps: Vec<(usize, usize, u32)> = Vec::new();
    for l in 0..m.lanes {
        if !m.active(l) {
            continue;
        }
        let h = |k: usize| -> Result<u16, String> { m.r16(s(k)?, i.src_hi(k), l) };
        let u = |k: usize| -> Result<i64, String> { h(k).map(|x| x as i64) };
        let sg = |k: usize| -> Result<i64, String> { h(k).map(|x| x as i16 as i64) };
        let w32 = |k: usize| -> Result<u32, String> { m.r32(s(k)?, l) };
        let out = match base {
            // V_ADD_NC_U16: "D0.u16 = S0.u16 + S1.u16".
            "v_add_nc_u16" => Out::Half(u16_of(u(0)? + u(1)?)),
            // V_SUB_NC_U16: "D0.u16 = S0.u16 - S1.u16".
            "v_sub_nc_u16" => Out::Half(u16_of(u(0)? - u(1)?)),
            // V_ADD_NC_I16: "D0.i16 = S0.i16 + S1.i16".
            "v_add_nc_i16" => Out::Half(i16_of(sg(0)? + sg(1)?)),
            // V_SUB_NC_I16: "D0.i16 = S0.i16 - S1.i16".
            "v_sub_nc_i16" => Out::Half(i16_of(sg(0)? - sg(1)?)),
            // V_MUL_LO_U16: "D0.u16 = S0.u16 * S1.u16".
            "v_mul_lo_u16" => Out::Half((u(0)? * u(1)?) as u16),
            // V_LSHLREV_B16: "D0.u[15 : 0] = (S1.u[15 : 0] << S0[3 : 0].u)".
            "v_lshlrev_b16" => Out::Half(h(1)? << (h(0)? & 15)),
            // V_LSHRREV_B16: "D0.u[15 : 0] = (S1.u[15 : 0] >> S0[3 : 0].u)".
            "v_lshrrev_b16" => Out::Half(h(1)? >> (h(0)? & 15)),
            // V_ASHRREV_I16: "D0.i[15 : 0] = (S1.i[15 : 0] >> S0[3 : 0].u)".
            "v_ashrrev_i16" => Out::Half(((h(1)? as i16) >> (h(0)? & 15)) as u16),
            // V_MAX_I16: "D0.i16 = S0.i16 >= S1.i16 ? S0.i16 : S1.i16".
            "v_max_i16" => Out::Half(if sg(0)? >= sg(1)? { h(0)? } else { h(1)? }),
            "v_max_u16" => Out::Half(if u(0)? >= u(1)? { h(0)? } else { h(1)? }),
            // V_MIN_I16: "D0.i16 = S0.i16 < S1.i16 ? S0.i16 : S1.i16".
            "v_min_i16" => Out::Half(if sg(0)? < sg(1)? { h(0)? } else { h(1)? }),
            "v_min_u16" => Out::Half(if u(0)? < u(1)? { h(0)? } else { h(1)? }),
            // V_MAD_U16: "D0.u16 = S0.u16 * S1.u16 + S2.u16".
            "v_mad_u16" => Out::Half(u16_of(u(0)? * u(1)? + u(2)?)),
            // V_MAD_I16: "D0.i16 = S0.i16 * S1.i16 + S2.i16".
            "v_mad_i16" => Out::Half(i16_of(sg(0)? * sg(1)? + sg(2)?)),
            // V_MAD_U32_U16: "D0.u = 32'U(S0.u16) * 32'U(S1.u16) + S2.u".
            "v_mad_u32_u16" => {
                let t = u(0)? * u(1)? + w32(2)? as i64;
                Out::Whole(if clamp {
                    t.min(u32::MAX as i64) as u32
                } else {
                    t as u32
                })
            }
            // V_MAD_I32_I16: "D0.i = 32'I(S0.i16) * 32'I(S1.i16) + S2.i".
            "v_mad_i32_i16" => {
                let t = sg(0)? * sg(1)? + w32(2)? as i32 as i64;
                Out::Whole(if clamp {
                    t.clamp(i32::MIN as i64, i32::MAX as i64) as u32
                } else {
                    t as u32
                })
            }
            // V_MAX3_I16: "D0.i16 = v_max_i16(v_max_i16(S0.i16, S1.i16), S2.i16)"; MIN3 alike.
            "v_max3_i16" => Out::Half(sg(0)?.max(sg(1)?).max(sg(2)?) as u16),
            "v_max3_u16" => Out::Half(u(0)?.max(u(1)?).max(u(2)?) as u16),
            "v_min3_i16" => Out::Half(sg(0)?.min(sg(1)?).min(sg(2)?) as u16),
            "v_min3_u16" => Out::Half(u(0)?.min(u(1)?).min(u(2)?) as u16),
            // V_MED3_I16: "if v_max3_i16(S0, S1, S2) == S0 then D0 =
            // v_max_i16(S1, S2) elsif ... == S1 then D0 = v_max_i16(S0, S2)
            // else D0 = v_max_i16(S0, S1)".
            "v_med3_i16" | "v_med3_u16" => {
                let v = if base == "v_med3_i16" {
                    [sg(0)?, sg(1)?, sg(2)?]
                } else {
                    [u(0)?, u(1)?, u(2)?]
                };
                let mx = v[0].max(v[1]).max(v[2]);
                let r = if mx == v[0] {
                    v[1].max(v[2])
                } else if mx == v[1] {
                    v[0].max(v[2])
                } else {
                    v[0].max(v[1])
                };
                Out::Half(r as u16)
            }
            // V_AND_B16: "D0.u16 = (S0.u16 & S1.u16)"; OR, XOR alike.
            "v_and_b16" => Out::Half(h(0)? & h(1)?),
            "v_or_b16" => Out::Half(h(0)? | h(1)?),
            "v_xor_b16" => Out::Half(h(0)? ^ h(1)?),
            // V_NOT_B16: "D0.u16 = ~S0.u16".
            "v_not_b16" => Out::Half(!h(0)?),
            // V_MOV_B16: "D0.b16 = S0.b16".
            "v_mov_b16" => Out::Half(h(0)?),
            // V_CNDMASK_B16: "D0.u16 = VCC.u64[laneId] ? S1.u16 : S0.u16"
            // (VOP3: the mask is S2).
            "v_cndmask_b16" => Out::Half(if mask >> l & 1 == 1 { h(1)? } else { h(0)? }),
            // V_CVT_I32_I16: "D0.i = 32'I(signext(S0.i16))".
            "v_cvt_i32_i16" => Out::Whole(sg(0)? as u32),
            // V_CVT_U32_U16: "D0 = { 16'0, S0.u16 }".
            "v_cvt_u32_u16" => Out::Whole(h(0)? as u32),
            // V_CVT_PK_U16_U32: "D0[15 : 0].u16 = u32_to_u16(S0.u);
            // D0[31 : 16].u16 = u32_to_u16(S1.u)" ([`POLICY_CVT_PK_SATURATES`]).
            "v_cvt_pk_u16_u32" => Out::Whole(w32(0)?.min(0xffff) | w32(1)?.min(0xffff) << 16),
            // V_CVT_PK_I16_I32: "D0[15 : 0].i16 = i32_to_i16(S0.i); D0[31 :
            // 16].i16 = i32_to_i16(S1.i)".
            "v_cvt_pk_i16_i32" => {
                let c = |x: u32| (x as i32).clamp(i16::MIN as i32, i16::MAX as i32) as u16 as u32;
                Out::Whole(c(w32(0)?) | c(w32(1)?) << 16)
            }
            // V_SAT_PK_U8_I16: "SAT8 = lambda(n) (if n.i <= 0 then return
            // 8'0U elsif n >= 16'I(0xff) then return 8'255U else return n[7 :
            // 0].u8 endif); D0.b16 = { SAT8(S0[31 : 16].i16), SAT8(S0[15 :
            // 0].i16) }".
            "v_sat_pk_u8_i16" => {
                let x = w32(0)?;
                let sat8 = |n: i16| -> u16 {
                    if n <= 0 {
                        0
                    } else if n >= 0xff {
                        255
                    } else {
                        n as u16 & 0xff
                    }
                };
                Out::Half(sat8((x >> 16) as i16) << 8 | sat8(x as i16))
            }
            // V_SWAP_B16: "tmp = D0.b16; D0.b16 = S0.b16; S0.b16 = tmp".
            "v_swap_b16" => {
                let Opnd::V(sr) = s(0)? else {
                    return Err("v_swap_b16 without a VGPR source".into());
                };
                let dv = m.r16(Opnd::V(d), i.dst_hi(), l)?;
                let sv = h(0)?;
                writes.push((l, Out::Half(sv)));
                // The source half gets the old destination half; recorded
                // as a whole-register value of the source register below.
                let k = Machine::vidx(sr, "source")?;
                let old = m.st.v[l][k];
                let new = if i.src_hi(0) {
                    (old & 0xffff) | (dv as u32) << 16
                } else {
                    (old & 0xffff_0000) | dv as u32
                };
                swaps.push((l, k, new));
                continue;
            }
            other => return Err(format!("no pseudocode for {other}")),
        };
        writes.push((l, out));
    }
    for (l, k, v) in swaps {
        m.st.v[l][k] = v;
    }
    for (l, out) in writes {
        match out {
            Out::Half(v) => m.w16(d, i.dst_hi(), l, v)?,
            Out::Whole(v) => m.st.v[l][Machine::vidx(d, "destination")?] = v,
        }
    }
    Ok(())
}

/// "tmp = -1; for i in 0 : 31 do if S0.u32[bit(i)] == 1'1U then tmp = i;
/// break": the iteration index `i` of the first one, where `order` lists
/// bit(i) (bit i for CTZ, bit 31 - i for CLZ; 0 : 63 for S_CTZ_I32_B64);
/// -1 (all ones) for 0.
fn first_one(order: impl Iterator<Item = u32>, x: impl Into<u64>) -> u32 {
    let x = x.into();
    order
        .enumerate()
        .find(|(_, b)| x >> b & 1 == 1)
        .map_or(u32::MAX, |(k, _)| k as u32)
}

/// V_CLS_I32 / S_CLS_I32: "tmp = -1; for i in 1 : 31 do if S0.u32[31 - i]
/// != S0.u32[31] then tmp = i; break".
/// `32'F(S0[8k + 7 : 8k].u32)`: byte `k` of `x`, as an f32's bits.
fn ubyte_f32(x: u32, k: u32) -> u32 {
    (((x >> (8 * k)) & 0xff) as f32).to_bits()
}

fn cls_i32(x: u32) -> u32 {
    (1..32)
        .find(|k| (x >> (31 - k)) & 1 != x >> 31)
        .unwrap_or(u32::MAX)
}

/// V_MED3_I32 (and _U32 on unsigned values): "if v_max3_i32(S0, S1, S2) ==
/// S0 then D0 = v_max_i32(S1, S2) elsif v_max3_i32(S0, S1, S2) == S1 then
/// D0 = v_max_i32(S0, S2) else D0 = v_max_i32(S0, S1) endif".
fn med3<T: Ord + Copy>(x: T, y: T, z: T) -> T {
    let max3 = x.max(y).max(z);
    if max3 == x {
        y.max(z)
    } else if max3 == y {
        x.max(z)
    } else {
        x.max(y)
    }
}

/// V_SAD_U8's sum of byte differences (without S2); `masked`: V_MSAD_U8,
/// which skips the bytes where S1's byte is 0.
fn sad_u8(x: u32, y: u32, masked: bool) -> u32 {
    (0..4)
        .map(|k| {
            let (bx, by) = (x >> (8 * k) & 0xff, y >> (8 * k) & 0xff);
            if masked && by == 0 {
                0
            } else {
                bx.abs_diff(by)
            }
        })
        .sum()
}

/// The guide's BYTE_PERMUTE(data, sel) of V_PERM_B32: "if sel >= 13 then
/// 0xff; elsif sel == 12 then 0x0; elsif sel == 11 then data[63 : 56].i8
/// sign-replicated (0xff or 0); sel == 10: data[47 : 40]'s; sel == 9:
/// data[31 : 24]'s; sel == 8: data[15 : 8]'s; else data[sel * 8 + 7 :
/// sel * 8]".
fn byte_permute(data: u64, sel: u32) -> u32 {
    let sign = |bit: u32| if data >> bit & 1 == 1 { 0xff } else { 0 };
    match sel {
        13.. => 0xff,
        12 => 0,
        11 => sign(63),
        10 => sign(47),
        9 => sign(31),
        8 => sign(15),
        _ => (data >> (8 * sel) & 0xff) as u32,
    }
}

fn vopc(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    // "D0.u64[laneId] = S0.i32 < S1.i32" etc. (VOPC Instructions);
    // V_CMPX_*: "EXEC.u64[laneId] = ..."; inactive lanes write 0 (guide,
    // "Vector compare").
    let base = name.trim_end_matches("_e32").trim_end_matches("_e64");
    let mut parts = base.split('_');
    let (_, cmp_kind, cond, ty) = (parts.next(), parts.next(), parts.next(), parts.next());
    let (cond, ty) = (cond.unwrap_or(""), ty.unwrap_or(""));
    let s0 = i.srcs.first().copied().ok_or("compare without S0")?;
    let s1 = i.srcs.get(1).copied().ok_or("compare without S1")?;
    let mut res = 0u64;
    for l in 0..m.lanes {
        if !m.active(l) {
            continue;
        }
        let ord = match ty {
            "i32" => (m.r32(s0, l)? as i32).cmp(&(m.r32(s1, l)? as i32)),
            // "D0.u64[laneId] = S0.i16 < S1.i16" etc.: the named halves.
            "i16" => (m.r16(s0, i.src_hi(0), l)? as i16).cmp(&(m.r16(s1, i.src_hi(1), l)? as i16)),
            "u16" => m.r16(s0, i.src_hi(0), l)?.cmp(&m.r16(s1, i.src_hi(1), l)?),
            "u32" => m.r32(s0, l)?.cmp(&m.r32(s1, l)?),
            "i64" => (m.r64(s0, l)? as i64).cmp(&(m.r64(s1, l)? as i64)),
            "u64" => m.r64(s0, l)?.cmp(&m.r64(s1, l)?),
            other => return Err(format!("compare type {other}")),
        };
        use std::cmp::Ordering::*;
        let t = match cond {
            // V_CMP_F_*: "D0.u64[laneId] = 1'0U"; V_CMP_T_*: "= 1'1U".
            "f" => false,
            "t" => true,
            "lt" => ord == Less,
            "eq" => ord == Equal,
            "le" => ord != Greater,
            "gt" => ord == Greater,
            "ne" => ord != Equal,
            "ge" => ord != Less,
            other => return Err(format!("compare condition {other}")),
        };
        res |= (t as u64) << l;
    }
    if cmp_kind == Some("cmpx") {
        m.st.exec = res;
        return Ok(());
    }
    let to = i.dst.unwrap_or(Opnd::Vcc);
    m.wmask(to, res)
}

fn salu(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    let s = |k: usize| -> Result<u32, String> {
        m.r32(i.srcs.get(k).copied().ok_or("missing source")?, 0)
    };
    let s64 = |k: usize| -> Result<u64, String> {
        m.r64(i.srcs.get(k).copied().ok_or("missing source")?, 0)
    };
    let scc = m.st.scc as u64;
    // (result, SCC after; None = SCC unchanged, 64-bit result?)
    enum R {
        W32(u32, Option<bool>),
        W64(u64, Option<bool>),
        Scc(bool),
    }
    let nz = |x: u32| R::W32(x, Some(x != 0));
    let nz64 = |x: u64| R::W64(x, Some(x != 0));
    // The destination's value before the instruction (S_CMOV, S_BITSET,
    // SOPK's S_CMOVK/S_ADDK/S_MULK).
    let old_dst = || -> Result<u32, String> { m.r32(i.dst.ok_or("missing destination")?, 0) };
    let old_dst64 = || -> Result<u64, String> { m.r64(i.dst.ok_or("missing destination")?, 0) };
    // SOPK's SIMM16 (its last operand).
    let simm16 = || -> Result<u16, String> {
        match i.srcs.last() {
            Some(Opnd::Lit(v)) => Ok(*v as u16),
            other => Err(format!("{name}: SIMM16 is {other:?}")),
        }
    };
    // What EXEC becomes (the saveexec/wrexec family), applied after.
    let mut exec_after: Option<u64> = None;
    let r = match name {
        // S_ADD_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32); SCC = tmp >=
        // 0x100000000ULL ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        "s_add_u32" => {
            let t = s(0)? as u64 + s(1)? as u64;
            R::W32(t as u32, Some(t >= 1 << 32))
        }
        // S_SUB_U32: "tmp = S0.u32 - S1.u32; SCC = S1.u32 > S0.u32 ? 1'1U :
        // 1'0U; D0.u32 = tmp.u32".
        "s_sub_u32" => R::W32(s(0)?.wrapping_sub(s(1)?), Some(s(1)? > s(0)?)),
        // S_ADD_I32: "tmp = S0.i32 + S1.i32; SCC = ((S0.u32[31] ==
        // S1.u32[31]) && (S0.u32[31] != tmp.u32[31])); D0.i32 = tmp.i32".
        "s_add_i32" => {
            let (x, y) = (s(0)?, s(1)?);
            let t = x.wrapping_add(y);
            R::W32(t, Some(x >> 31 == y >> 31 && x >> 31 != t >> 31))
        }
        // S_SUB_I32: "tmp = S0.i32 - S1.i32; SCC = ((S0.u32[31] !=
        // S1.u32[31]) && (S0.u32[31] != tmp.u32[31]))".
        "s_sub_i32" => {
            let (x, y) = (s(0)?, s(1)?);
            let t = x.wrapping_sub(y);
            R::W32(t, Some(x >> 31 != y >> 31 && x >> 31 != t >> 31))
        }
        // S_ADDC_U32: "tmp = 64'U(S0.u32) + 64'U(S1.u32) + SCC.u64; SCC =
        // tmp >= 0x100000000ULL ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        "s_addc_u32" => {
            let t = s(0)? as u64 + s(1)? as u64 + scc;
            R::W32(t as u32, Some(t >= 1 << 32))
        }
        // S_SUBB_U32: "tmp = S0.u32 - S1.u32 - SCC.u32; SCC = 64'U(S1.u32) +
        // SCC.u64 > 64'U(S0.u32) ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        "s_subb_u32" => {
            let (x, y) = (s(0)?, s(1)?);
            R::W32(
                x.wrapping_sub(y).wrapping_sub(scc as u32),
                Some(y as u64 + scc > x as u64),
            )
        }
        // S_ABSDIFF_I32: "D0.i32 = S0.i32 - S1.i32; if D0.i32 < 0 then
        // D0.i32 = -D0.i32 endif; SCC = D0.u32 != 0U".
        "s_absdiff_i32" => {
            let d = (s(0)? as i32).wrapping_sub(s(1)? as i32);
            nz(if d < 0 { d.wrapping_neg() } else { d } as u32)
        }
        // S_LSHL_B32: "D0.u32 = (S0.u32 << S1[4 : 0].u32); SCC = D0.u32 != 0U".
        "s_lshl_b32" => nz(s(0)? << (s(1)? & 31)),
        "s_lshr_b32" => nz(s(0)? >> (s(1)? & 31)),
        // S_ASHR_I32: "D0.i32 = 32'I(signext(S0.i32) >> S1[4 : 0].u32)".
        "s_ashr_i32" => nz(((s(0)? as i32) >> (s(1)? & 31)) as u32),
        // S_LSHL_B64: "D0.u64 = (S0.u64 << S1[5 : 0].u32); SCC = D0.u64 != 0ULL".
        "s_lshl_b64" => nz64(s64(0)? << (s(1)? & 63)),
        "s_lshr_b64" => nz64(s64(0)? >> (s(1)? & 63)),
        "s_ashr_i64" => nz64(((s64(0)? as i64) >> (s(1)? & 63)) as u64),
        // S_LSHL2_ADD_U32: "tmp = (64'U(S0.u32) << 2U) + 64'U(S1.u32); SCC =
        // tmp >= 0x100000000ULL ? 1'1U : 1'0U; D0.u32 = tmp.u32".
        // S_LSHL1/3/4_ADD_U32: the same with << 1U / << 3U / << 4U.
        "s_lshl1_add_u32" | "s_lshl2_add_u32" | "s_lshl3_add_u32" | "s_lshl4_add_u32" => {
            let sh = match name {
                "s_lshl1_add_u32" => 1,
                "s_lshl2_add_u32" => 2,
                "s_lshl3_add_u32" => 3,
                _ => 4,
            };
            let t = ((s(0)? as u64) << sh) + s(1)? as u64;
            R::W32(t as u32, Some(t >= 1 << 32))
        }
        // S_MIN_I32: "SCC = S0.i32 < S1.i32; D0.i32 = SCC ? S0.i32 : S1.i32".
        "s_min_i32" => {
            let c = (s(0)? as i32) < (s(1)? as i32);
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        "s_min_u32" => {
            let c = s(0)? < s(1)?;
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        // S_MAX_I32: "SCC = S0.i32 >= S1.i32; D0.i32 = SCC ? S0.i32 : S1.i32".
        "s_max_i32" => {
            let c = (s(0)? as i32) >= (s(1)? as i32);
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        "s_max_u32" => {
            let c = s(0)? >= s(1)?;
            R::W32(if c { s(0)? } else { s(1)? }, Some(c))
        }
        // S_AND_B32: "D0.u32 = (S0.u32 & S1.u32); SCC = D0.u32 != 0U"; OR, XOR alike.
        "s_and_b32" => nz(s(0)? & s(1)?),
        "s_or_b32" => nz(s(0)? | s(1)?),
        "s_xor_b32" => nz(s(0)? ^ s(1)?),
        "s_and_b64" => nz64(s64(0)? & s64(1)?),
        "s_xor_b64" => nz64(s64(0)? ^ s64(1)?),
        // S_BFE_U32: "D0.u32 = ((S0.u32 >> S1[4 : 0].u32) & ((1U << S1[22 :
        // 16].u32) - 1U)); SCC = D0.u32 != 0U".
        "s_bfe_u32" => {
            let c = s(1)?;
            nz(bfe_u(s(0)? as u64, c & 31, (c >> 16) & 0x7f, 32) as u32)
        }
        // S_BFE_I32: "tmp.i32 = ((S0.i32 >> S1[4 : 0].u32) & ((1 << S1[22 :
        // 16].u32) - 1)); D0.i32 = signext_from_bit(tmp.i32, S1[22 :
        // 16].u32); SCC = D0.i32 != 0".
        "s_bfe_i32" => {
            let c = s(1)?;
            nz(bfe_i(s(0)? as u64, c & 31, (c >> 16) & 0x7f, 32) as u32)
        }
        // S_BFE_U64 / S_BFE_I64: the same at 64 bits, offset S1[5 : 0].
        "s_bfe_u64" => {
            let c = s(1)?;
            nz64(bfe_u(s64(0)?, c & 63, (c >> 16) & 0x7f, 64))
        }
        "s_bfe_i64" => {
            let c = s(1)?;
            nz64(bfe_i(s64(0)?, c & 63, (c >> 16) & 0x7f, 64))
        }
        // S_MUL_I32: "D0.i32 = S0.i32 * S1.i32" (SCC unchanged).
        "s_mul_i32" => R::W32(s(0)?.wrapping_mul(s(1)?), None),
        // S_MUL_HI_U32: "D0.u32 = 32'U((64'U(S0.u32) * 64'U(S1.u32)) >> 32U)".
        "s_mul_hi_u32" => R::W32(((s(0)? as u64 * s(1)? as u64) >> 32) as u32, None),
        // S_MUL_HI_I32: "D0.i32 = 32'I((64'I(S0.i32) * 64'I(S1.i32)) >> 32U)".
        "s_mul_hi_i32" => R::W32(
            ((s(0)? as i32 as i64 * s(1)? as i32 as i64) >> 32) as u32,
            None,
        ),
        // S_CSELECT_B32: "D0.u32 = SCC ? S0.u32 : S1.u32".
        "s_cselect_b32" => R::W32(if scc == 1 { s(0)? } else { s(1)? }, None),
        // S_CSELECT_B64: "D0.u64 = SCC ? S0.u64 : S1.u64".
        "s_cselect_b64" => R::W64(if scc == 1 { s64(0)? } else { s64(1)? }, None),
        // S_OR_B64: "D0.u64 = (S0.u64 | S1.u64); SCC = D0.u64 != 0ULL".
        "s_or_b64" => nz64(s64(0)? | s64(1)?),
        // S_NAND_B32: "D0.u32 = ~(S0.u32 & S1.u32); SCC = D0.u32 != 0U".
        "s_nand_b32" => nz(!(s(0)? & s(1)?)),
        // S_XNOR_B32: "D0.u32 = ~(S0.u32 ^ S1.u32); SCC = D0.u32 != 0U".
        "s_xnor_b32" => nz(!(s(0)? ^ s(1)?)),
        // S_AND_NOT1_B32: "D0.u32 = (S0.u32 & ~S1.u32); SCC = D0.u32 != 0U".
        "s_and_not1_b32" => nz(s(0)? & !s(1)?),
        // S_BFM_B32: "D0.u32 = (((1U << S0[4 : 0].u32) - 1U) << S1[4 : 0].u32)"
        // (SCC unchanged).
        "s_bfm_b32" => R::W32((((1u64 << (s(0)? & 31)) - 1) as u32) << (s(1)? & 31), None),
        // S_PACK_LL_B32_B16: "D0 = { S1[15 : 0].u16, S0[15 : 0].u16 }";
        // _LH: { S1[31 : 16], S0[15 : 0] }; _HH: { S1[31 : 16], S0[31 : 16] };
        // _HL: { S1[15 : 0], S0[31 : 16] }.
        "s_pack_ll_b32_b16" => R::W32(s(1)? << 16 | (s(0)? & 0xffff), None),
        "s_pack_lh_b32_b16" => R::W32((s(1)? & 0xffff_0000) | (s(0)? & 0xffff), None),
        "s_pack_hh_b32_b16" => R::W32((s(1)? & 0xffff_0000) | s(0)? >> 16, None),
        "s_pack_hl_b32_b16" => R::W32(s(1)? << 16 | s(0)? >> 16, None),
        // SOP1. S_MOV_B32: "D0.b32 = S0.b32".
        "s_mov_b32" => R::W32(s(0)?, None),
        // S_BREV_B32: "D0.u32[31 : 0] = S0.u32[0 : 31]".
        "s_brev_b32" => R::W32(s(0)?.reverse_bits(), None),
        // S_CTZ_I32_B32: "tmp = -1; for i in 0 : 31 do if S0.u32[i] == 1'1U
        // then tmp = i; break ... D0.i32 = tmp" (SCC unchanged).
        "s_ctz_i32_b32" => R::W32(first_one(0..32, s(0)?), None),
        // S_CLZ_I32_U32: "tmp = -1; for i in 0 : 31 do if S0.u32[31 - i] ==
        // 1'1U then tmp = i; break".
        "s_clz_i32_u32" => R::W32(first_one((0..32).map(|k| 31 - k), s(0)?), None),
        // S_SEXT_I32_I8: "D0.i32 = 32'I(signext(S0.i8))".
        "s_sext_i32_i8" => R::W32(sext(s(0)? as u64 & 0xff, 8) as u32, None),
        "s_sext_i32_i16" => R::W32(sext(s(0)? as u64 & 0xffff, 16) as u32, None),
        // S_ABS_I32: "D0.i32 = S0.i32 < 0 ? -S0.i32 : S0.i32; SCC = D0.i32 != 0".
        "s_abs_i32" => {
            let x = s(0)? as i32;
            nz(if x < 0 { x.wrapping_neg() } else { x } as u32)
        }
        // S_BCNT1_I32_B32: "tmp = 0; for i in 0 : 31 do tmp += S0.u32[i] ==
        // 1'1U ? 1 : 0 endfor; D0.i32 = tmp; SCC = D0.u32 != 0U".
        "s_bcnt1_i32_b32" => nz((0..32)
            .map(|b| s(0).map(|x| x >> b & 1))
            .sum::<Result<u32, _>>()?),
        // S_NOT_B32: "D0.u32 = ~S0.u32; SCC = D0.u32 != 0U".
        "s_not_b32" => nz(!s(0)?),
        // S_CMOV_B32: "if SCC then D0.b32 = S0.b32 endif".
        "s_cmov_b32" => R::W32(if scc == 1 { s(0)? } else { old_dst()? }, None),
        // S_BREV_B64: "D0.u64[63 : 0] = S0.u64[0 : 63]".
        "s_brev_b64" => R::W64(s64(0)?.reverse_bits(), None),
        // S_CTZ_I32_B64: "tmp = -1; for i in 0 : 63 do if S0.u64[i] == 1'1U
        // then tmp = i; break ... D0.i32 = tmp".
        "s_ctz_i32_b64" => R::W32(first_one(0..64, s64(0)?), None),
        // S_CLS_I32: "tmp = -1; for i in 1 : 31 do if S0.u32[31 - i] !=
        // S0.u32[31] then tmp = i; break ... D0.i32 = tmp".
        "s_cls_i32" => R::W32(cls_i32(s(0)?), None),
        // S_BITSET0_B32: "D0.u32[S0.u32[4 : 0]] = 1'0U"; _BITSET1: 1'1U (the
        // other bits of D0 kept).
        "s_bitset0_b32" => R::W32(old_dst()? & !(1 << (s(0)? & 31)), None),
        "s_bitset1_b32" => R::W32(old_dst()? | 1 << (s(0)? & 31), None),
        // S_BITREPLICATE_B64_B32: "tmp = S0.u32; for i in 0 : 31 do
        // D0.u64[i * 2] = tmp[i]; D0.u64[i * 2 + 1] = tmp[i] endfor".
        "s_bitreplicate_b64_b32" => {
            let x = s(0)? as u64;
            R::W64((0..32).map(|i| (x >> i & 1) * (3 << (2 * i))).sum(), None)
        }
        // S_BCNT0_I32_B32: "tmp = 0; for i in 0 : 31 do tmp += S0.u32[i] ==
        // 1'0U ? 1 : 0 endfor; D0.i32 = tmp; SCC = D0.u32 != 0U".
        "s_bcnt0_i32_b32" => nz((0..32)
            .map(|b| s(0).map(|x| 1 - (x >> b & 1)))
            .sum::<Result<u32, _>>()?),
        // S_QUADMASK_B32: "tmp = 0U; for i in 0 : 7 do tmp[i] = S0.u32[i * 4
        // +: 4] != 0U endfor; D0.u32 = tmp; SCC = D0.u32 != 0U".
        "s_quadmask_b32" => {
            let x = s(0)?;
            nz((0..8)
                .map(|i| ((x >> (4 * i) & 0xf != 0) as u32) << i)
                .sum())
        }
        // S_WQM_B32: "tmp = 0U; for i in 0 : 31 do tmp[i] = S0.u32[i & 60 +:
        // 4] != 0U endfor; D0.u32 = tmp; SCC = D0.u32 != 0U".
        "s_wqm_b32" => {
            let x = s(0)?;
            nz((0..32)
                .map(|i| ((x >> (i & 60) & 0xf != 0) as u32) << i)
                .sum())
        }
        // S_NAND_B64: "D0.u64 = ~(S0.u64 & S1.u64); SCC = D0.u64 != 0ULL";
        // S_NOR_B32: "D0.u32 = ~(S0.u32 | S1.u32)"; S_NOR_B64, S_XNOR_B64 alike.
        "s_nand_b64" => nz64(!(s64(0)? & s64(1)?)),
        "s_nor_b32" => nz(!(s(0)? | s(1)?)),
        "s_nor_b64" => nz64(!(s64(0)? | s64(1)?)),
        "s_xnor_b64" => nz64(!(s64(0)? ^ s64(1)?)),
        // S_AND_NOT1_B64: "D0.u64 = (S0.u64 & ~S1.u64)"; S_OR_NOT1_B32:
        // "D0.u32 = (S0.u32 | ~S1.u32)"; S_OR_NOT1_B64 alike; SCC = D0 != 0.
        "s_and_not1_b64" => nz64(s64(0)? & !s64(1)?),
        "s_or_not1_b32" => nz(s(0)? | !s(1)?),
        "s_or_not1_b64" => nz64(s64(0)? | !s64(1)?),
        // S_BFM_B64: "D0.u64 = (((1ULL << S0[5 : 0].u32) - 1ULL) << S1[5 :
        // 0].u32)" (SCC unchanged).
        "s_bfm_b64" => R::W64(ones(s(0)? & 63) << (s(1)? & 63), None),
        // S_MOV_B64: "D0.b64 = S0.b64"; S_CMOV_B64: "if SCC then D0.b64 =
        // S0.b64 endif".
        "s_mov_b64" => R::W64(s64(0)?, None),
        "s_cmov_b64" => R::W64(if scc == 1 { s64(0)? } else { old_dst64()? }, None),
        // S_CLZ_I32_U64: "tmp = -1; for i in 0 : 63 do if S0.u64[63 - i] ==
        // 1'1U then tmp = i; break ... D0.i32 = tmp".
        "s_clz_i32_u64" => R::W32(first_one((0..64).map(|k| 63 - k), s64(0)?), None),
        // S_CLS_I32_I64: "tmp = -1; for i in 1 : 63 do if S0.u64[63 - i] !=
        // S0.u64[63] then tmp = i; break ... D0.i32 = tmp".
        "s_cls_i32_i64" => {
            let x = s64(0)?;
            R::W32(
                (1..64)
                    .find(|k| (x >> (63 - k)) & 1 != x >> 63)
                    .unwrap_or(u32::MAX),
                None,
            )
        }
        // S_BITSET0_B64: "D0.u64[S0.u32[5 : 0]] = 1'0U"; _BITSET1: 1'1U.
        "s_bitset0_b64" => R::W64(old_dst64()? & !(1u64 << (s(0)? & 63)), None),
        "s_bitset1_b64" => R::W64(old_dst64()? | 1u64 << (s(0)? & 63), None),
        // S_BCNT0_I32_B64: "tmp = 0; for i in 0 : 63 do tmp += S0.u64[i] ==
        // 1'0U ? 1 : 0 endfor; D0.i32 = tmp; SCC = D0.u64 != 0ULL";
        // S_BCNT1_I32_B64: "... == 1'1U ? 1 : 0".
        "s_bcnt0_i32_b64" => nz((0..64)
            .map(|b| s64(0).map(|x| 1 - (x >> b & 1) as u32))
            .sum::<Result<u32, _>>()?),
        "s_bcnt1_i32_b64" => nz((0..64)
            .map(|b| s64(0).map(|x| (x >> b & 1) as u32))
            .sum::<Result<u32, _>>()?),
        // S_QUADMASK_B64: "for i in 0 : 15 do tmp[i] = S0.u64[i * 4 +: 4] !=
        // 0ULL endfor; D0.u64 = tmp; SCC = D0.u64 != 0ULL".
        "s_quadmask_b64" => {
            let x = s64(0)?;
            nz64(
                (0..16)
                    .map(|i| ((x >> (4 * i) & 0xf != 0) as u64) << i)
                    .sum(),
            )
        }
        // S_WQM_B64: "for i in 6'0U : 6'63U do tmp[i] = S0.u64[i & 6'60U +:
        // 6'4U] != 0ULL endfor; D0.u64 = tmp; SCC = D0.u64 != 0ULL".
        "s_wqm_b64" => {
            let x = s64(0)?;
            nz64(
                (0..64)
                    .map(|i| ((x >> (i & 60) & 0xf != 0) as u64) << i)
                    .sum(),
            )
        }
        // S_NOT_B64: "D0.u64 = ~S0.u64; SCC = D0.u64 != 0ULL".
        "s_not_b64" => nz64(!s64(0)?),
        // The saveexec family, e.g. S_AND_SAVEEXEC_B32: "saveexec = EXEC.u32;
        // EXEC.u32 = (S0.u32 & EXEC.u32); D0.u32 = saveexec.u32; SCC =
        // EXEC.u32 != 0U"; _OR_ "(S0 | EXEC)", _XOR_ "(S0 ^ EXEC)", _NAND_
        // "~(S0 & EXEC)", _NOR_ "~(S0 | EXEC)", _XNOR_ "~(S0 ^ EXEC)",
        // _AND_NOT0_ "(~S0 & EXEC)", _OR_NOT0_ "(~S0 | EXEC)", _AND_NOT1_
        // "(S0 & ~EXEC)", _OR_NOT1_ "(S0 | ~EXEC)"; _B64 on EXEC.u64. The
        // wrexec forms, S_AND_NOT0_WREXEC_B32: "EXEC.u32 = (~S0.u32 &
        // EXEC.u32); D0.u32 = EXEC.u32; SCC = EXEC.u32 != 0U"; _AND_NOT1_
        // "(S0.u32 & ~EXEC.u32)". A _B32 form leaves EXEC_HI alone.
        _ if name.contains("_saveexec_b") || name.contains("_wrexec_b") => {
            let wide = name.ends_with("_b64");
            let width = if wide { u64::MAX } else { 0xffff_ffff };
            let e = m.st.exec & width;
            let x = if wide { s64(0)? } else { s(0)? as u64 };
            let kind = name
                .trim_start_matches("s_")
                .split("_saveexec")
                .next()
                .and_then(|k| k.split("_wrexec").next())
                .unwrap_or("");
            let new = width
                & match kind {
                    "and" => x & e,
                    "or" => x | e,
                    "xor" => x ^ e,
                    "nand" => !(x & e),
                    "nor" => !(x | e),
                    "xnor" => !(x ^ e),
                    "and_not0" => !x & e,
                    "or_not0" => !x | e,
                    "and_not1" => x & !e,
                    "or_not1" => x | !e,
                    other => return Err(format!("no pseudocode for {other} saveexec")),
                };
            exec_after = Some((m.st.exec & !width) | new);
            let d = if name.contains("_wrexec_") { new } else { e };
            if wide {
                R::W64(d, Some(new != 0))
            } else {
                R::W32(d as u32, Some(new != 0))
            }
        }
        // SOPK. S_MOVK_I32: "D0.i32 = 32'I(signext(SIMM16.i16))";
        // S_CMOVK_I32: "if SCC then D0.i32 = 32'I(signext(SIMM16.i16))
        // endif".
        "s_movk_i32" => R::W32(simm16()? as i16 as u32, None),
        "s_cmovk_i32" => R::W32(
            if scc == 1 {
                simm16()? as i16 as u32
            } else {
                old_dst()?
            },
            None,
        ),
        // S_CMPK_EQ_I32: "SCC = 64'I(S0.i32) == signext(SIMM16.i16)" (LG
        // !=, GT >, GE >=, LT <, LE <=); S_CMPK_EQ_U32: "SCC = S0.u32 ==
        // 32'U(SIMM16.u16)" (the immediate zero-extended).
        _ if name.starts_with("s_cmpk_") => {
            let (x, k) = if name.ends_with("_i32") {
                (s(0)? as i32 as i64, simm16()? as i16 as i64)
            } else {
                (s(0)? as i64, simm16()? as i64)
            };
            R::Scc(match &name[7..9] {
                "eq" => x == k,
                "lg" => x != k,
                "gt" => x > k,
                "ge" => x >= k,
                "lt" => x < k,
                "le" => x <= k,
                other => return Err(format!("s_cmpk condition {other}")),
            })
        }
        // S_ADDK_I32: "tmp = D0.i32; D0.i32 = 32'I(64'I(D0.i32) +
        // signext(SIMM16.i16)); SCC = ((tmp[31] == SIMM16.i16[15]) &&
        // (tmp[31] != D0.i32[31]))".
        "s_addk_i32" => {
            let (t, k) = (old_dst()?, simm16()?);
            let d = t.wrapping_add(k as i16 as u32);
            R::W32(d, Some(t >> 31 == (k >> 15) as u32 && t >> 31 != d >> 31))
        }
        // S_MULK_I32: "D0.i32 = 32'I(64'I(D0.i32) * signext(SIMM16.i16))"
        // (SCC unchanged).
        "s_mulk_i32" => R::W32(old_dst()?.wrapping_mul(simm16()? as i16 as u32), None),
        // SOPC: "SCC = S0.i32 == S1.i32" etc.
        "s_cmp_lg_i32" => R::Scc(s(0)? != s(1)?),
        "s_cmp_gt_i32" => R::Scc((s(0)? as i32) > (s(1)? as i32)),
        "s_cmp_le_i32" => R::Scc((s(0)? as i32) <= (s(1)? as i32)),
        "s_cmp_eq_u32" => R::Scc(s(0)? == s(1)?),
        "s_cmp_ge_u32" => R::Scc(s(0)? >= s(1)?),
        "s_cmp_lt_u32" => R::Scc(s(0)? < s(1)?),
        // S_BITCMP0_B32: "SCC = S0.u32[S1.u32[4 : 0]] == 1'0U".
        "s_bitcmp0_b32" => R::Scc(s(0)? >> (s(1)? & 31) & 1 == 0),
        // S_BITCMP1_B64: "SCC = S0.u64[S1.u32[5 : 0]] == 1'1U".
        "s_bitcmp1_b64" => R::Scc(s64(0)? >> (s(1)? & 63) & 1 == 1),
        // S_CMP_EQ_U64: "SCC = S0.u64 == S1.u64".
        "s_cmp_eq_u64" => R::Scc(s64(0)? == s64(1)?),
        "s_cmp_eq_i32" => R::Scc(s(0)? == s(1)?),
        "s_cmp_lt_i32" => R::Scc((s(0)? as i32) < (s(1)? as i32)),
        "s_cmp_gt_u32" => R::Scc(s(0)? > s(1)?),
        "s_cmp_le_u32" => R::Scc(s(0)? <= s(1)?),
        // S_BITCMP1_B32: "SCC = S0.u32[S1.u32[4 : 0]] == 1'1U".
        "s_bitcmp1_b32" => R::Scc(s(0)? >> (s(1)? & 31) & 1 == 1),
        // S_CMP_LG_U64: "SCC = S0.u64 != S1.u64".
        "s_cmp_lg_u64" => R::Scc(s64(0)? != s64(1)?),
        "s_cmp_ge_i32" => R::Scc((s(0)? as i32) >= (s(1)? as i32)),
        "s_cmp_lg_u32" => R::Scc(s(0)? != s(1)?),
        // S_BITCMP0_B64: "SCC = S0.u64[S1.u32[5 : 0]] == 1'0U".
        "s_bitcmp0_b64" => R::Scc(s64(0)? >> (s(1)? & 63) & 1 == 0),
        other => return Err(format!("no pseudocode for {other}")),
    };
    match r {
        R::W32(v, c) => {
            m.ws32(i.dst, v)?;
            if let Some(c) = c {
                m.st.scc = c;
            }
        }
        R::W64(v, c) => {
            match i.dst {
                Some(Opnd::S(n)) => m.ws64(n, v)?,
                other => return Err(format!("{other:?} is not an SGPR pair")),
            }
            if let Some(c) = c {
                m.st.scc = c;
            }
        }
        R::Scc(c) => m.st.scc = c,
    }
    if let Some(e) = exec_after {
        m.st.exec = e;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Running programs.
// ---------------------------------------------------------------------------

/// The slot of the harness in `co`: its vaddr and length in dwords, after
/// checking it holds only `s_nop 0` (so a program is never written over
/// anything else).
pub fn find_slot(co: &CodeObject) -> Result<(u64, usize), QualifyError> {
    let bad = |why: String| QualifyError::Corpus(format!("{HARNESS}'s program slot: {why}"));
    co.kernel(HARNESS).map_err(|e| bad(e.to_string()))?;
    let start = co
        .symbol_vaddr(SLOT)
        .ok_or_else(|| bad(format!("no label {SLOT}")))?;
    let end = co
        .symbol_vaddr(SLOT_END)
        .ok_or_else(|| bad(format!("no label {SLOT_END}")))?;
    if end <= start || (end - start) % 4 != 0 {
        return Err(bad(format!("labels at {start:#x}..{end:#x}")));
    }
    let len = ((end - start) / 4) as usize;
    let bytes = co
        .read_vaddr(start, len as u64 * 4)
        .map_err(|e| bad(e.to_string()))?;
    if let Some(k) = bytes
        .chunks_exact(4)
        .position(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) != S_NOP_0)
    {
        return Err(bad(format!("dword {k} is not s_nop 0")));
    }
    Ok((start, len))
}

/// `code` (an ELF code object with the harness) with `insts` written at
/// the start of the harness's slot; the rest of the slot stays s_nop.
pub fn program(code: &[u8], insts: &[Inst], wave64: bool) -> Result<Vec<u8>, QualifyError> {
    let bad = |why: String| QualifyError::Corpus(format!("ALU program: {why}"));
    let co = CodeObject::parse(code).map_err(|e| bad(e.to_string()))?;
    let (vaddr, len) = find_slot(&co)?;
    let mut words = Vec::new();
    for i in insts {
        words.extend(i.encode(wave64).map_err(|e| bad(e.to_string()))?);
    }
    if words.len() > len {
        return Err(bad(format!(
            "{} dwords do not fit the {len}-dword slot",
            words.len()
        )));
    }
    let off = co
        .file_offset(vaddr, len as u64 * 4)
        .map_err(|e| bad(e.to_string()))? as usize;
    let mut out = code.to_vec();
    for (k, w) in words.iter().enumerate() {
        out[off + 4 * k..off + 4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    Ok(out)
}

/// The launch of the harness on `input`.
pub fn dispatch<'a>(code: &'a [u8], input: &AluState, timeout: Duration) -> Dispatch<'a> {
    let lanes = input.v.len();
    let vin: Vec<u8> = input
        .v
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut sin: Vec<u32> = input.s.to_vec();
    sin.extend([
        input.vcc as u32,
        (input.vcc >> 32) as u32,
        input.exec as u32,
        (input.exec >> 32) as u32,
        input.scc as u32,
    ]);
    let sin: Vec<u8> = sin.iter().flat_map(|x| x.to_le_bytes()).collect();
    Dispatch {
        code_object: code,
        kernel: HARNESS,
        groups: 1,
        block: lanes as u32,
        dynamic_lds: 0,
        buffers: vec![
            vin,
            sin,
            vec![0xa5; lanes * BLOCK * 4],
            vec![0xa5; SCALAR_DWORDS * 4],
        ],
        args: vec![
            ArgValue::Buffer(0),
            ArgValue::Buffer(1),
            ArgValue::Buffer(2),
            ArgValue::Buffer(3),
        ],
        timeout,
    }
}

/// The state the harness stored (`buffers` of a completed [`dispatch`]).
/// Wave32: EXEC's high half is dropped (not a mask there).
pub fn read_back(buffers: &[Vec<u8>], lanes: usize) -> Result<AluState, String> {
    let dwords = |b: &Vec<u8>| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let (Some(v), Some(s)) = (buffers.get(2), buffers.get(3)) else {
        return Err("the launch returned fewer than 4 buffers".into());
    };
    let (v, s) = (dwords(v), dwords(s));
    if v.len() != lanes * BLOCK || s.len() != SCALAR_DWORDS {
        return Err(format!(
            "buffers of {} and {} dwords, expected {} and {SCALAR_DWORDS}",
            v.len(),
            s.len(),
            lanes * BLOCK
        ));
    }
    let exec = s[10] as u64 | (s[11] as u64) << 32;
    Ok(AluState {
        v: v.chunks_exact(BLOCK)
            .map(|c| std::array::from_fn(|k| c[k]))
            .collect(),
        s: std::array::from_fn(|k| s[k]),
        vcc: s[8] as u64 | (s[9] as u64) << 32,
        exec: exec & wave_mask(lanes as u32),
        scc: s[12] != 0,
    })
}

/// What the record says of one ALU program name.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AluResult {
    /// The instruction (its table mnemonic) or chain name.
    pub instruction: String,
    pub waves: Vec<WaveSize>,
    pub programs: u64,
    /// Programs where the device, the software device and the pseudocode
    /// left the same register block.
    pub agreed: u64,
    pub qualified: bool,
}

/// One ALU disagreement: the program, its input and the three outputs.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AluDisagreement {
    pub instruction: String,
    pub wave: WaveSize,
    pub exec: ExecPattern,
    /// The program: LLVM text and its words, one instruction a line.
    pub program: String,
    pub summary: String,
    pub input: AluState,
    /// The device's block; empty (no lanes, every scalar 0) when it did not
    /// complete the program (`device_unfinished`).
    pub device: AluState,
    /// The software device's block; empty when `emu_unfinished`.
    pub emu: AluState,
    pub pseudocode: AluState,
    /// The device faulted or timed out on the program: a finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_unfinished: Option<Unfinished>,
    /// The software device faulted or timed out on the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emu_unfinished: Option<Unfinished>,
}

/// Run `cases` programs per name of `names` and wave size of `objects` on
/// both devices and the pseudocode. A program that faults or times out on
/// either side is a disagreement ([`Unfinished`]).
#[allow(clippy::too_many_arguments)]
pub fn qualify_alu(
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    objects: &[(WaveSize, &[u8])],
    names: &[&str],
    seed: u64,
    cases: u64,
    timeout: Duration,
    progress: &mut dyn FnMut(&AluResult),
) -> Result<(Vec<AluResult>, Vec<AluDisagreement>), QualifyError> {
    let mut results = Vec::new();
    let mut disagreements = Vec::new();
    qualify_alu_into(
        &mut results,
        &mut disagreements,
        device,
        emu,
        objects,
        names,
        seed,
        cases,
        timeout,
        progress,
    )?;
    Ok((results, disagreements))
}

/// [`qualify_alu`] into `results` and `disagreements`: on an error, what ran
/// before it is there (the name it stopped in with the programs that ran,
/// not qualified).
#[allow(clippy::too_many_arguments)]
pub fn qualify_alu_into(
    results: &mut Vec<AluResult>,
    disagreements: &mut Vec<AluDisagreement>,
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    objects: &[(WaveSize, &[u8])],
    names: &[&str],
    seed: u64,
    cases: u64,
    timeout: Duration,
    progress: &mut dyn FnMut(&AluResult),
) -> Result<(), QualifyError> {
    let all = corpus_names();
    for name in names {
        if !all.contains(name) {
            return Err(QualifyError::Corpus(format!(
                "{name} is not in the ALU corpus"
            )));
        }
        let waves: Vec<WaveSize> = objects
            .iter()
            .map(|(w, _)| *w)
            .filter(|w| *w == WaveSize::Wave32 || !wave32_only(name))
            .filter(|w| *w == WaveSize::Wave64 || !wave64_only(name))
            .collect();
        let mut r = AluResult {
            instruction: name.to_string(),
            waves: waves.clone(),
            programs: 0,
            agreed: 0,
            qualified: false,
        };
        let ran = run_alu_name(
            name,
            device,
            emu,
            objects,
            &waves,
            seed,
            cases,
            timeout,
            &mut r,
            disagreements,
        );
        r.qualified = ran.is_ok() && r.programs > 0 && r.agreed == r.programs;
        progress(&r);
        results.push(r);
        ran?;
    }
    Ok(())
}

/// The programs of one name, counted in `r`, their disagreements pushed on
/// `disagreements` as they are found.
#[allow(clippy::too_many_arguments)]
fn run_alu_name(
    name: &str,
    device: &mut dyn Backend,
    emu: &mut dyn Backend,
    objects: &[(WaveSize, &[u8])],
    waves: &[WaveSize],
    seed: u64,
    cases: u64,
    timeout: Duration,
    r: &mut AluResult,
    disagreements: &mut Vec<AluDisagreement>,
) -> Result<(), QualifyError> {
    for (wave, code) in objects.iter().filter(|(w, _)| waves.contains(w)) {
        let wave64 = *wave == WaveSize::Wave64;
        for k in 0..cases {
            let insts = program_for(name, wave64, seed, k)?;
            let bytes = program(code, &insts, wave64)?;
            let (mut input, exec) = input(seed, *wave, k);
            replicate_wmma_inputs(&insts, &mut input);
            let lanes = input.v.len();
            // The block the program left, or the fault or timeout it ended
            // with (a finding); anything else ends the run.
            let run = |b: &mut dyn Backend,
                       side: &'static str|
             -> Result<SideRun<AluState>, QualifyError> {
                let d = dispatch(&bytes, &input, timeout);
                match b.dispatch(&d) {
                    Ok(c) => read_back(&c.buffers, lanes)
                        .map(Ok)
                        .map_err(|e| QualifyError::Corpus(format!("{side}: {e}"))),
                    Err(e) => Unfinished::from_backend(e)
                        .map(Err)
                        .map_err(|error| QualifyError::Device { side, error }),
                }
            };
            let on_device = run(device, "device")?;
            let on_emu = run(emu, "emu")?;
            let mut want = input.clone();
            run_pseudocode(&insts, &mut want, wave64)
                .map_err(|e| QualifyError::Corpus(format!("pseudocode of {name}: {e}")))?;
            want.exec &= wave_mask(lanes as u32);
            r.programs += 1;
            if on_device.as_ref() == Ok(&want) && on_emu.as_ref() == Ok(&want) {
                r.agreed += 1;
                continue;
            }
            let summary = summary(
                agrees(&on_device, &want),
                agrees(&on_emu, &want),
                on_device == on_emu,
            );
            let (device, device_unfinished) = split(on_device);
            let (emu, emu_unfinished) = split(on_emu);
            disagreements.push(AluDisagreement {
                instruction: name.to_string(),
                wave: *wave,
                exec,
                program: crate::isa::alu::listing(&insts, wave64),
                summary,
                input,
                device,
                emu,
                pseudocode: want,
                device_unfinished,
                emu_unfinished,
            });
        }
    }
    Ok(())
}

/// The integer WMMAs, from the RDNA3 guide: the pseudocode
/// (V_WMMA_I32_16X16X16_IU8: "saved_exec = EXEC; EXEC = 64'B(-1); eval
/// "D0.i32(16x16) = S0.iu8(16x16) * S1.iu8(16x16) + S2.i32(16x16)"; EXEC =
/// saved_exec"; IU4 with `iu4`) and §7.9's VGPR views, read from the
/// register side: lane m of A's VGPRs holds row m of A ("A Matrix: VGPR
/// View for Wave32 – Column Major"), its 16 K elements packed from bit 0 of
/// the first VGPR up, 8 or 4 bits each; lane n of B's holds column n of B
/// the same way; VGPR v of C/D holds rows (lanes / 16) * v + lane / 16,
/// column lane % 16 ("one VGPR holds 2 rows"; "Wave64: ... V0 holds rows
/// 0-3"); "NEG[1:0] ... whether the inputs are signed or not (0=unsigned,
/// 1=signed)", NEG[0] for A, NEG[1] for B. Restating `emu::wmma`'s policies
/// where the guide is silent or disagrees: every lane is written
/// ("wmma-exec-all-lanes", the pseudocode's EXEC = -1); clamp saturates the
/// exact sum to i32, without it the sum wraps ("wmma-clamp-saturates";
/// §7.2.3.1 says WMMA ignores clamp, LLVM encodes its intrinsic's clamp
/// there); copies of A/B that differ across the 16-lane groups are an
/// error ("wmma-unreplicated-error"), as is D overlapping A, B or
/// (without being it) C ("wmma-overlap-error").
fn wmma(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    let bits: usize = if name.ends_with("iu8") { 8 } else { 4 };
    let ab_regs = 16 * bits / 32;
    let cd_regs = 16 * 16 / m.lanes;
    let rows_per_vgpr = m.lanes / 16;
    let vgpr = |o: Option<&Opnd>, what: &str| match o {
        Some(Opnd::V(n)) => Ok(*n as usize),
        other => Err(format!("{name}: {what} is {other:?}, not a VGPR")),
    };
    let (a, b) = (vgpr(i.srcs.first(), "A")?, vgpr(i.srcs.get(1), "B")?);
    let d = match i.dst {
        Some(Opnd::V(n)) => n as usize,
        other => return Err(format!("{name}: D is {other:?}")),
    };
    let c = i.srcs.get(2).copied().ok_or(format!("{name}: no C"))?;
    let inter = |x: usize, nx: usize, y: usize, ny: usize| x < y + ny && y < x + nx;
    let c_bad =
        matches!(c, Opnd::V(n) if n as usize != d && inter(n as usize, cd_regs, d, cd_regs));
    if inter(a, ab_regs, d, cd_regs) || inter(b, ab_regs, d, cd_regs) || c_bad {
        return Err(format!("{name}: D overlaps A, B or C (wmma-overlap-error)"));
    }
    let reg = |m: &Machine, r: usize, l: usize| -> Result<u32, String> {
        Ok(m.st.v[l][Machine::vidx(r as u8, "operand")?])
    };
    // A[row][k] and B[k][col] as signed/unsigned values, from lanes 0-15,
    // after checking every other lane holds the same (the replication).
    let signed = [i.mods.neg_lo & 1 == 1, i.mods.neg_lo & 2 == 2];
    let mut mat = [[[0i64; 16]; 16]; 2];
    for (which, base) in [a, b].into_iter().enumerate() {
        for r in 0..ab_regs {
            for l in 16..m.lanes {
                if reg(m, base + r, l)? != reg(m, base + r, l % 16)? {
                    return Err(format!(
                        "{name}: v{} lane {l} is not a copy of lane {} (wmma-unreplicated-error)",
                        base + r,
                        l % 16
                    ));
                }
            }
            // Lane `mn` of the first 16: row mn of A, column mn of B.
            for mn in 0..16usize {
                let word = reg(m, base + r, mn)?;
                for e in 0..32 / bits {
                    let k = r * (32 / bits) + e;
                    let field = (word as u64 >> (e * bits)) & ((1 << bits) - 1);
                    let v = if signed[which] {
                        sext(field, bits as u32)
                    } else {
                        field as i64
                    };
                    let (row, col) = if which == 0 { (mn, k) } else { (k, mn) };
                    mat[which][row][col] = v;
                }
            }
        }
    }
    let mut writes = Vec::new();
    for v in 0..cd_regs {
        for l in 0..m.lanes {
            let (row, col) = (v * rows_per_vgpr + l / 16, l % 16);
            let acc = match c {
                Opnd::V(n) => reg(m, n as usize + v, l)? as i32 as i64,
                Opnd::Int(k) => k as i64,
                other => return Err(format!("{name}: C is {other:?}")),
            };
            let sum: i64 = acc
                + (0..16)
                    .map(|k| mat[0][row][k] * mat[1][k][col])
                    .sum::<i64>();
            let r = if i.mods.clamp {
                sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
            } else {
                sum as u32
            };
            writes.push((l, d + v, r));
        }
    }
    for (l, r, val) in writes {
        m.st.v[l][Machine::vidx(r as u8, "destination")?] = val;
    }
    Ok(())
}

/// The packed integer ops, dot products, v_maxmin/v_minmax, lane permutes
/// and quad SADs, from the guide's pseudocode ("VOP3P Instructions", "VOP3
/// & VOP3SD Instructions", "VOP1 Instructions"); None for other names.
///
/// Where the guide is silent (restating `emu::vext`'s named policies): a
/// packed source is its 32-bit value (integer inline constants
/// sign-extended to 32 bits), the low result half takes source k's half
/// `op_sel[k]`, the high half its half `op_sel_hi[k]` ("packed-halves");
/// clamp on v_pk_{add,sub} saturates each half ("packed-clamp"), on a dot
/// product the exact sum ("dot-clamp"); a v_permlane*16 source lane that is
/// inactive, with fetch-inactive clear, gives 0 under bound-ctrl and leaves
/// the lane alone otherwise ("permlane-inactive-source"); v_permlane64 in
/// wave32 does nothing ("permlane64-wave32-nop", the guide's words).
fn packed_and_lanes(m: &mut Machine, i: &AluInst, name: &str) -> Option<Result<(), String>> {
    let known = name.starts_with("v_pk_")
        || name.starts_with("v_dot")
        || name.starts_with("v_permlane")
        || name.starts_with("v_maxmin")
        || name.starts_with("v_minmax")
        || name.contains("qsad");
    known.then(|| packed_and_lanes_run(m, i, name))
}

fn packed_and_lanes_run(m: &mut Machine, i: &AluInst, name: &str) -> Result<(), String> {
    let src = |k: usize| -> Result<Opnd, String> {
        i.srcs
            .get(k)
            .copied()
            .ok_or_else(|| format!("{name}: source {k} missing"))
    };
    let d = dst_v(i.dst)?;
    let mods = i.mods;
    let lanes = m.lanes;
    // Per lane results: (lane, first VGPR offset, value).
    let mut writes: Vec<(usize, u8, u32)> = Vec::new();
    if name.starts_with("v_permlane") {
        let s0 = match src(0)? {
            Opnd::V(n) => Machine::vidx(n, "source")?,
            other => return Err(format!("{name}: src0 {other:?} is not a VGPR")),
        };
        // "for i in 0 : WAVE32 ? 31 : 63 do tmp[i] = VGPR[i][SRC0.u32]".
        let tmp: Vec<u32> = (0..lanes).map(|l| m.st.v[l][s0]).collect();
        if name == "v_permlane64_b32" {
            // "if WAVE32 then s_nop(16'0U) else ... altlane = { ~lane[5],
            // lane[4 : 0] }; if EXEC[lane].u1 then VGPR[lane][VDST.u32] =
            // tmp[altlane]".
            if m.wave64 {
                for l in (0..lanes).filter(|&l| m.active(l)) {
                    let alt = (l & 31) | (!l & 32);
                    writes.push((l, 0, tmp[alt]));
                }
            }
        } else {
            // "lanesel = { S2.u32, S1.u32 }; ... if EXEC[row * 16 + i].u1 then
            // VGPR[row * 16 + i][VDST.u32] = tmp[64'B(row * 16) +
            // lanesel[i * 4 + 3 : i * 4]]"; permlanex16: "altrow = { row[1],
            // ~row[0] }".
            let lanesel = (m.r32(src(2)?, 0)? as u64) << 32 | m.r32(src(1)?, 0)? as u64;
            let fetch_inactive = mods.op_sel & 1 != 0;
            let bound_ctrl = mods.op_sel & 2 != 0;
            for row in 0..lanes / 16 {
                let from = if name == "v_permlanex16_b32" {
                    (row & 2) | (!row & 1)
                } else {
                    row
                };
                for k in 0..16 {
                    let l = row * 16 + k;
                    if !m.active(l) {
                        continue;
                    }
                    let sel = from * 16 + ((lanesel >> (4 * k)) & 15) as usize;
                    if fetch_inactive || m.active(sel) {
                        writes.push((l, 0, tmp[sel]));
                    } else if bound_ctrl {
                        writes.push((l, 0, 0));
                    }
                }
            }
        }
    } else {
        for l in 0..lanes {
            if !m.active(l) {
                continue;
            }
            let a = |k: usize| -> Result<u32, String> { m.r32(src(k)?, l) };
            match name {
                _ if name.starts_with("v_pk_") => {
                    // Source k's two halves as the low and the high result half see them.
                    let n = i.srcs.len();
                    let mut lo = [0u32; 3];
                    let mut hi = [0u32; 3];
                    for k in 0..n {
                        let v = a(k)?;
                        let half = |sel: bool| if sel { v >> 16 } else { v & 0xffff };
                        lo[k] = half(mods.op_sel >> k & 1 == 1);
                        hi[k] = half(mods.op_sel_hi >> k & 1 == 1);
                    }
                    let r_lo = pk_half(name, mods.clamp, lo)?;
                    let r_hi = pk_half(name, mods.clamp, hi)?;
                    writes.push((l, 0, (r_lo & 0xffff) | (r_hi & 0xffff) << 16));
                }
                _ if name.starts_with("v_dot") => {
                    let (width, count) = if name.starts_with("v_dot4") {
                        (8, 4)
                    } else {
                        (4, 8)
                    };
                    let iu = name.contains("_iu");
                    let (s0, s1) = (a(0)?, a(1)?);
                    let field = |x: u32, k: u32, signed: bool| -> i64 {
                        let f = (x >> (k * width)) & ((1 << width) - 1);
                        if signed && f >> (width - 1) == 1 {
                            f as i64 - (1i64 << width)
                        } else {
                            f as i64
                        }
                    };
                    // "A[i] = NEG[0].u1 ? 32'I(signext(A8.i8)) : 32'I(32'U(A8.u8))".
                    let (sa, sb) = (iu && mods.neg_lo & 1 == 1, iu && mods.neg_lo & 2 == 2);
                    // "C = S2.i32" (iu) / "tmp = S2.u32".
                    let mut t: i64 = if iu {
                        a(2)? as i32 as i64
                    } else {
                        a(2)? as i64
                    };
                    for k in 0..count {
                        // "tmp += A[i] * B[i]".
                        t += field(s0, k, sa) * field(s1, k, sb);
                    }
                    let r = if !mods.clamp {
                        t as u32
                    } else if iu {
                        t.max(i32::MIN as i64).min(i32::MAX as i64) as i32 as u32
                    } else {
                        t.max(0).min(u32::MAX as i64) as u32
                    };
                    writes.push((l, 0, r));
                }
                // "D0.i32 = v_min_i32(v_max_i32(S0.i32, S1.i32), S2.i32)".
                "v_maxmin_i32" => {
                    let r = std::cmp::min(std::cmp::max(a(0)? as i32, a(1)? as i32), a(2)? as i32);
                    writes.push((l, 0, r as u32));
                }
                // "D0.u32 = v_min_u32(v_max_u32(S0.u32, S1.u32), S2.u32)".
                "v_maxmin_u32" => writes.push((l, 0, a(0)?.max(a(1)?).min(a(2)?))),
                // "D0.i32 = v_max_i32(v_min_i32(S0.i32, S1.i32), S2.i32)".
                "v_minmax_i32" => {
                    let r = std::cmp::max(std::cmp::min(a(0)? as i32, a(1)? as i32), a(2)? as i32);
                    writes.push((l, 0, r as u32));
                }
                // "D0.u32 = v_max_u32(v_min_u32(S0.u32, S1.u32), S2.u32)".
                "v_minmax_u32" => writes.push((l, 0, a(0)?.min(a(1)?).max(a(2)?))),
                _ => {
                    // V_QSAD_PK_U16_U8: "tmp[15 : 0] = 16'B(v_sad_u8(S0[31 : 0],
                    // S1[31 : 0], S2[15 : 0].u32)); tmp[31 : 16] = ...(S0[39 : 8],
                    // ..., S2[31 : 16]); ... D0.b64 = tmp.b64"; V_MQSAD_PK_U16_U8
                    // with v_msad_u8 ("S1.u32[7 : 0] == 8'0U ? 0U : ABSDIFF(...)");
                    // V_MQSAD_U32_U8: 32-bit fields, "S2[127 : 96]", "D0.b128".
                    let s0 = m.r64(src(0)?, l)?;
                    let s1 = a(1)?;
                    let msad = name != "v_qsad_pk_u16_u8";
                    let wide = name == "v_mqsad_u32_u8";
                    let acc = |k: usize| -> Result<u32, String> {
                        if wide {
                            match src(2)? {
                                Opnd::V(n) => Ok(m.st.v[l][Machine::vidx(n + k as u8, "source")?]),
                                other => Err(format!("{name}: S2 {other:?} is not a VGPR quad")),
                            }
                        } else {
                            Ok((m.r64(src(2)?, l)? >> (16 * k)) as u32 & 0xffff)
                        }
                    };
                    let mut fields = [0u32; 4];
                    for (k, f) in fields.iter_mut().enumerate() {
                        let window = (s0 >> (8 * k)) as u32;
                        let mut t = acc(k)?;
                        for b in 0..4 {
                            let x = (window >> (8 * b)) & 0xff;
                            let y = (s1 >> (8 * b)) & 0xff;
                            if msad && y == 0 {
                                continue;
                            }
                            t = t.wrapping_add(x.abs_diff(y));
                        }
                        *f = if wide { t } else { t & 0xffff };
                    }
                    if wide {
                        for (k, f) in fields.iter().enumerate() {
                            writes.push((l, k as u8, *f));
                        }
                    } else {
                        writes.push((l, 0, fields[0] | fields[1] << 16));
                        writes.push((l, 1, fields[2] | fields[3] << 16));
                    }
                }
            }
        }
    }
    for (l, k, v) in writes {
        m.st.v[l][Machine::vidx(d + k, "destination")?] = v;
    }
    Ok(())
}

/// One 16-bit result half of a packed op, from the half's sources `s`
/// (each 0..=0xffff): "tmp[15 : 0].i16 = S0[15 : 0].i16 + S1[15 : 0].i16"
/// and the like.
fn pk_half(name: &str, clamp: bool, s: [u32; 3]) -> Result<u32, String> {
    let i = |x: u32| x as u16 as i16 as i64;
    let u = |x: u32| x as i64;
    let sat = |v: i64, lo: i64, hi: i64| if clamp { v.max(lo).min(hi) } else { v };
    let (si, su) = ((-32768, 32767), (0, 65535));
    Ok(match name {
        "v_pk_mad_i16" => i(s[0]) * i(s[1]) + i(s[2]),
        "v_pk_mad_u16" => u(s[0]) * u(s[1]) + u(s[2]),
        "v_pk_mul_lo_u16" => u(s[0]) * u(s[1]),
        "v_pk_add_i16" => sat(i(s[0]) + i(s[1]), si.0, si.1),
        "v_pk_sub_i16" => sat(i(s[0]) - i(s[1]), si.0, si.1),
        "v_pk_add_u16" => sat(u(s[0]) + u(s[1]), su.0, su.1),
        "v_pk_sub_u16" => sat(u(s[0]) - u(s[1]), su.0, su.1),
        // "(S1[15 : 0].u16 << S0.u32[3 : 0].u32)".
        "v_pk_lshlrev_b16" => u(s[1]) << (s[0] & 15),
        "v_pk_lshrrev_b16" => u(s[1]) >> (s[0] & 15),
        // "(S1[15 : 0].i16 >> S0.u32[3 : 0].u32)".
        "v_pk_ashrrev_i16" => i(s[1]) >> (s[0] & 15),
        // "S0 >= S1 ? S0 : S1" / "S0 < S1 ? S0 : S1".
        "v_pk_max_i16" => i(s[0]).max(i(s[1])),
        "v_pk_min_i16" => i(s[0]).min(i(s[1])),
        "v_pk_max_u16" => u(s[0]).max(u(s[1])),
        "v_pk_min_u16" => u(s[0]).min(u(s[1])),
        other => return Err(format!("no pseudocode for {other}")),
    } as u32
        & 0xffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(lanes: usize) -> AluState {
        AluState {
            v: vec![[0; BLOCK]; lanes],
            s: [0; BLOCK],
            vcc: 0,
            exec: wave_mask(lanes as u32),
            scc: false,
        }
    }

    fn run(text: &str, dst: Option<Opnd>, sdst: Option<Opnd>, srcs: Vec<Opnd>, st: &mut AluState) {
        let i = AluInst::new(text, dst, sdst, srcs).unwrap();
        run_pseudocode(&[Inst::One(i)], st, st.v.len() == 64).unwrap();
    }

    /// Values worked out by hand from the guide's pseudocode.
    #[test]
    fn bit_field_extracts_past_bit_31() {
        let mut st = state(32);
        st.v[0][1] = 0x8000_0000;
        let (d, s) = (Some(Opnd::V(16)), Opnd::V(17));
        // (S0.i32 >> 28) = 0xfffffff8; & 0xff = 0xf8; sign bit 7 set.
        run(
            "v_bfe_i32",
            d,
            None,
            vec![s, Opnd::Int(28), Opnd::Int(8)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 0xffff_fff8);
        run(
            "v_bfe_u32",
            d,
            None,
            vec![s, Opnd::Int(28), Opnd::Int(8)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 0x8);
        // Width 0 is 0 (and SCC 0); a 7-bit width past 32 keeps every bit.
        st.s[1] = 0xf000_0000;
        run(
            "s_bfe_i32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::S(33), Opnd::Lit(4)],
            &mut st,
        );
        assert_eq!((st.s[0], st.scc), (0, false));
        run(
            "s_bfe_u32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::S(33), Opnd::Lit(4 | 40 << 16)],
            &mut st,
        );
        assert_eq!((st.s[0], st.scc), (0x0f00_0000, true));
        run(
            "s_bfe_i32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::S(33), Opnd::Lit(4 | 40 << 16)],
            &mut st,
        );
        assert_eq!(st.s[0], 0xff00_0000);
    }

    #[test]
    fn carries_and_counts() {
        let mut st = state(32);
        st.exec = 0b101;
        for l in 0..3 {
            st.v[l][1] = 1;
            st.v[l][2] = 2;
        }
        // 1 - 2 borrows; lane 1 is inactive: its carry bit is 0.
        run(
            "v_sub_co_u32",
            Some(Opnd::V(16)),
            Some(Opnd::S(34)),
            vec![Opnd::V(17), Opnd::V(18)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 0xffff_ffff);
        assert_eq!(st.v[1][0], 0);
        assert_eq!(st.s[2], 0b101);
        // S_SUBB_U32: 0 - 0 - SCC.
        st.scc = true;
        run(
            "s_subb_u32",
            Some(Opnd::S(32)),
            None,
            vec![Opnd::Int(0), Opnd::Int(0)],
            &mut st,
        );
        assert_eq!((st.s[0], st.scc), (0xffff_ffff, true));
        // V_MAD_U64_U32: (2^32 - 1)^2 + (2^64 - 1) carries out of bit 63.
        st.v[0][1] = u32::MAX;
        st.v[0][2] = u32::MAX;
        st.v[0][4] = u32::MAX;
        st.v[0][5] = u32::MAX;
        run(
            "v_mad_u64_u32",
            Some(Opnd::V(22)),
            Some(Opnd::Vcc),
            vec![Opnd::V(17), Opnd::V(18), Opnd::V(20)],
            &mut st,
        );
        assert_eq!((st.v[0][6], st.v[0][7]), (0, 0xffff_fffe));
        assert_eq!(st.vcc & 1, 1);
        // CLS/CLZ/CTZ: -1 when there is nothing to find.
        for (x, cls, clz, ctz) in [
            (0u32, u32::MAX, u32::MAX, u32::MAX),
            (u32::MAX, u32::MAX, 0, 0),
            (1, 31, 31, 0),
            (0x4000_0000, 1, 1, 30),
        ] {
            st.v[0][1] = x;
            run(
                "v_cls_i32_e32",
                Some(Opnd::V(16)),
                None,
                vec![Opnd::V(17)],
                &mut st,
            );
            assert_eq!(st.v[0][0], cls, "cls {x:#x}");
            run(
                "v_clz_i32_u32_e32",
                Some(Opnd::V(16)),
                None,
                vec![Opnd::V(17)],
                &mut st,
            );
            assert_eq!(st.v[0][0], clz, "clz {x:#x}");
            run(
                "v_ctz_i32_b32_e32",
                Some(Opnd::V(16)),
                None,
                vec![Opnd::V(17)],
                &mut st,
            );
            assert_eq!(st.v[0][0], ctz, "ctz {x:#x}");
        }
    }

    #[test]
    fn wave32_compares_write_vcc_lo_and_zero_inactive_lanes() {
        let mut st = state(32);
        st.vcc = 0xdead_beef_ffff_ffff;
        st.exec = 0b1110;
        for l in 0..32 {
            st.v[l][1] = l as u32;
        }
        run(
            "v_cmp_lt_u32_e32",
            None,
            None,
            vec![Opnd::Int(0), Opnd::V(17)],
            &mut st,
        );
        assert_eq!(st.vcc, 0xdead_beef_0000_000e);
        // v_cmpx writes EXEC.
        run(
            "v_cmpx_gt_u32_e32",
            None,
            None,
            vec![Opnd::Int(2), Opnd::V(17)],
            &mut st,
        );
        assert_eq!(st.exec, 0b10);
        // V_MED3_I32(-1, 5, 3) = 3.
        st.exec = 1;
        run(
            "v_med3_i32",
            Some(Opnd::V(16)),
            None,
            vec![Opnd::Int(-1), Opnd::Int(5), Opnd::Int(3)],
            &mut st,
        );
        assert_eq!(st.v[0][0], 3);
    }

    /// Every name of the corpus makes programs that fit the slot, for both
    /// wave sizes it runs in.
    #[test]
    fn every_program_encodes_and_fits() {
        for name in corpus_names() {
            for wave64 in [false, true] {
                if (wave64 && wave32_only(name)) || (!wave64 && wave64_only(name)) {
                    continue;
                }
                for k in 0..20 {
                    let p = program_for(name, wave64, 1, k).unwrap();
                    let words: usize = p.iter().map(|i| i.encode(wave64).unwrap().len()).sum();
                    assert!(words <= 32, "{name}");
                }
            }
        }
    }
}
