//! [`WaveView`]: the one view of a wave's registers that the instruction
//! families below `wave` execute against (`ds`, `valu16`, `vext`, `vop3p`,
//! `wmma`).
//! `wave::Wave` implements it; those modules never import `wave`, so the
//! dependency runs one way. One trait with the ISA's register names, so a
//! family that needs one more register reads it under the same name the
//! others use.

use super::decode::Src;

/// A wave's registers as an instruction sees them: EXEC, the VGPR file
/// (register `r`, lane `l` at `r * 64 + l`, 64 dwords per register whatever
/// the wave size), scalar operands, MODE, and the DS lane-op counter.
pub trait WaveView {
    /// The wave's size: 32 or 64.
    fn lanes(&self) -> u32;
    /// EXEC as a lane mask (EXEC_LO only in wave32).
    fn exec(&self) -> u64;
    fn set_exec(&mut self, m: u64);
    fn vgpr(&self, r: usize, lane: usize) -> u32;
    fn set_vgpr(&mut self, r: usize, lane: usize, val: u32);
    /// VGPR `r` of every lane: 64 dwords (lanes past the wave's size unused).
    fn vrow(&self, r: usize) -> &[u32];
    fn vrow_mut(&mut self, r: usize) -> &mut [u32];
    /// The whole VGPR file, for loops over many registers and lanes.
    fn vgprs(&mut self) -> &mut [u32];
    /// A scalar operand's 32-bit value (SGPR, constant, literal).
    fn s32(&self, s: Src) -> u32;
    /// A scalar operand's 64-bit value (an SGPR pair, or a constant).
    fn s64(&self, s: Src) -> u64;
    /// A lane mask operand (VCC, an SGPR pair; SGPR only in wave32).
    fn read_mask(&self, s: Src) -> u64;
    /// Write a lane mask to SGPR `r` (and `r + 1` in wave64).
    fn write_mask(&mut self, r: u8, m: u64);
    /// The MODE hardware register (DS_ADD_F32's denormal mode).
    fn mode(&self) -> u32;
    /// Count active-lane DS atomic operations (throughput figures).
    fn count_atomic_lane_ops(&mut self, n: u64);
    /// Lane `l`'s 32-bit value of `s`: its VGPR in that lane, or the
    /// scalar operand's value.
    fn lane32(&self, s: Src, l: usize) -> u32 {
        match s {
            Src::V(r) => self.vrow(r as usize)[l],
            o => self.s32(o),
        }
    }
    /// Write `rows` to VGPRs vdst, vdst+1, ... in the lanes of `exec`.
    fn write_rows(&mut self, vdst: u8, rows: &[[u32; 64]], exec: u64) {
        let lanes = self.lanes() as usize;
        for (k, row) in rows.iter().enumerate() {
            let dst = self.vrow_mut(vdst as usize + k);
            for l in (0..lanes).filter(|l| exec >> l & 1 == 1) {
                dst[l] = row[l];
            }
        }
    }
}
