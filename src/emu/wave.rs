//! One wave's architectural state and the interpreter loop for the scalar,
//! vector-ALU, scalar-memory and FLAT/GLOBAL instructions. DS lives in
//! `ds.rs`. Semantics follow the RDNA3 ISA guide's pseudocode (§ "Scalar ALU
//! operations", § "Vector ALU operations"); each policy where it is silent is
//! named in a comment.
//!
//! Memory instructions complete at issue, in program order, so `s_waitcnt`
//! has nothing to wait for: a kernel that reads a result before its waitcnt
//! sees the completed value (a kernel that relies on seeing a *stale* value is
//! outside what this device checks).

use super::decode::{
    inline_const32, inline_const64, Cmp, Cond, Decoded, Flat, FlatKind, Inst, Sop1, Sop2, Sopc,
    Sopk, Src, VOp, VopdHalf, VopdOp, EXEC_LO, NULL, VCC_LO,
};
use super::ds::{exec_ds, DsWave, Lds};
use super::fault::FaultSpec;
use super::hazard::Pending;
use super::mem::GlobalMem;
use super::WaveError;
use rand_chacha::ChaCha8Rng;

/// VGPRs per lane held for every wave: the 8-bit VGPR field plus room for a
/// 128-bit operand starting at v255, so no register index can fall outside.
pub const VGPRS: usize = 260;
/// SGPR file size: the 7-bit field plus room for a 512-bit load and pairs.
const SGPRS: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    AtBarrier,
    Ended,
}

/// Architectural state of one wave.
pub struct Wave {
    /// SGPR file indexed by operand code (vcc at 106, m0 at 125, exec at 126).
    /// A fixed-size array, so an 8-bit register number needs no bounds check.
    pub s: Box<[u32; SGPRS]>,
    pub scc: bool,
    /// VGPRs: register r, lane l at `r * 64 + l`.
    pub v: Vec<u32>,
    /// Index of the next instruction in `Decoded::insts`.
    pub pc: u32,
    pub lanes: u32,
    pub status: Status,
    pub executed: u64,
    /// Active-lane DS atomic operations performed (for throughput figures).
    pub ds_atomic_lane_ops: u64,
    /// Outstanding memory instructions, when hazard checking is on
    /// ([`super::hazard`]); None: off.
    pub hazard: Option<Box<Pending>>,
}

/// A vector source of `N` lanes.
enum Row<'a, const N: usize> {
    V(&'a [u32; N]),
    S(u32),
}

impl<const N: usize> Row<'_, N> {
    #[inline(always)]
    fn at(&self, i: usize) -> u32 {
        match self {
            Row::V(x) => x[i],
            Row::S(v) => *v,
        }
    }
}

/// What the interpreter needs besides the wave.
pub struct Env<'a> {
    pub prog: &'a Decoded,
    pub mem: &'a GlobalMem,
    pub fault: Option<FaultSpec>,
}

impl DsWave for Wave {
    #[inline(always)]
    fn exec(&self) -> u64 {
        Wave::exec(self)
    }
    #[inline(always)]
    fn lanes(&self) -> u32 {
        self.lanes
    }
    #[inline(always)]
    fn vgprs(&mut self) -> &mut Vec<u32> {
        &mut self.v
    }
    #[inline(always)]
    fn count_atomic_lane_ops(&mut self, n: u64) {
        self.ds_atomic_lane_ops += n;
    }
    #[inline(always)]
    fn vgpr(&self, r: usize, lane: usize) -> u32 {
        Wave::vgpr(self, r, lane)
    }
    #[inline(always)]
    fn set_vgpr(&mut self, r: usize, lane: usize, val: u32) {
        Wave::set_vgpr(self, r, lane, val)
    }
}

impl Wave {
    pub fn new(wave64: bool) -> Wave {
        Wave {
            s: Box::new([0; SGPRS]),
            scc: false,
            v: vec![0; VGPRS * 64],
            pc: 0,
            lanes: if wave64 { 64 } else { 32 },
            status: Status::Running,
            executed: 0,
            ds_atomic_lane_ops: 0,
            hazard: None,
        }
    }

    #[inline]
    pub fn full_mask(&self) -> u64 {
        if self.lanes == 64 {
            u64::MAX
        } else {
            0xffff_ffff
        }
    }

    /// EXEC as a lane mask (exec_lo only in wave32).
    #[inline]
    pub fn exec(&self) -> u64 {
        if self.lanes == 64 {
            self.s[EXEC_LO as usize] as u64 | (self.s[EXEC_LO as usize + 1] as u64) << 32
        } else {
            self.s[EXEC_LO as usize] as u64
        }
    }

    #[inline]
    pub fn set_exec(&mut self, m: u64) {
        self.write_mask(EXEC_LO, m);
    }

    /// A lane mask held in SGPR `r` (wave32) or the pair `r`, `r+1` (wave64).
    #[inline]
    pub fn read_mask(&self, src: Src) -> u64 {
        if self.lanes == 64 {
            self.s64(src)
        } else {
            self.s32(src) as u64
        }
    }

    #[inline]
    pub fn write_mask(&mut self, r: u8, m: u64) {
        self.sw(r, m as u32);
        // A 64-bit `null` is one register: its "high half" is not m0.
        if self.lanes == 64 && r != NULL {
            self.sw(r.wrapping_add(1), (m >> 32) as u32);
        }
    }

    /// Write an SGPR; writes to `null` are discarded.
    #[inline]
    pub fn sw(&mut self, r: u8, v: u32) {
        if r != NULL {
            if let Some(x) = self.s.get_mut(r as usize) {
                *x = v;
            }
        }
    }

    #[inline]
    fn sw64(&mut self, r: u8, v: u64) {
        self.sw(r, v as u32);
        if r != NULL {
            self.sw(r.wrapping_add(1), (v >> 32) as u32);
        }
    }

    /// A 32-bit scalar operand.
    #[inline]
    pub fn s32(&self, src: Src) -> u32 {
        match src {
            Src::S(r) => self.s[r as usize],
            Src::Const(c) => inline_const32(c),
            Src::Lit(v) => v,
            Src::Scc => self.scc as u32,
            Src::Vccz => (self.read_mask(Src::S(VCC_LO)) == 0) as u32,
            Src::Execz => (self.exec() == 0) as u32,
            // The decoder never puts a VGPR where a scalar is read.
            Src::V(_) => 0,
        }
    }

    /// A 64-bit scalar operand. A 32-bit literal is zero-extended (policy:
    /// LLVM's AMDGPUDisassembler prints 64-bit integer literals as the
    /// unsigned 32-bit value; the RDNA3 guide does not say).
    #[inline]
    pub fn s64(&self, src: Src) -> u64 {
        match src {
            // A 64-bit `null` reads 0 (not m0 in the high half).
            Src::S(NULL) => 0,
            Src::S(r) => self.s[r as usize] as u64 | (self.s[r as usize + 1] as u64) << 32,
            Src::Const(c) => inline_const64(c),
            Src::Lit(v) => v as u64,
            other => self.s32(other) as u64,
        }
    }

    /// A 32-bit vector operand for every lane.
    #[inline]
    fn vread(&self, src: Src, out: &mut [u32; 64]) {
        match src {
            Src::V(r) => out.copy_from_slice(&self.v[r as usize * 64..r as usize * 64 + 64]),
            other => out.fill(self.s32(other)),
        }
    }

    /// A 64-bit vector operand (register pair) for every lane.
    #[inline]
    fn vread64(&self, src: Src, out: &mut [u64; 64]) {
        match src {
            Src::V(r) => {
                let lo = &self.v[r as usize * 64..r as usize * 64 + 64];
                let hi = &self.v[r as usize * 64 + 64..r as usize * 64 + 128];
                for ((o, &l), &h) in out.iter_mut().zip(lo).zip(hi) {
                    *o = l as u64 | (h as u64) << 32;
                }
            }
            other => out.fill(self.s64(other)),
        }
    }

    /// Source `s` as the wave's `N` lanes: its VGPR row in place, or a scalar
    /// broadcast to every lane.
    #[inline(always)]
    fn row<const N: usize>(&self, s: Src) -> Row<'_, N> {
        if let Src::V(r) = s {
            let b = r as usize * 64;
            if let Some(x) = self
                .v
                .get(b..b + N)
                .and_then(|x| <&[u32; N]>::try_from(x).ok())
            {
                return Row::V(x);
            }
        }
        Row::S(self.s32(s))
    }

    /// Write `out` to VGPR `vdst` in the lanes of `exec` (N lanes).
    #[inline(always)]
    fn store_row<const N: usize>(&mut self, vdst: u8, out: &[u32; N], exec: u64) {
        let b = vdst as usize * 64;
        if let Some(dst) = self.v.get_mut(b..b + N) {
            let full = u64::MAX >> (64 - N);
            if exec & full == full {
                dst.copy_from_slice(out);
            } else {
                for (i, (d, &o)) in dst.iter_mut().zip(out).enumerate() {
                    if exec >> i & 1 != 0 {
                        *d = o;
                    }
                }
            }
        }
    }

    /// `vdst = f(s0, s1)` per lane; each operand combination gets its own
    /// loop so the compiler vectorizes it.
    #[inline(always)]
    fn lanes2<const N: usize>(
        &mut self,
        vdst: u8,
        s0: Src,
        s1: Src,
        exec: u64,
        f: impl Fn(u32, u32) -> u32,
    ) {
        let mut out = [0u32; N];
        match (self.row::<N>(s0), self.row::<N>(s1)) {
            (Row::V(a), Row::V(b)) => {
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = f(x, y);
                }
            }
            (Row::V(a), Row::S(y)) => {
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = f(x, y);
                }
            }
            (Row::S(x), Row::V(b)) => {
                for (o, &y) in out.iter_mut().zip(b) {
                    *o = f(x, y);
                }
            }
            (Row::S(x), Row::S(y)) => out = [f(x, y); N],
        }
        self.store_row::<N>(vdst, &out, exec);
    }

    /// `vdst = f(s0, s1, s2)` per lane.
    #[inline(always)]
    fn lanes3<const N: usize>(
        &mut self,
        vdst: u8,
        src: &[Src; 3],
        exec: u64,
        f: impl Fn(u32, u32, u32) -> u32,
    ) {
        let mut out = [0u32; N];
        let (a, b, c) = (
            self.row::<N>(src[0]),
            self.row::<N>(src[1]),
            self.row::<N>(src[2]),
        );
        for (i, o) in out.iter_mut().enumerate() {
            *o = f(a.at(i), b.at(i), c.at(i));
        }
        self.store_row::<N>(vdst, &out, exec);
    }

    /// Write `vals` to VGPR `r` in the lanes of `mask`.
    #[inline]
    pub fn vwrite(&mut self, r: u8, vals: &[u32; 64], mask: u64) {
        let n = self.lanes as usize;
        let full = self.full_mask_const(n);
        let dst = &mut self.v[r as usize * 64..r as usize * 64 + 64];
        if mask == full {
            dst[..n].copy_from_slice(&vals[..n]);
        } else {
            for l in 0..n {
                if mask >> l & 1 != 0 {
                    dst[l] = vals[l];
                }
            }
        }
    }

    #[inline]
    fn full_mask_const(&self, n: usize) -> u64 {
        if n == 64 {
            u64::MAX
        } else {
            (1u64 << n) - 1
        }
    }

    #[inline]
    fn vwrite64(&mut self, r: u8, vals: &[u64; 64], mask: u64) {
        let mut lo = [0u32; 64];
        let mut hi = [0u32; 64];
        for l in 0..64 {
            lo[l] = vals[l] as u32;
            hi[l] = (vals[l] >> 32) as u32;
        }
        self.vwrite(r, &lo, mask);
        self.vwrite(r.wrapping_add(1), &hi, mask);
    }

    pub fn vgpr(&self, r: usize, lane: usize) -> u32 {
        self.v.get(r * 64 + lane).copied().unwrap_or(0)
    }

    pub fn set_vgpr(&mut self, r: usize, lane: usize, val: u32) {
        if let Some(x) = self.v.get_mut(r * 64 + lane) {
            *x = val;
        }
    }

    /// Byte address of the instruction at index `i`.
    pub fn pc_addr(prog: &Decoded, i: u32) -> u64 {
        prog.pcs
            .get(i as usize)
            .copied()
            .unwrap_or(prog.base + 4 * prog.index_of_word.len() as u64)
    }

    /// Run until the wave ends, reaches a barrier, or has executed `quantum`
    /// more instructions.
    pub fn run(
        &mut self,
        env: &Env<'_>,
        lds: &mut Lds,
        mut rng: Option<&mut ChaCha8Rng>,
        quantum: u64,
    ) -> Result<Status, WaveError> {
        let prog = env.prog;
        let mut left = quantum;
        while left > 0 {
            left -= 1;
            let i = self.pc;
            let Some(inst) = prog.insts.get(i as usize) else {
                return Err(WaveError::PcOutsideText {
                    pc: Wave::pc_addr(prog, i),
                });
            };
            if let Some(h) = self.hazard.as_deref_mut() {
                let wave64 = self.lanes == 64;
                if let Some(hz) = h.check(inst, wave64) {
                    return Err(WaveError::Hazard {
                        pc: Wave::pc_addr(prog, i),
                        inst: super::disasm::disasm(inst, wave64),
                        detail: hz.detail,
                    });
                }
                h.issue(inst, Wave::pc_addr(prog, i), || {
                    super::disasm::disasm(inst, wave64)
                });
            }
            self.pc = i + 1;
            self.executed += 1;
            match inst {
                Inst::Sop2 { op, sdst, s0, s1 } => self.sop2(*op, *sdst, *s0, *s1),
                Inst::Sop1 { op, sdst, s0 } => self.sop1(*op, *sdst, *s0, prog, i)?,
                Inst::Sopk { op, sdst, simm16 } => self.sopk(*op, *sdst, *simm16),
                Inst::Sopc { op, s0, s1 } => self.sopc(*op, *s0, *s1),
                Inst::Nop { .. } => {}
                Inst::Branch { cond, target, .. } => {
                    let taken = match cond {
                        Cond::Always => true,
                        Cond::Scc0 => !self.scc,
                        Cond::Scc1 => self.scc,
                        Cond::Vccz => self.read_mask(Src::S(VCC_LO)) == 0,
                        Cond::Vccnz => self.read_mask(Src::S(VCC_LO)) != 0,
                        Cond::Execz => self.exec() == 0,
                        Cond::Execnz => self.exec() != 0,
                    };
                    if taken {
                        match target {
                            Some(t) => self.pc = *t,
                            None => {
                                return Err(WaveError::BadBranch {
                                    pc: Wave::pc_addr(prog, i),
                                })
                            }
                        }
                    }
                }
                Inst::Barrier => {
                    self.status = Status::AtBarrier;
                    return Ok(Status::AtBarrier);
                }
                Inst::Endpgm => {
                    self.status = Status::Ended;
                    return Ok(Status::Ended);
                }
                Inst::Sendmsg { simm16 } => {
                    // Only MSG_DEALLOC_VGPRS (3), which compute kernels send
                    // before s_endpgm (SIDefines.h ID_DEALLOC_VGPRS_GFX11Plus),
                    // has a meaning here: none.
                    if *simm16 != 3 {
                        return Err(WaveError::Unsupported {
                            pc: Wave::pc_addr(prog, i),
                            detail: format!(
                                "s_sendmsg {simm16:#x}: only MSG_DEALLOC_VGPRS is modelled"
                            ),
                        });
                    }
                }
                Inst::Trap { name, simm16 } => {
                    return Err(WaveError::Trap {
                        pc: Wave::pc_addr(prog, i),
                        what: format!("{name} {simm16:#x}"),
                    })
                }
                Inst::Smem {
                    dwords,
                    sdata,
                    sbase,
                    offset,
                    soffset,
                } => {
                    let mut addr = self.s64(Src::S(*sbase)).wrapping_add(*offset as i64 as u64);
                    if let Some(so) = soffset {
                        addr = addr.wrapping_add(self.s[*so as usize] as u64);
                    }
                    // SMEM ignores the two low address bits (RDNA3 guide §"Scalar memory").
                    addr &= !3;
                    let n = *dwords as usize;
                    if *sdata as usize + n > 106 && *sdata != NULL {
                        return Err(WaveError::Unsupported {
                            pc: Wave::pc_addr(prog, i),
                            detail: format!(
                                "s_load into s{}..s{} runs past the SGPRs",
                                sdata,
                                *sdata as usize + n - 1
                            ),
                        });
                    }
                    let mut buf = [0u8; 64];
                    env.mem
                        .read(addr, &mut buf[..4 * n])
                        .map_err(|e| WaveError::Global {
                            pc: Wave::pc_addr(prog, i),
                            lane: None,
                            addr: e.addr,
                            len: e.len,
                            region: env.mem.describe(e.addr),
                        })?;
                    for k in 0..n {
                        let mut b = [0u8; 4];
                        b.copy_from_slice(&buf[4 * k..4 * k + 4]);
                        self.sw(sdata + k as u8, u32::from_le_bytes(b));
                    }
                }
                Inst::Valu {
                    op,
                    vdst,
                    sdst,
                    src,
                    ..
                } => self.valu(*op, *vdst, *sdst, src)?,
                Inst::Vopc {
                    cmp,
                    cmpx,
                    sdst,
                    src0,
                    src1,
                    ..
                } => self.vopc(*cmp, *cmpx, *sdst, *src0, *src1),
                Inst::Vopd { x, y } => self.vopd(x, y),
                Inst::Ds(d) => {
                    let pc = Wave::pc_addr(prog, i);
                    exec_ds(self, d, lds, env.fault, rng.as_deref_mut(), pc)?
                }
                Inst::Flat(f) => self.flat(f, env.mem, Wave::pc_addr(prog, i))?,
                Inst::Unsupported(u) => {
                    return Err(WaveError::Unsupported {
                        pc: Wave::pc_addr(prog, i),
                        detail: u.to_string(),
                    })
                }
            }
        }
        Ok(Status::Running)
    }

    fn sop2(&mut self, op: Sop2, sdst: u8, s0: Src, s1: Src) {
        use Sop2::*;
        let a = self.s32(s0);
        let b = self.s32(s1);
        let a64 = if op.src0_64() { self.s64(s0) } else { a as u64 };
        let b64 = if op.src1_64() { self.s64(s1) } else { b as u64 };
        // SCC per the RDNA3 guide's pseudocode of each opcode.
        match op {
            AddU32 => {
                let (r, c) = a.overflowing_add(b);
                self.scc = c;
                self.sw(sdst, r);
            }
            SubU32 => {
                let (r, c) = a.overflowing_sub(b);
                self.scc = c;
                self.sw(sdst, r);
            }
            AddI32 => {
                let (r, o) = (a as i32).overflowing_add(b as i32);
                self.scc = o;
                self.sw(sdst, r as u32);
            }
            SubI32 => {
                let (r, o) = (a as i32).overflowing_sub(b as i32);
                self.scc = o;
                self.sw(sdst, r as u32);
            }
            AddcU32 => {
                let t = a as u64 + b as u64 + self.scc as u64;
                self.scc = t >> 32 != 0;
                self.sw(sdst, t as u32);
            }
            SubbU32 => {
                let t = (a as u64)
                    .wrapping_sub(b as u64)
                    .wrapping_sub(self.scc as u64);
                self.scc = (b as u64 + self.scc as u64) > a as u64;
                self.sw(sdst, t as u32);
            }
            AbsdiffI32 => {
                let r = (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32;
                self.scc = r != 0;
                self.sw(sdst, r);
            }
            LshlB32 => self.set_scc_w(sdst, a << (b & 31)),
            LshrB32 => self.set_scc_w(sdst, a >> (b & 31)),
            AshrI32 => self.set_scc_w(sdst, ((a as i32) >> (b & 31)) as u32),
            LshlB64 => self.set_scc_w64(sdst, a64 << (b & 63)),
            LshrB64 => self.set_scc_w64(sdst, a64 >> (b & 63)),
            AshrI64 => self.set_scc_w64(sdst, ((a64 as i64) >> (b & 63)) as u64),
            Lshl1AddU32 | Lshl2AddU32 | Lshl3AddU32 | Lshl4AddU32 => {
                let n = match op {
                    Lshl1AddU32 => 1,
                    Lshl2AddU32 => 2,
                    Lshl3AddU32 => 3,
                    _ => 4,
                };
                let t = ((a as u64) << n) + b as u64;
                self.scc = t >= 1 << 32;
                self.sw(sdst, t as u32);
            }
            MinI32 => {
                self.scc = (a as i32) < (b as i32);
                self.sw(sdst, if self.scc { a } else { b });
            }
            MinU32 => {
                self.scc = a < b;
                self.sw(sdst, if self.scc { a } else { b });
            }
            MaxI32 => {
                self.scc = (a as i32) >= (b as i32);
                self.sw(sdst, if self.scc { a } else { b });
            }
            MaxU32 => {
                self.scc = a >= b;
                self.sw(sdst, if self.scc { a } else { b });
            }
            AndB32 => self.set_scc_w(sdst, a & b),
            OrB32 => self.set_scc_w(sdst, a | b),
            XorB32 => self.set_scc_w(sdst, a ^ b),
            NandB32 => self.set_scc_w(sdst, !(a & b)),
            NorB32 => self.set_scc_w(sdst, !(a | b)),
            XnorB32 => self.set_scc_w(sdst, !(a ^ b)),
            AndNot1B32 => self.set_scc_w(sdst, a & !b),
            OrNot1B32 => self.set_scc_w(sdst, a | !b),
            AndB64 => self.set_scc_w64(sdst, a64 & b64),
            OrB64 => self.set_scc_w64(sdst, a64 | b64),
            XorB64 => self.set_scc_w64(sdst, a64 ^ b64),
            NandB64 => self.set_scc_w64(sdst, !(a64 & b64)),
            NorB64 => self.set_scc_w64(sdst, !(a64 | b64)),
            XnorB64 => self.set_scc_w64(sdst, !(a64 ^ b64)),
            AndNot1B64 => self.set_scc_w64(sdst, a64 & !b64),
            OrNot1B64 => self.set_scc_w64(sdst, a64 | !b64),
            // S_BFE: offset = S1[4:0] (5:0 for 64), width = S1[22:16].
            BfeU32 => self.set_scc_w(sdst, bfe_u(a as u64, b & 31, (b >> 16) & 0x7f) as u32),
            BfeI32 => self.set_scc_w(
                sdst,
                bfe_i(a as i32 as i64, b & 31, (b >> 16) & 0x7f) as u32,
            ),
            BfeU64 => self.set_scc_w64(sdst, bfe_u(a64, b & 63, (b >> 16) & 0x7f)),
            BfeI64 => self.set_scc_w64(sdst, bfe_i(a64 as i64, b & 63, (b >> 16) & 0x7f) as u64),
            BfmB32 => self.sw(sdst, mask32(a & 31) << (b & 31)),
            BfmB64 => self.sw64(sdst, mask64(a & 63) << (b & 63)),
            MulI32 => self.sw(sdst, a.wrapping_mul(b)),
            MulHiU32 => self.sw(sdst, ((a as u64 * b as u64) >> 32) as u32),
            MulHiI32 => self.sw(sdst, ((a as i32 as i64 * b as i32 as i64) >> 32) as u32),
            CselectB32 => self.sw(sdst, if self.scc { a } else { b }),
            CselectB64 => self.sw64(sdst, if self.scc { a64 } else { b64 }),
            PackLlB32B16 => self.sw(sdst, (a & 0xffff) | (b << 16)),
            PackLhB32B16 => self.sw(sdst, (a & 0xffff) | (b & 0xffff_0000)),
            PackHhB32B16 => self.sw(sdst, (a >> 16) | (b & 0xffff_0000)),
            // S_PACK_HL_B32_B16: D0 = { S1[15:0], S0[31:16] }.
            PackHlB32B16 => self.sw(sdst, (a >> 16) | (b << 16)),
        }
    }

    #[inline]
    fn set_scc_w(&mut self, sdst: u8, r: u32) {
        self.scc = r != 0;
        self.sw(sdst, r);
    }

    #[inline]
    fn set_scc_w64(&mut self, sdst: u8, r: u64) {
        self.scc = r != 0;
        self.sw64(sdst, r);
    }

    fn sop1(
        &mut self,
        op: Sop1,
        sdst: u8,
        s0: Src,
        prog: &Decoded,
        i: u32,
    ) -> Result<(), WaveError> {
        use Sop1::*;
        let a = self.s32(s0);
        let a64 = if op.src0_64() { self.s64(s0) } else { a as u64 };
        let exec = self.exec();
        let full = self.full_mask();
        // saveexec: D = EXEC (old); EXEC = f(S0, EXEC); SCC = EXEC != 0.
        let saveexec = |w: &mut Wave, new: u64, wide: bool| {
            if wide {
                w.sw64(sdst, exec);
            } else {
                w.sw(sdst, exec as u32);
            }
            let new = new & full;
            w.set_exec(new);
            w.scc = new != 0;
        };
        match op {
            MovB32 => self.sw(sdst, a),
            MovB64 => self.sw64(sdst, a64),
            CmovB32 => {
                if self.scc {
                    self.sw(sdst, a)
                }
            }
            CmovB64 => {
                if self.scc {
                    self.sw64(sdst, a64)
                }
            }
            BrevB32 => self.sw(sdst, a.reverse_bits()),
            BrevB64 => self.sw64(sdst, a64.reverse_bits()),
            // Count of trailing/leading zeros; -1 when the input is 0 (gfx11 s_ctz/s_clz).
            CtzI32B32 => self.sw(sdst, if a == 0 { u32::MAX } else { a.trailing_zeros() }),
            CtzI32B64 => self.sw(
                sdst,
                if a64 == 0 {
                    u32::MAX
                } else {
                    a64.trailing_zeros()
                },
            ),
            ClzI32U32 => self.sw(sdst, if a == 0 { u32::MAX } else { a.leading_zeros() }),
            ClzI32U64 => self.sw(
                sdst,
                if a64 == 0 {
                    u32::MAX
                } else {
                    a64.leading_zeros()
                },
            ),
            // Leading bits equal to the sign bit; -1 for 0 and -1.
            ClsI32 => self.sw(
                sdst,
                if a == 0 || a == u32::MAX {
                    u32::MAX
                } else {
                    (a ^ ((a as i32 >> 31) as u32)).leading_zeros()
                },
            ),
            ClsI32I64 => self.sw(
                sdst,
                if a64 == 0 || a64 == u64::MAX {
                    u32::MAX
                } else {
                    (a64 ^ ((a64 as i64 >> 63) as u64)).leading_zeros()
                },
            ),
            SextI32I8 => self.sw(sdst, a as u8 as i8 as i32 as u32),
            SextI32I16 => self.sw(sdst, a as u16 as i16 as i32 as u32),
            Bitset0B32 | Bitset1B32 => {
                let d = self.s[sdst as usize];
                let bit = 1u32 << (a & 31);
                self.sw(sdst, if op == Bitset1B32 { d | bit } else { d & !bit });
            }
            Bitset0B64 | Bitset1B64 => {
                let d = self.s64(Src::S(sdst));
                let bit = 1u64 << (a & 63);
                self.sw64(sdst, if op == Bitset1B64 { d | bit } else { d & !bit });
            }
            AbsI32 => self.set_scc_w(sdst, (a as i32).wrapping_abs() as u32),
            Bcnt0I32B32 => self.set_scc_w(sdst, a.count_zeros()),
            Bcnt0I32B64 => self.set_scc_w(sdst, a64.count_zeros()),
            Bcnt1I32B32 => self.set_scc_w(sdst, a.count_ones()),
            Bcnt1I32B64 => self.set_scc_w(sdst, a64.count_ones()),
            // S_BITREPLICATE_B64_B32: D0.u64[2i] = D0.u64[2i+1] = S0.u32[i]; SCC unchanged.
            BitreplicateB64B32 => self.sw64(sdst, bitreplicate(a)),
            // S_QUADMASK: tmp[i] = S0[4i +: 4] != 0; SCC = D0 != 0.
            QuadmaskB32 => self.set_scc_w(sdst, quadmask(a as u64, 8) as u32),
            QuadmaskB64 => self.set_scc_w64(sdst, quadmask(a64, 16)),
            // S_WQM: tmp[i] = S0[(i & 60) +: 4] != 0; SCC = D0 != 0.
            WqmB32 => self.set_scc_w(sdst, wqm(a as u64, 32) as u32),
            WqmB64 => self.set_scc_w64(sdst, wqm(a64, 64)),
            NotB32 => self.set_scc_w(sdst, !a),
            NotB64 => self.set_scc_w64(sdst, !a64),
            AndSaveexecB32 | AndSaveexecB64 => saveexec(self, a64 & exec, op == AndSaveexecB64),
            OrSaveexecB32 | OrSaveexecB64 => saveexec(self, a64 | exec, op == OrSaveexecB64),
            XorSaveexecB32 | XorSaveexecB64 => saveexec(self, a64 ^ exec, op == XorSaveexecB64),
            NandSaveexecB32 | NandSaveexecB64 => {
                saveexec(self, !(a64 & exec), op == NandSaveexecB64)
            }
            NorSaveexecB32 | NorSaveexecB64 => saveexec(self, !(a64 | exec), op == NorSaveexecB64),
            XnorSaveexecB32 | XnorSaveexecB64 => {
                saveexec(self, !(a64 ^ exec), op == XnorSaveexecB64)
            }
            AndNot0SaveexecB32 | AndNot0SaveexecB64 => {
                saveexec(self, !a64 & exec, op == AndNot0SaveexecB64)
            }
            OrNot0SaveexecB32 | OrNot0SaveexecB64 => {
                saveexec(self, !a64 | exec, op == OrNot0SaveexecB64)
            }
            AndNot1SaveexecB32 | AndNot1SaveexecB64 => {
                saveexec(self, a64 & !exec, op == AndNot1SaveexecB64)
            }
            OrNot1SaveexecB32 | OrNot1SaveexecB64 => {
                saveexec(self, a64 | !exec, op == OrNot1SaveexecB64)
            }
            // wrexec: EXEC = f(S0, EXEC); D = EXEC (new); SCC = EXEC != 0.
            AndNot0WrexecB32 | AndNot0WrexecB64 | AndNot1WrexecB32 | AndNot1WrexecB64 => {
                let new = match op {
                    AndNot0WrexecB32 | AndNot0WrexecB64 => !a64 & exec,
                    _ => a64 & !exec,
                } & full;
                self.set_exec(new);
                if matches!(op, AndNot0WrexecB64 | AndNot1WrexecB64) {
                    self.sw64(sdst, new);
                } else {
                    self.sw(sdst, new as u32);
                }
                self.scc = new != 0;
            }
            GetpcB64 => self.sw64(sdst, Wave::pc_addr(prog, i + 1)),
            SetpcB64 | SwappcB64 => {
                let target = a64;
                if op == SwappcB64 {
                    self.sw64(sdst, Wave::pc_addr(prog, i + 1));
                }
                match prog.index_at(target) {
                    Some(t) => self.pc = t,
                    None => {
                        return Err(WaveError::BadBranch {
                            pc: Wave::pc_addr(prog, i),
                        })
                    }
                }
            }
        }
        Ok(())
    }

    fn sopk(&mut self, op: Sopk, sdst: u8, simm16: u16) {
        use Sopk::*;
        let simm = simm16 as i16 as i32 as u32;
        let d = self.s[sdst as usize];
        match op {
            MovkI32 => self.sw(sdst, simm),
            CmovkI32 => {
                if self.scc {
                    self.sw(sdst, simm)
                }
            }
            CmpkEqI32 => self.scc = d == simm,
            CmpkLgI32 => self.scc = d != simm,
            CmpkGtI32 => self.scc = (d as i32) > simm as i32,
            CmpkGeI32 => self.scc = (d as i32) >= simm as i32,
            CmpkLtI32 => self.scc = (d as i32) < (simm as i32),
            CmpkLeI32 => self.scc = (d as i32) <= simm as i32,
            // Unsigned forms compare with the zero-extended immediate.
            CmpkEqU32 => self.scc = d == simm16 as u32,
            CmpkLgU32 => self.scc = d != simm16 as u32,
            CmpkGtU32 => self.scc = d > simm16 as u32,
            CmpkGeU32 => self.scc = d >= simm16 as u32,
            CmpkLtU32 => self.scc = d < simm16 as u32,
            CmpkLeU32 => self.scc = d <= simm16 as u32,
            AddkI32 => {
                let (r, o) = (d as i32).overflowing_add(simm as i32);
                self.scc = o;
                self.sw(sdst, r as u32);
            }
            MulkI32 => self.sw(sdst, d.wrapping_mul(simm)),
            Version | WaitcntVscnt | WaitcntVmcnt | WaitcntExpcnt | WaitcntLgkmcnt => {}
        }
    }

    fn sopc(&mut self, op: Sopc, s0: Src, s1: Src) {
        use Sopc::*;
        let a = self.s32(s0);
        let b = self.s32(s1);
        self.scc = match op {
            EqI32 | EqU32 => a == b,
            LgI32 | LgU32 => a != b,
            GtI32 => (a as i32) > (b as i32),
            GeI32 => (a as i32) >= (b as i32),
            LtI32 => (a as i32) < (b as i32),
            LeI32 => (a as i32) <= (b as i32),
            GtU32 => a > b,
            GeU32 => a >= b,
            LtU32 => a < b,
            LeU32 => a <= b,
            Bitcmp0B32 => a >> (b & 31) & 1 == 0,
            Bitcmp1B32 => a >> (b & 31) & 1 == 1,
            Bitcmp0B64 => self.s64(s0) >> (b & 63) & 1 == 0,
            Bitcmp1B64 => self.s64(s0) >> (b & 63) & 1 == 1,
            EqU64 => self.s64(s0) == self.s64(s1),
            LgU64 => self.s64(s0) != self.s64(s1),
        };
    }

    fn vopc(&mut self, cmp: Cmp, cmpx: bool, sdst: u8, src0: Src, src1: Src) {
        let exec = self.exec();
        let n = self.lanes as usize;
        let mut res = 0u64;
        if cmp.wide {
            let mut a = [0u64; 64];
            let mut b = [0u64; 64];
            self.vread64(src0, &mut a);
            self.vread64(src1, &mut b);
            for l in 0..n {
                let r = if cmp.signed {
                    cmp_apply(cmp.cond, (a[l] as i64).cmp(&(b[l] as i64)))
                } else {
                    cmp_apply(cmp.cond, a[l].cmp(&b[l]))
                };
                res |= (r as u64) << l;
            }
        } else {
            let mut a = [0u32; 64];
            let mut b = [0u32; 64];
            self.vread(src0, &mut a);
            self.vread(src1, &mut b);
            for l in 0..n {
                let r = if cmp.signed {
                    cmp_apply(cmp.cond, (a[l] as i32).cmp(&(b[l] as i32)))
                } else {
                    cmp_apply(cmp.cond, a[l].cmp(&b[l]))
                };
                res |= (r as u64) << l;
            }
        }
        // Inactive lanes get 0 in the destination mask (RDNA3 guide §"Vector compare").
        let res = res & exec;
        if cmpx {
            // gfx11 v_cmpx writes EXEC only (VOPCInstructions.td: no SDST for cmpx).
            self.set_exec(res);
        } else {
            self.write_mask(sdst, res);
        }
    }

    fn vopd(&mut self, x: &VopdHalf, y: &VopdHalf) {
        // Both halves read their sources before either writes (dual issue).
        let exec = self.exec();
        let vcc = self.read_mask(Src::S(VCC_LO));
        let mut rx = [0u32; 64];
        let mut ry = [0u32; 64];
        self.vopd_half(x, vcc, &mut rx);
        self.vopd_half(y, vcc, &mut ry);
        self.vwrite(x.vdst, &rx, exec);
        self.vwrite(y.vdst, &ry, exec);
    }

    fn vopd_half(&self, h: &VopdHalf, vcc: u64, out: &mut [u32; 64]) {
        let mut a = [0u32; 64];
        let mut b = [0u32; 64];
        self.vread(h.src0, &mut a);
        self.vread(Src::V(h.vsrc1), &mut b);
        for l in 0..64 {
            out[l] = match h.op {
                VopdOp::MovB32 => a[l],
                VopdOp::CndmaskB32 => {
                    if vcc >> l & 1 != 0 {
                        b[l]
                    } else {
                        a[l]
                    }
                }
                VopdOp::AddNcU32 => a[l].wrapping_add(b[l]),
                VopdOp::LshlrevB32 => b[l] << (a[l] & 31),
                VopdOp::AndB32 => a[l] & b[l],
            };
        }
    }

    fn valu(&mut self, op: VOp, vdst: u8, sdst: u8, src: &[Src; 3]) -> Result<(), WaveError> {
        use VOp::*;
        let exec = self.exec();
        // Pure per-lane operations: one lane loop over the wave's own lane
        // count (32 or 64), sources borrowed in place, no scratch arrays.
        macro_rules! map2 {
            ($f:expr) => {{
                if self.lanes == 32 {
                    self.lanes2::<32>(vdst, src[0], src[1], exec, $f)
                } else {
                    self.lanes2::<64>(vdst, src[0], src[1], exec, $f)
                }
            }};
        }
        macro_rules! map3 {
            ($f:expr) => {{
                if self.lanes == 32 {
                    self.lanes3::<32>(vdst, src, exec, $f)
                } else {
                    self.lanes3::<64>(vdst, src, exec, $f)
                }
            }};
        }
        match op {
            NotB32 => map2!(|x: u32, _| !x),
            BfrevB32 => map2!(|x: u32, _| x.reverse_bits()),
            ClzI32U32 => map2!(|x: u32, _| if x == 0 { u32::MAX } else { x.leading_zeros() }),
            CtzI32B32 => map2!(|x: u32, _| if x == 0 { u32::MAX } else { x.trailing_zeros() }),
            ClsI32 => map2!(|x: u32, _| if x == 0 || x == u32::MAX {
                u32::MAX
            } else {
                (x ^ ((x as i32 >> 31) as u32)).leading_zeros()
            }),
            AddNcU32 => map2!(|x: u32, y: u32| x.wrapping_add(y)),
            SubNcU32 => map2!(|x: u32, y: u32| x.wrapping_sub(y)),
            SubrevNcU32 => map2!(|x: u32, y: u32| y.wrapping_sub(x)),
            MulI32I24 => map2!(|x: u32, y: u32| (sext24(x) * sext24(y)) as u32),
            MulHiI32I24 => map2!(|x: u32, y: u32| ((sext24(x) * sext24(y)) >> 32) as u32),
            MulU32U24 => {
                map2!(|x: u32, y: u32| ((x & 0xff_ffff) as u64 * (y & 0xff_ffff) as u64) as u32)
            }
            MulHiU32U24 => map2!(|x: u32, y: u32| (((x & 0xff_ffff) as u64
                * (y & 0xff_ffff) as u64)
                >> 32) as u32),
            MinI32 => map2!(|x: u32, y: u32| (x as i32).min(y as i32) as u32),
            MaxI32 => map2!(|x: u32, y: u32| (x as i32).max(y as i32) as u32),
            MinU32 => map2!(|x: u32, y: u32| x.min(y)),
            MaxU32 => map2!(|x: u32, y: u32| x.max(y)),
            // "rev" shifts: the shift amount is src0, low 5 bits.
            LshrrevB32 => map2!(|x: u32, y: u32| y >> (x & 31)),
            AshrrevI32 => map2!(|x: u32, y: u32| ((y as i32) >> (x & 31)) as u32),
            LshlrevB32 => map2!(|x: u32, y: u32| y << (x & 31)),
            AndB32 => map2!(|x: u32, y: u32| x & y),
            OrB32 => map2!(|x: u32, y: u32| x | y),
            XorB32 => map2!(|x: u32, y: u32| x ^ y),
            XnorB32 => map2!(|x: u32, y: u32| !(x ^ y)),
            BfmB32 => map2!(|x: u32, y: u32| mask32(x & 31) << (y & 31)),
            BcntU32B32 => map2!(|x: u32, y: u32| x.count_ones().wrapping_add(y)),
            MulLoU32 => map2!(|x: u32, y: u32| x.wrapping_mul(y)),
            // V_ADD_NC_I32 / V_SUB_NC_I32 without clamp: wrapping (clamp is refused at decode).
            AddNcI32 => map2!(|x: u32, y: u32| x.wrapping_add(y)),
            SubNcI32 => map2!(|x: u32, y: u32| x.wrapping_sub(y)),
            SadU8 => map3!(|x: u32, y: u32, z: u32| sad_u8(x, y, z, false)),
            MsadU8 => map3!(|x: u32, y: u32, z: u32| sad_u8(x, y, z, true)),
            // V_SAD_HI_U8: D0 = (v_sad_u8(S0, S1, 0) << 16) + S2.
            SadHiU8 => {
                map3!(|x: u32, y: u32, z: u32| (sad_u8(x, y, 0, false) << 16).wrapping_add(z))
            }
            // V_SAD_U16: S2 + |S0[15:0] - S1[15:0]| + |S0[31:16] - S1[31:16]|.
            SadU16 => map3!(|x: u32, y: u32, z: u32| z
                .wrapping_add((x & 0xffff).abs_diff(y & 0xffff))
                .wrapping_add((x >> 16).abs_diff(y >> 16))),
            SadU32 => map3!(|x: u32, y: u32, z: u32| x.abs_diff(y).wrapping_add(z)),
            LerpU8 => map3!(|x: u32, y: u32, z: u32| lerp_u8(x, y, z)),
            MulHiU32 => map2!(|x: u32, y: u32| ((x as u64 * y as u64) >> 32) as u32),
            MulHiI32 => map2!(|x: u32, y: u32| ((x as i32 as i64 * y as i32 as i64) >> 32) as u32),
            LshlAddU32 => map3!(|x: u32, y: u32, z: u32| (x << (y & 31)).wrapping_add(z)),
            AddLshlU32 => map3!(|x: u32, y: u32, z: u32| x.wrapping_add(y) << (z & 31)),
            LshlOrB32 => map3!(|x: u32, y: u32, z: u32| (x << (y & 31)) | z),
            AndOrB32 => map3!(|x: u32, y: u32, z: u32| (x & y) | z),
            Or3B32 => map3!(|x: u32, y: u32, z: u32| x | y | z),
            Xor3B32 => map3!(|x: u32, y: u32, z: u32| x ^ y ^ z),
            Add3U32 => map3!(|x: u32, y: u32, z: u32| x.wrapping_add(y).wrapping_add(z)),
            XadU32 => map3!(|x: u32, y: u32, z: u32| (x ^ y).wrapping_add(z)),
            // V_BFE_*: offset S1[4:0], width S2[4:0].
            BfeU32 => map3!(|x: u32, y: u32, z: u32| bfe_u(x as u64, y & 31, z & 31) as u32),
            BfeI32 => {
                map3!(|x: u32, y: u32, z: u32| bfe_i(x as i32 as i64, y & 31, z & 31) as u32)
            }
            BfiB32 => map3!(|x: u32, y: u32, z: u32| (x & y) | (!x & z)),
            AlignbitB32 => {
                map3!(|x: u32, y: u32, z: u32| ((((x as u64) << 32) | y as u64) >> (z & 31)) as u32)
            }
            AlignbyteB32 => map3!(|x: u32, y: u32, z: u32| ((((x as u64) << 32) | y as u64)
                >> (8 * (z & 3)))
                as u32),
            PermB32 => map3!(|x: u32, y: u32, z: u32| perm(x, y, z)),
            MadU32U24 => map3!(|x: u32, y: u32, z: u32| ((x & 0xff_ffff)
                .wrapping_mul(y & 0xff_ffff))
            .wrapping_add(z)),
            MadI32I24 => {
                map3!(|x: u32, y: u32, z: u32| ((sext24(x) * sext24(y)) as u32).wrapping_add(z))
            }
            Min3I32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).min(y as i32).min(z as i32) as u32)
            }
            Min3U32 => map3!(|x: u32, y: u32, z: u32| x.min(y).min(z)),
            Max3I32 => {
                map3!(|x: u32, y: u32, z: u32| (x as i32).max(y as i32).max(z as i32) as u32)
            }
            Max3U32 => map3!(|x: u32, y: u32, z: u32| x.max(y).max(z)),
            Med3I32 => map3!(|x: u32, y: u32, z: u32| med3(x as i32, y as i32, z as i32) as u32),
            Med3U32 => map3!(|x: u32, y: u32, z: u32| med3(x, y, z)),
            _ => return self.valu_other(op, vdst, sdst, src),
        }
        Ok(())
    }

    fn valu_other(&mut self, op: VOp, vdst: u8, sdst: u8, src: &[Src; 3]) -> Result<(), WaveError> {
        use VOp::*;
        let exec = self.exec();
        let n = self.lanes as usize;
        let mut a = [0u32; 64];
        let mut b = [0u32; 64];
        let mut d = [0u32; 64];
        match op {
            Nop => {}
            MovB32 => {
                self.vread(src[0], &mut a);
                self.vwrite(vdst, &a, exec);
            }
            SwapB32 => {
                // V_SWAP_B32: tmp = D0; D0 = S0; S0 = tmp (the decoder guarantees a VGPR src0).
                if let Src::V(r) = src[0] {
                    self.vread(Src::V(vdst), &mut a);
                    self.vread(Src::V(r), &mut b);
                    self.vwrite(vdst, &b, exec);
                    self.vwrite(r, &a, exec);
                }
            }
            ReadfirstlaneB32 => {
                // The lowest active lane; lane 0 when EXEC is 0 (RDNA3 guide).
                let lane = if exec == 0 {
                    0
                } else {
                    exec.trailing_zeros() as usize
                };
                let v = match src[0] {
                    Src::V(r) => self.vgpr(r as usize, lane),
                    other => self.s32(other),
                };
                self.sw(sdst, v);
            }
            ReadlaneB32 => {
                let lane = (self.s32(src[1]) & (self.lanes - 1)) as usize;
                let v = match src[0] {
                    Src::V(r) => self.vgpr(r as usize, lane),
                    other => self.s32(other),
                };
                self.sw(vdst, v);
            }
            WritelaneB32 => {
                // Ignores EXEC (RDNA3 guide: "writes a lane regardless of EXEC").
                let v = self.s32(src[0]);
                let lane = (self.s32(src[1]) & (self.lanes - 1)) as usize;
                self.set_vgpr(vdst as usize, lane, v);
            }
            CndmaskB32 => {
                let mask = self.read_mask(src[2]);
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                for l in 0..64 {
                    d[l] = if mask >> l & 1 != 0 { b[l] } else { a[l] };
                }
                self.vwrite(vdst, &d, exec);
            }
            MbcntLoU32B32 | MbcntHiU32B32 => {
                // Count of set bits of S0 below this lane (lanes 0–31 for lo,
                // 32–63 for hi), plus S1 (RDNA3 guide v_mbcnt_*).
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                for l in 0..64 {
                    let below = if op == MbcntLoU32B32 {
                        if l >= 32 {
                            u32::MAX
                        } else {
                            (1u32 << l).wrapping_sub(1)
                        }
                    } else if l < 32 {
                        0
                    } else if l >= 64 {
                        u32::MAX
                    } else {
                        (1u64 << (l - 32)).wrapping_sub(1) as u32
                    };
                    d[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
                }
                self.vwrite(vdst, &d, exec);
            }
            LshlrevB64 | LshrrevB64 | AshrrevI64 => {
                self.vread(src[0], &mut a);
                let mut v = [0u64; 64];
                self.vread64(src[1], &mut v);
                let mut r = [0u64; 64];
                for l in 0..64 {
                    let sh = a[l] & 63;
                    r[l] = match op {
                        LshlrevB64 => v[l] << sh,
                        LshrrevB64 => v[l] >> sh,
                        _ => ((v[l] as i64) >> sh) as u64,
                    };
                }
                self.vwrite64(vdst, &r, exec);
            }
            AddCoU32 | SubCoU32 | SubrevCoU32 | AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => {
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                let cin = match op {
                    AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => self.read_mask(src[2]),
                    _ => 0,
                };
                let mut cout = 0u64;
                for l in 0..n {
                    let ci = cin >> l & 1;
                    let (x, y) = match op {
                        SubrevCoU32 | SubrevCoCiU32 => (b[l] as u64, a[l] as u64),
                        _ => (a[l] as u64, b[l] as u64),
                    };
                    let (r, co) = match op {
                        AddCoU32 | AddCoCiU32 => {
                            let t = x + y + ci;
                            (t as u32, t >> 32 != 0)
                        }
                        _ => (x.wrapping_sub(y).wrapping_sub(ci) as u32, y + ci > x),
                    };
                    d[l] = r;
                    cout |= (co as u64) << l;
                }
                self.vwrite(vdst, &d, exec);
                // Carry bits of inactive lanes are written as 0.
                self.write_mask(sdst, cout & exec);
            }
            MadU64U32 | MadI64I32 => {
                self.vread(src[0], &mut a);
                self.vread(src[1], &mut b);
                let mut acc = [0u64; 64];
                self.vread64(src[2], &mut acc);
                let mut r = [0u64; 64];
                let mut cout = 0u64;
                for l in 0..n {
                    let (v, co) = if op == MadU64U32 {
                        let p = a[l] as u128 * b[l] as u128 + acc[l] as u128;
                        (p as u64, p >> 64 != 0)
                    } else {
                        // { D1.i1, D0.i64 } = 65'B(65'I(S0.i32) * 65'I(S1.i32) + 65'I(S2.i64)):
                        // the exact sum fits 65 bits, so D1 (bit 64) is its sign.
                        let p = a[l] as i32 as i128 * b[l] as i32 as i128 + acc[l] as i64 as i128;
                        (p as u64, p < 0)
                    };
                    r[l] = v;
                    cout |= (co as u64) << l;
                }
                self.vwrite64(vdst, &r, exec);
                self.write_mask(sdst, cout & exec);
            }
            _ => {}
        }
        Ok(())
    }

    fn flat(&mut self, f: &Flat, mem: &GlobalMem, pc: u64) -> Result<(), WaveError> {
        let exec = self.exec();
        let n = self.lanes as usize;
        for l in 0..n {
            if exec >> l & 1 == 0 {
                continue;
            }
            let base = match f.saddr {
                Some(s) => self
                    .s64(Src::S(s))
                    .wrapping_add(self.vgpr(f.vaddr as usize, l) as u64),
                None => {
                    self.vgpr(f.vaddr as usize, l) as u64
                        | (self.vgpr(f.vaddr as usize + 1, l) as u64) << 32
                }
            };
            let addr = base.wrapping_add(f.offset as i64 as u64);
            let err = |e: super::mem::OutOfBounds| WaveError::Global {
                pc,
                lane: Some(l as u32),
                addr: e.addr,
                len: e.len,
                region: mem.describe(e.addr),
            };
            match f.kind {
                FlatKind::Load { bytes: 4, .. } => {
                    let v = mem.read_u32(addr).map_err(err)?;
                    self.set_vgpr(f.vdst as usize, l, v);
                }
                FlatKind::Load { bytes, signed } => {
                    let mut buf = [0u8; 16];
                    mem.read(addr, &mut buf[..bytes as usize]).map_err(err)?;
                    let dwords = (bytes as usize).div_ceil(4);
                    for k in 0..dwords {
                        let mut w = [0u8; 4];
                        w.copy_from_slice(&buf[4 * k..4 * k + 4]);
                        let mut v = u32::from_le_bytes(w);
                        if signed {
                            v = if bytes == 1 {
                                v as u8 as i8 as i32 as u32
                            } else {
                                v as u16 as i16 as i32 as u32
                            };
                        }
                        self.set_vgpr(f.vdst as usize + k, l, v);
                    }
                }
                FlatKind::Store { bytes } => {
                    let mut buf = [0u8; 16];
                    for k in 0..(bytes as usize).div_ceil(4) {
                        buf[4 * k..4 * k + 4]
                            .copy_from_slice(&self.vgpr(f.vdata as usize + k, l).to_le_bytes());
                    }
                    mem.write(addr, &buf[..bytes as usize]).map_err(err)?;
                }
            }
        }
        Ok(())
    }
}

fn cmp_apply(cond: u8, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match cond {
        0 => false,
        1 => o == Less,
        2 => o == Equal,
        3 => o != Greater,
        4 => o == Greater,
        5 => o != Equal,
        6 => o != Less,
        _ => true,
    }
}

#[inline]
fn sext24(x: u32) -> i64 {
    (((x << 8) as i32) >> 8) as i64
}

#[inline]
fn mask32(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1u32 << w) - 1
    }
}

#[inline]
fn mask64(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Unsigned bit-field extract (S_BFE_U32/U64, V_BFE_U32):
/// `(S0 >> offset) & ((1 << width) - 1)`; a width of the operand's size or
/// more keeps every bit shifted down.
fn bfe_u(x: u64, off: u32, width: u32) -> u64 {
    (x >> off) & mask64(width)
}

/// Signed bit-field extract (S_BFE_I32/I64, V_BFE_I32), from the RDNA3 ISA
/// guide's pseudocode:
/// `tmp = (S0.i >> offset) & ((1 << width) - 1); D0 = signext_from_bit(tmp, width)`.
/// The shift is arithmetic, so a field that runs past the top of the
/// register reads copies of the sign bit: the result is sign-extended from
/// where the field ends. `x` is the source already sign-extended to 64 bits;
/// width 0 gives 0.
fn bfe_i(x: i64, off: u32, width: u32) -> i64 {
    if width == 0 {
        return 0;
    }
    let shifted = x >> off;
    if width >= 64 {
        return shifted;
    }
    let t = shifted as u64 & mask64(width);
    if t >> (width - 1) & 1 == 1 {
        (t | !mask64(width)) as i64
    } else {
        t as i64
    }
}

/// S_BITREPLICATE_B64_B32: every bit of S0 twice.
fn bitreplicate(x: u32) -> u64 {
    (0..32).fold(0u64, |d, i| d | (((x >> i) & 1) as u64 * 3) << (2 * i))
}

/// S_QUADMASK: bit i = any of S0[4i +: 4] (`quads` quads).
fn quadmask(x: u64, quads: u32) -> u64 {
    (0..quads).fold(0u64, |d, i| d | (((x >> (4 * i)) & 0xf != 0) as u64) << i)
}

/// S_WQM: bit i = any of the quad holding bit i (`bits` bits).
fn wqm(x: u64, bits: u32) -> u64 {
    (0..bits).fold(0u64, |d, i| d | (((x >> (i & 60)) & 0xf != 0) as u64) << i)
}

/// V_SAD_U8 (`masked`: V_MSAD_U8, bytes whose reference S1 byte is 0 are
/// skipped): S2 + the sum over the four bytes of |S0[b] - S1[b]|.
fn sad_u8(x: u32, y: u32, acc: u32, masked: bool) -> u32 {
    (0..4).fold(acc, |t, k| {
        let (p, q) = ((x >> (8 * k)) & 0xff, (y >> (8 * k)) & 0xff);
        if masked && q == 0 {
            t
        } else {
            t.wrapping_add(p.abs_diff(q))
        }
    })
}

/// V_LERP_U8: per byte, (S0[b] + S1[b] + S2[8b]) >> 1 (the rounding bit is
/// the low bit of S2's byte).
fn lerp_u8(x: u32, y: u32, z: u32) -> u32 {
    (0..4).fold(0u32, |t, k| {
        let sh = 8 * k;
        let v = (((x >> sh) & 0xff) + ((y >> sh) & 0xff) + ((z >> sh) & 1)) >> 1;
        t | (v & 0xff) << sh
    })
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

/// V_PERM_B32: each selector byte of S2 picks a byte of {S0, S1} or a
/// constant (RDNA3 guide v_perm_b32 pseudocode).
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let data = ((s0 as u64) << 32) | s1 as u64;
    let mut out = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) as u8;
        let byte = match s {
            0..=7 => (data >> (8 * s)) as u8,
            8 => {
                if data >> 15 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            9 => {
                if data >> 31 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            10 => {
                if data >> 47 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            11 => {
                if data >> 63 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        out |= (byte as u32) << (8 * k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_and_med3_edges() {
        assert_eq!(bfe_u(0xf0, 4, 4), 0xf);
        assert_eq!(bfe_i(0xf0, 4, 4), -1);
        assert_eq!(bfe_i(0x1234, 0, 0), 0);
        assert_eq!(bfe_i((1u64 << 63) as i64, 63, 1), -1);
        assert_eq!(med3(5, 1, 3), 3);
        assert_eq!(med3(-1i32, -5, 7), -1);
        assert_eq!(perm(0x0102_0304, 0x0506_0708, 0x0c07_0004), 0x0001_0804);
    }
}
