//! The whole-row loops of the per-lane VALU semantics: `vdst = f(...)` over
//! a wave's 32 or 64 lanes, one loop per combination of vector and uniform
//! sources so the compiler vectorizes each, and V_CNDMASK_B32's blend.

use super::operand::Operand;
use super::{Vgprs, Wave};

/// A vector source of `N` lanes.
enum Row<'a, const N: usize> {
    V(&'a [u32; N]),
    S(u32),
}

/// Where a source's lanes are for the whole-row loops: its VGPR (row
/// `r * 64` of `Wave::v`), or one value for every lane.
#[derive(Clone, Copy)]
enum At {
    V(u8),
    S(u32),
}

/// Lanes per step of the whole-row loops: one 256-bit vector.
const STEP: usize = 8;

/// Lanes `k..k + STEP` of source `at` (`k < 64`). With an 8-bit register
/// number the range is inside [`Vgprs`] (`VGPRS` leaves room), so the
/// compiler drops the check; the 0 fallback is never taken.
#[inline(always)]
fn take(v: &Vgprs, at: At, k: usize) -> [u32; STEP] {
    match at {
        At::V(r) => {
            let b = r as usize * 64 + k;
            v.get(b..b + STEP)
                .and_then(|x| <[u32; STEP]>::try_from(x).ok())
                .unwrap_or([0; STEP])
        }
        At::S(x) => [x; STEP],
    }
}

/// Write lanes `k..k + STEP` of VGPR `r` (`k < 64`; in bounds as in [`take`]).
#[inline(always)]
fn put(v: &mut Vgprs, r: u8, k: usize, x: &[u32; STEP]) {
    let b = r as usize * 64 + k;
    if let Some(dst) = v.get_mut(b..b + STEP) {
        dst.copy_from_slice(x);
    }
}

impl Wave {
    /// Source `s` as the wave's `N` lanes: its VGPR row in place, or a scalar
    /// broadcast to every lane.
    #[inline(always)]
    fn row<const N: usize, S: Operand>(&self, s: S) -> Row<'_, N> {
        if let Some(r) = s.vreg() {
            let b = r as usize * 64;
            if let Some(x) = self
                .v
                .get(b..b + N)
                .and_then(|x| <&[u32; N]>::try_from(x).ok())
            {
                return Row::V(x);
            }
        }
        Row::S(s.r32(self))
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

    /// Where source `s`'s lanes are, for the whole-row loops.
    #[inline(always)]
    fn at<S: Operand>(&self, s: S) -> At {
        match s.vreg() {
            Some(r) => At::V(r),
            None => At::S(s.r32(self)),
        }
    }

    /// `vdst = f(s0, s1)` per lane; each operand combination gets its own
    /// loop so the compiler vectorizes it. With every lane active the
    /// result goes straight into `vdst`, STEP lanes at a time (each step
    /// reads its sources before writing, and no lane reads another's, so
    /// `vdst` may be a source); otherwise through a row and a masked store.
    #[inline(always)]
    pub(super) fn lanes2<const N: usize, S: Operand>(
        &mut self,
        vdst: u8,
        s0: S,
        s1: S,
        exec: u64,
        f: impl Fn(u32, u32) -> u32,
    ) {
        let full = u64::MAX >> (64 - N);
        if exec & full == full {
            macro_rules! run {
                ($a:expr, $b:expr) => {
                    for k in (0..N).step_by(STEP) {
                        let (x, y) = (take(&self.v, $a, k), take(&self.v, $b, k));
                        let mut r = [0u32; STEP];
                        for ((o, &x), &y) in r.iter_mut().zip(&x).zip(&y) {
                            *o = f(x, y);
                        }
                        put(&mut self.v, vdst, k, &r);
                    }
                };
            }
            match (self.at(s0), self.at(s1)) {
                (At::V(p), At::V(q)) => run!(At::V(p), At::V(q)),
                (At::V(p), At::S(y)) => run!(At::V(p), At::S(y)),
                (At::S(x), At::V(q)) => run!(At::S(x), At::V(q)),
                (At::S(x), At::S(y)) => run!(At::S(x), At::S(y)),
            }
            return;
        }
        let mut out = [0u32; N];
        match (self.row::<N, S>(s0), self.row::<N, S>(s1)) {
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

    /// `vdst = f(s0, s1, s2)` per lane. Each combination of vector and
    /// uniform (scalar) second and third sources gets its own loop, so
    /// shifts and masks by uniform values vectorize; a scalar first source
    /// is broadcast into a row.
    #[inline(always)]
    pub(super) fn lanes3<const N: usize, S: Operand>(
        &mut self,
        vdst: u8,
        src: &[S; 3],
        exec: u64,
        f: impl Fn(u32, u32, u32) -> u32,
    ) {
        // Every lane active: straight into `vdst`, as in `lanes2`.
        let full = u64::MAX >> (64 - N);
        if exec & full == full {
            macro_rules! run {
                ($a:expr, $b:expr, $c:expr) => {
                    for k in (0..N).step_by(STEP) {
                        let x = take(&self.v, $a, k);
                        let y = take(&self.v, $b, k);
                        let z = take(&self.v, $c, k);
                        let mut r = [0u32; STEP];
                        for (((o, &x), &y), &z) in r.iter_mut().zip(&x).zip(&y).zip(&z) {
                            *o = f(x, y, z);
                        }
                        put(&mut self.v, vdst, k, &r);
                    }
                };
            }
            use At::{S as U, V};
            match (self.at(src[0]), self.at(src[1]), self.at(src[2])) {
                (V(a), V(b), V(c)) => run!(V(a), V(b), V(c)),
                (V(a), V(b), U(z)) => run!(V(a), V(b), U(z)),
                (V(a), U(y), V(c)) => run!(V(a), U(y), V(c)),
                (V(a), U(y), U(z)) => run!(V(a), U(y), U(z)),
                (U(x), V(b), V(c)) => run!(U(x), V(b), V(c)),
                (U(x), V(b), U(z)) => run!(U(x), V(b), U(z)),
                (U(x), U(y), V(c)) => run!(U(x), U(y), V(c)),
                (U(x), U(y), U(z)) => run!(U(x), U(y), U(z)),
            }
            return;
        }
        let mut out = [0u32; N];
        let splat: [u32; N];
        let a: &[u32; N] = match self.row::<N, S>(src[0]) {
            Row::V(x) => x,
            Row::S(v) => {
                splat = [v; N];
                &splat
            }
        };
        match (self.row::<N, S>(src[1]), self.row::<N, S>(src[2])) {
            (Row::S(y), Row::S(z)) => {
                for (o, &x) in out.iter_mut().zip(a) {
                    *o = f(x, y, z);
                }
            }
            (Row::S(y), Row::V(c)) => {
                for ((o, &x), &z) in out.iter_mut().zip(a).zip(c) {
                    *o = f(x, y, z);
                }
            }
            (Row::V(b), Row::S(z)) => {
                for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                    *o = f(x, y, z);
                }
            }
            (Row::V(b), Row::V(c)) => {
                for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
                    *o = f(x, y, z);
                }
            }
        }
        self.store_row::<N>(vdst, &out, exec);
    }

    /// V_CNDMASK_B32 over `N` lanes: lane l takes S1 where bit l of the
    /// mask in S2 (VCC for the VOP2 form) is set, else S0. The mask is
    /// spread into a row of all-ones/zero words first (a table of single
    /// bits, no per-lane shift), then blended, so both loops vectorize.
    #[inline(always)]
    pub(super) fn cndmask<const N: usize, S: Operand>(
        &mut self,
        vdst: u8,
        src: &[S; 3],
        exec: u64,
    ) {
        const BIT: [u32; 32] = {
            let mut t = [0u32; 32];
            let mut i = 0;
            while i < 32 {
                t[i] = 1 << i;
                i += 1;
            }
            t
        };
        let mask = if self.lanes == 64 {
            src[2].r64(self)
        } else {
            src[2].r32(self) as u64
        };
        // Every lane active: straight into `vdst`, as in `lanes2`.
        let full = u64::MAX >> (64 - N);
        if exec & full == full {
            macro_rules! run {
                ($a:expr, $b:expr) => {
                    for k in (0..N).step_by(STEP) {
                        let (x, y) = (take(&self.v, $a, k), take(&self.v, $b, k));
                        let m = (mask >> (k & !31)) as u32;
                        let bits = BIT.get(k & 31..(k & 31) + STEP).unwrap_or(&[0; STEP]);
                        let mut r = [0u32; STEP];
                        for (((o, &x), &y), &bit) in r.iter_mut().zip(&x).zip(&y).zip(bits) {
                            let s = 0u32.wrapping_sub((m & bit != 0) as u32);
                            *o = (y & s) | (x & !s);
                        }
                        put(&mut self.v, vdst, k, &r);
                    }
                };
            }
            match (self.at(src[0]), self.at(src[1])) {
                (At::V(p), At::V(q)) => run!(At::V(p), At::V(q)),
                (At::V(p), At::S(y)) => run!(At::V(p), At::S(y)),
                (At::S(x), At::V(q)) => run!(At::S(x), At::V(q)),
                (At::S(x), At::S(y)) => run!(At::S(x), At::S(y)),
            }
            return;
        }
        let mut sel = [0u32; N];
        for (h, chunk) in sel.chunks_exact_mut(32).enumerate() {
            let m = (mask >> (32 * h)) as u32;
            for (s, &bit) in chunk.iter_mut().zip(&BIT) {
                *s = 0u32.wrapping_sub((m & bit != 0) as u32);
            }
        }
        let mut out = [0u32; N];
        match (self.row::<N, S>(src[0]), self.row::<N, S>(src[1])) {
            (Row::V(a), Row::V(b)) => {
                for (((o, &x), &y), &s) in out.iter_mut().zip(a).zip(b).zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
            (Row::S(x), Row::V(b)) => {
                for ((o, &y), &s) in out.iter_mut().zip(b).zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
            (Row::V(a), Row::S(y)) => {
                for ((o, &x), &s) in out.iter_mut().zip(a).zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
            (Row::S(x), Row::S(y)) => {
                for (o, &s) in out.iter_mut().zip(&sel) {
                    *o = (y & s) | (x & !s);
                }
            }
        }
        self.store_row::<N>(vdst, &out, exec);
    }
}
