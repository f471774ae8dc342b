//! The ALU corpus of `dsxor qualify`: integer SALU, VALU and
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
//! Each program is one instruction of [`corpus_ops`] with operands drawn
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
//! `pseudo::packed`, under the emulator's named policies where the guide
//! is silent: `emu::vop3p::PACKED_HALVES`, `PACKED_CLAMP`, `DOT_CLAMP`,
//! `emu::vext::PERMLANE_INACTIVE_SOURCE`, `PERMLANE64_WAVE32` (restated there, not
//! imported: the pseudocode shares no code with `emu`).
//!
//! The integer WMMAs (`v_wmma_i32_16x16x16_iu8/iu4`, [`wmma_program`])
//! run in wave64 only ([`wave64_only`]: in wave32 D alone fills the block)
//! with random neg_lo signedness and clamp, C = D in place or an inline
//! constant, on inputs whose A and B are replicated across the 16-lane
//! groups as the guide requires ([`replicate_wmma_inputs`]); their
//! pseudocode is `pseudo::wmma`, restating `emu::wmma`'s policies
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
//! tests/it/emu_qualify.rs fails when the software device decodes an integer
//! instruction that is in neither list. Whatever is not in [`corpus_ops`]
//!
//! The files: `corpus` (what runs, and what is left out and why), `gen`
//! (each program and its input), `pseudo` (the pseudocode, one file per
//! instruction family), `harness` (the harness kernel, the launch, the
//! block read back, and [`AluCorpus`], the corpus `qualify::driver` runs).

use serde::{Deserialize, Serialize};

mod corpus;
mod gen;
mod harness;
mod pseudo;

pub use corpus::{corpus_names, corpus_ops, wave32_only, wave64_only, CHAINS, NOT_IN_CORPUS};
pub use gen::{input, program_for, replicate_wmma_inputs};
pub use harness::{
    dispatch, find_slot, program, qualify_alu, read_back, AluCorpus, AluDisagreement, AluProgram,
    AluResult,
};
pub use pseudo::run_pseudocode;

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

/// EXEC's lanes in a wave of `lanes`.
fn wave_mask(lanes: u32) -> u64 {
    if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    }
}
