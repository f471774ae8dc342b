//! The integer WMMA instructions of gfx11, `v_wmma_i32_16x16x16_iu8` and
//! `v_wmma_i32_16x16x16_iu4` (decoded in `decode/vop3p.rs` as [`P3Inst`]s, printed
//! by `disasm.rs`): D = A * B + C on 16x16 matrices held across the wave.
//!
//! The RDNA3 ISA guide's pseudocode ("VOP3P Instructions",
//! V_WMMA_I32_16X16X16_IU8, opcode 68):
//!
//! ```text
//! saved_exec = EXEC;
//! EXEC = 64'B(-1);
//! eval "D0.i32(16x16) = S0.iu8(16x16) * S1.iu8(16x16) + S2.i32(16x16)";
//! EXEC = saved_exec
//! ```
//!
//! (IU4 the same with `S0.iu4`, `S1.iu4`.) The register layout is the
//! guide's §7.9 "Wave Matrix Multiply Accumulate" figures ("A Matrix: VGPR
//! View for Wave32 – Column Major", "B Matrix ... Row Major", "C & D
//! Matrix ... Row Major"), as AMD's Matrix Instruction Calculator
//! (`ROCm/amd_matrix_instruction_calculator`, `matrix_calculator.py`,
//! `InstCalcGfx11`) computes it:
//!
//! - A[i][k] (row i, column k): element k of lane i's A registers (iu8:
//!   VGPR k / 4, bits 8 * (k % 4) + 7 : 8 * (k % 4); iu4: VGPR k / 8,
//!   nibble k % 8) — `__get_input_reg_lanes(i, k)`: register slot k, lanes
//!   i, i + 16 (and i + 32, i + 48 in wave64).
//! - B[k][j]: element k of lane j's B registers (the same slots, lane j).
//! - C[i][j] and D[i][j]: VGPR i / (lanes / 16), lane j plus 16 * (i %
//!   (lanes / 16)) — `__get_output_reg_lanes`: "regno = i /
//!   rows_per_reg_slot" with `rows_per_reg_slot = wave_width / 16`, "lane =
//!   (N * (i % rows_per_vgpr) + j) % wave_width". Wave32: 8 VGPRs, each
//!   holding rows 2v (lanes 0-15) and 2v + 1 (lanes 16-31); wave64: 4 VGPRs
//!   ("V0 holds rows 0-3").
//! - NEG[0] / NEG[1] (neg_lo) say whether A / B are signed (§7.9: "The
//!   NEG[1:0] field is repurposed for the "IU" integer types to indicate
//!   whether the inputs are signed or not (0=unsigned, 1=signed)"; LLVM
//!   VOP3PInstructions.td: "neg_lo = 0 u4/u8(zext), neg_lo = 1
//!   i4/i8(sext)").
//!
//! Where the sources are silent or disagree, the named policies below say
//! what this device does. This file sees a wave only through
//! [`WaveView`] (`vop3p` dispatches here), as `vop3p.rs` and `ds.rs` do.

use super::decode::{P3Inst, P3Op, Src};
use super::view::WaveView;

/// Why a WMMA could not run.
#[derive(Debug)]
pub struct WmmaError(pub String);

/// Policy: EXEC does not mask a WMMA: every lane's A, B and C are read and
/// every lane's D is written, whatever EXEC holds. This is the guide's
/// pseudocode ("saved_exec = EXEC; EXEC = 64'B(-1); ...; EXEC =
/// saved_exec") and its §3.2.3 ("Instruction Skipping: EXEC==0": "Does not
/// skip WMMA or SWMMA"); it is a policy only because §7.9 itself says
/// nothing of EXEC, so a GPU that masks lanes shows up as a disagreement.
pub const WMMA_EXEC: &str = "wmma-exec-all-lanes";
/// Policy: CLAMP on an integer WMMA saturates each D element's exact sum
/// (C plus the 16 products, unbounded) to i32; without it the sum wraps to
/// 32 bits. The sources disagree: the guide's §7.2.3.1 lists "WMMA ops"
/// among the instructions whose clamp bit "is not supported (ignored)",
/// while LLVM gives the iu8/iu4 WMMAs a clamp operand that it encodes in
/// the CLAMP bit (VOP3PInstructions.td `WMMAUIClamp`, `WMMAUIClampPat`:
/// the intrinsic's `i1 $clamp`) and the guide's CLMP field says "Signed
/// integer arithmetic: clamp result to [min_int, +max_int]". dsxor follows
/// LLVM (and its own dot-clamp policy); a GPU settles it.
pub const WMMA_CLAMP: &str = "wmma-clamp-saturates";
/// Policy: the A and B matrices must be replicated across the wave (§7.9:
/// "A and B matrices: lanes 0-15 data are replicated into lanes 16-31 (for
/// wave64: also into lanes 32-47 and 48-63)" — "the user must arrange the
/// data"). What the hardware reads when the copies differ is not said, so
/// a WMMA whose copies differ stops the wave with an error naming the
/// instruction, the register and the lanes (rather than guess which copy
/// counts).
pub const WMMA_UNREPLICATED: &str = "wmma-unreplicated-error";
/// Policy: D overlapping A or B, or overlapping C without being C, is an
/// error naming the instruction. LLVM (VOP3PInstructions.td, above
/// `WMMAInst`): "Matrices A and B cannot overlap with D. C cannot partially
/// overlap with D, but it is OK for them to be the same" (enforced by
/// `@earlyclobber $vdst`); the guide §7.9: "Matrix A/B can overlap C as
/// long as C is distinct from D. The typical case is that C and D are the
/// same." Neither says what the hardware computes otherwise; llvm-mc
/// assembles such programs.
pub const WMMA_OVERLAP: &str = "wmma-overlap-error";

/// Execute the WMMA `x` on `w`.
pub fn exec<W: WaveView + ?Sized>(w: &mut W, x: &P3Inst) -> Result<(), WmmaError> {
    let lanes = w.lanes() as usize;
    let wave64 = lanes == 64;
    let name = x.op.name();
    let (sw, dw) = x.op.widths_in(wave64);
    let (Src::V(a), Src::V(b)) = (x.src[0], x.src[1]) else {
        return Err(WmmaError(format!("{name}: A and B must be VGPRs")));
    };
    let (a, b, d) = (a as usize, b as usize, x.vdst as usize);
    let (ab, cd) = (sw[0] as usize, dw as usize);
    let c = match x.src[2] {
        Src::V(r) => Some(r as usize),
        _ => None,
    };
    if d + cd > 256 || c.is_some_and(|c| c + cd > 256) {
        return Err(WmmaError(format!(
            "{name}: C or D ({cd} VGPRs in this wave size) runs past v255"
        )));
    }
    let overlaps = |s: usize, n: usize| s < d + cd && d < s + n;
    if overlaps(a, ab) || overlaps(b, ab) || c.is_some_and(|c| c != d && overlaps(c, cd)) {
        return Err(WmmaError(format!(
            "{name}: D v[{d}:{}] overlaps A v[{a}:{}], B v[{b}:{}] or (without being it) C (policy {WMMA_OVERLAP})",
            d + cd - 1,
            a + ab - 1,
            b + ab - 1
        )));
    }
    // WMMA_UNREPLICATED: every 16-lane group holds lanes 0-15's A and B.
    for (what, base) in [("A", a), ("B", b)] {
        for r in base..base + ab {
            let row = w.vrow(r);
            if let Some(l) = (16..lanes).find(|&l| row[l] != row[l % 16]) {
                return Err(WmmaError(format!(
                    "{name}: {what} in v{r} lane {l} ({:#010x}) differs from lane {} ({:#010x}); the guide requires lanes 0-15 replicated across the wave (policy {WMMA_UNREPLICATED})",
                    row[l],
                    l % 16,
                    row[l % 16]
                )));
            }
        }
    }
    let bits: u32 = if x.op == P3Op::WmmaI32Iu8 { 8 } else { 4 };
    let per_reg = (32 / bits) as usize;
    // Element k of the lane-`lane` copy of the matrix in VGPRs base.. ("S0.iu8"
    // with NEG[0] the signedness: "1=signed").
    let elem = |w: &W, base: usize, lane: usize, k: usize, signed: bool| -> i64 {
        let word = w.vrow(base + k / per_reg)[lane];
        let f = (word >> (bits as usize * (k % per_reg))) & ((1 << bits) - 1);
        if signed {
            (((f << (32 - bits)) as i32) >> (32 - bits)) as i64
        } else {
            f as i64
        }
    };
    let (sa, sb) = (x.neg_lo & 1 == 1, x.neg_lo & 2 == 2);
    let rows_per_reg = lanes / 16;
    // C[i][j] / D[i][j]: VGPR i / rows_per_reg, lane 16 * (i % rows_per_reg) + j.
    let at = |i: usize, j: usize| (i / rows_per_reg, 16 * (i % rows_per_reg) + j);
    let mut out = vec![[0u32; 64]; cd];
    for i in 0..16 {
        for j in 0..16 {
            let (reg, lane) = at(i, j);
            let acc = match c {
                Some(c) => w.vrow(c + reg)[lane] as i32 as i64,
                // An integer inline constant: every element of C.
                None => w.s32(x.src[2]) as i32 as i64,
            };
            let sum = acc
                + (0..16)
                    .map(|k| elem(w, a, i, k, sa) * elem(w, b, j, k, sb))
                    .sum::<i64>();
            out[reg][lane] = if x.clamp {
                // WMMA_CLAMP.
                sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
            } else {
                sum as u32
            };
        }
    }
    // WMMA_EXEC: every lane is written.
    for (k, row) in out.iter().enumerate() {
        w.vrow_mut(d + k)[..lanes].copy_from_slice(&row[..lanes]);
    }
    Ok(())
}
