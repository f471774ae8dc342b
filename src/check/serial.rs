//! The serializability check for one contended address (DESIGN.md,
//! "Checking contended atomics").
//!
//! Each active lane is an edge `ret → ret ^ data` in a directed multigraph
//! whose vertices are 64-bit values. Some serialization of the lanes
//! produces the observation exactly when the edges form one trail from the
//! initial value to the final value: every lane's read saw the value the
//! previous lane left (its `ret`), and wrote `ret ^ data` for the next one.
//! A trail exists iff the degrees balance (out − in is +1 at the start, −1 at
//! the end, 0 elsewhere; all 0 when start = end) and every edge lies in the
//! start's (weakly) connected component. Both are checked in O(lanes)
//! expected time with an open-addressing table and a union-find.
//!
//! Unknown start (slack qwords the kernel never initialised) or unknown end
//! (slack, or a final value a file does not claim) leave that endpoint free.

/// Why one address's observation has no serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TrailFailure {
    /// init ⊕ (XOR of all data) ≠ final: some update was lost or doubled.
    LostUpdate { expected_final: u64 },
    /// The returns do not chain: `value` is left (returned) `leaves` times but
    /// entered (initial value or some `ret ^ data`) `enters` times, counting
    /// the trail's ends.
    BrokenChain {
        value: u64,
        leaves: u32,
        enters: u32,
    },
    /// Degrees balance but these edges (indices into the edge list) form a
    /// cycle of values that is not reachable from the initial value.
    Detached { edges: Vec<usize> },
}

/// Reusable buffers, so judging many addresses allocates once.
#[derive(Default)]
pub(crate) struct TrailScratch {
    keys: Vec<u64>,
    stamp: Vec<u32>,
    slot_id: Vec<u32>,
    epoch: u32,
    mask: usize,
    // Per vertex.
    outs: Vec<u32>,
    ins: Vec<u32>,
    parent: Vec<u32>,
    values: Vec<u64>,
    // Per edge: vertex of ret (for connectivity).
    edge_from: Vec<u32>,
}

#[inline(always)]
fn hash(v: u64) -> u64 {
    // A multiplicative mix (splitmix64 finaliser): values are adversarial
    // only in the sense of being structured (xor chains), not hostile.
    let mut z = v.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl TrailScratch {
    fn reset(&mut self, max_vertices: usize) {
        let cap = (max_vertices * 2).next_power_of_two().max(16);
        if self.keys.len() < cap {
            self.keys = vec![0; cap];
            self.stamp = vec![0; cap];
            self.slot_id = vec![0; cap];
            self.epoch = 0;
        }
        self.mask = cap - 1;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        self.outs.clear();
        self.ins.clear();
        self.parent.clear();
        self.values.clear();
        self.edge_from.clear();
    }

    #[inline(always)]
    fn intern(&mut self, v: u64) -> u32 {
        let mut i = hash(v) as usize & self.mask;
        loop {
            let (Some(st), Some(k)) = (self.stamp.get(i), self.keys.get(i)) else {
                // Unreachable: the mask keeps i in bounds. Fall back to a
                // fresh vertex rather than panic.
                return self.push_vertex(v);
            };
            if *st != self.epoch {
                let id = self.push_vertex(v);
                if let (Some(s), Some(k), Some(d)) = (
                    self.stamp.get_mut(i),
                    self.keys.get_mut(i),
                    self.slot_id.get_mut(i),
                ) {
                    *s = self.epoch;
                    *k = v;
                    *d = id;
                }
                return id;
            }
            if *k == v {
                return self.slot_id.get(i).copied().unwrap_or(0);
            }
            i = (i + 1) & self.mask;
        }
    }

    fn push_vertex(&mut self, v: u64) -> u32 {
        let id = self.values.len() as u32;
        self.values.push(v);
        self.outs.push(0);
        self.ins.push(0);
        self.parent.push(id);
        id
    }

    #[inline(always)]
    fn find(&mut self, mut x: u32) -> u32 {
        // Path halving.
        loop {
            let p = self.parent.get(x as usize).copied().unwrap_or(x);
            if p == x {
                return x;
            }
            let gp = self.parent.get(p as usize).copied().unwrap_or(p);
            if let Some(slot) = self.parent.get_mut(x as usize) {
                *slot = gp;
            }
            x = gp;
        }
    }

    #[inline(always)]
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // Attach the larger id under the smaller: ids are dense and
            // path halving keeps trees shallow enough for linear behaviour.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            if let Some(slot) = self.parent.get_mut(hi as usize) {
                *slot = lo;
            }
        }
    }

    /// Is there one trail over all `edges` (each `(ret, data)`) from `start`
    /// to `end`? `None` endpoints are free.
    pub(crate) fn check(
        &mut self,
        start: Option<u64>,
        end: Option<u64>,
        edges: &[(u64, u64)],
    ) -> Result<(), TrailFailure> {
        if let (Some(s), Some(t)) = (start, end) {
            let x = edges.iter().fold(s, |a, &(_, d)| a ^ d);
            if x != t {
                return Err(TrailFailure::LostUpdate { expected_final: x });
            }
        }
        self.reset(edges.len() * 2 + 2);
        let s_id = start.map(|s| self.intern(s));
        let t_id = end.map(|t| self.intern(t));
        for &(ret, data) in edges {
            let u = self.intern(ret);
            let v = self.intern(ret ^ data);
            if let Some(o) = self.outs.get_mut(u as usize) {
                *o += 1;
            }
            if let Some(i) = self.ins.get_mut(v as usize) {
                *i += 1;
            }
            self.edge_from.push(u);
            self.union(u, v);
        }
        // Virtual edge t → s closes the trail: then every vertex balances.
        // With a free endpoint, exactly one vertex may be off by one.
        let mut ins_adj = std::mem::take(&mut self.ins);
        let mut outs_adj = std::mem::take(&mut self.outs);
        if let Some(s) = s_id {
            if let Some(i) = ins_adj.get_mut(s as usize) {
                *i += 1;
            }
        }
        if let Some(t) = t_id {
            if let Some(o) = outs_adj.get_mut(t as usize) {
                *o += 1;
            }
        }
        // After the virtual edges, out − in must be 0 everywhere, except that
        // a free end leaves one vertex at −1 (the end) and a free start one at
        // +1 (the start); with both free, both or neither.
        let mut plus: Vec<u32> = Vec::new();
        let mut minus: Vec<u32> = Vec::new();
        let mut bad: Option<u32> = None;
        for (id, (&o, &i)) in outs_adj.iter().zip(&ins_adj).enumerate() {
            let id = id as u32;
            if o == i + 1 {
                plus.push(id);
            } else if i == o + 1 {
                minus.push(id);
            } else if o != i {
                bad = bad.or(Some(id));
            }
        }
        let shape_ok = match (start.is_some(), end.is_some()) {
            (true, true) => plus.is_empty() && minus.is_empty(),
            (true, false) => plus.is_empty() && minus.len() == 1,
            (false, true) => plus.len() == 1 && minus.is_empty(),
            (false, false) => plus.len() == minus.len() && plus.len() <= 1,
        };
        // Degrees sum to the number of virtual edges, so a wrong shape always
        // has some vertex to blame; prefer the plainly broken one.
        let blame = bad.or(if shape_ok {
            None
        } else {
            plus.first().or(minus.first()).copied()
        });
        let result = if let Some(id) = blame {
            Err(TrailFailure::BrokenChain {
                value: self.values.get(id as usize).copied().unwrap_or(0),
                leaves: outs_adj.get(id as usize).copied().unwrap_or(0),
                enters: ins_adj.get(id as usize).copied().unwrap_or(0),
            })
        } else {
            // Connectivity: every edge in one component, the start's if known.
            let anchor = match s_id {
                Some(s) => Some(s),
                None => self.edge_from.first().copied(),
            };
            match anchor {
                None => Ok(()),
                Some(a) => {
                    let root = self.find(a);
                    let froms = std::mem::take(&mut self.edge_from);
                    let detached: Vec<usize> = froms
                        .iter()
                        .enumerate()
                        .filter(|(_, &u)| self.find(u) != root)
                        .map(|(e, _)| e)
                        .collect();
                    self.edge_from = froms;
                    if detached.is_empty() {
                        Ok(())
                    } else {
                        Err(TrailFailure::Detached { edges: detached })
                    }
                }
            }
        };
        self.ins = ins_adj;
        self.outs = outs_adj;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(start: u64, data: &[u64]) -> (Vec<(u64, u64)>, u64) {
        let mut v = start;
        let mut e = Vec::new();
        for &d in data {
            e.push((v, d));
            v ^= d;
        }
        (e, v)
    }

    #[test]
    fn any_order_is_accepted() {
        let mut s = TrailScratch::default();
        let (mut e, end) = chain(7, &[1, 2, 4, 0, 2, 2, u64::MAX]);
        assert_eq!(s.check(Some(7), Some(end), &e), Ok(()));
        e.reverse();
        assert_eq!(s.check(Some(7), Some(end), &e), Ok(()));
        assert_eq!(s.check(None, None, &e), Ok(()));
        assert_eq!(s.check(Some(7), None, &e), Ok(()));
        assert_eq!(s.check(None, Some(end), &e), Ok(()));
    }

    #[test]
    fn lost_update_is_named() {
        let mut s = TrailScratch::default();
        let (e, end) = chain(0, &[1, 2, 4]);
        assert_eq!(
            s.check(Some(0), Some(end ^ 4), &e),
            Err(TrailFailure::LostUpdate { expected_final: 7 })
        );
    }

    #[test]
    fn permuted_returns_break_the_chain() {
        let mut s = TrailScratch::default();
        // Chain 0 -1-> 1 -2-> 3 -4-> 7, but lanes 0 and 1 swapped returns.
        let e = [(1, 1), (0, 2), (3, 4)];
        assert!(matches!(
            s.check(Some(0), Some(7), &e),
            Err(TrailFailure::BrokenChain { .. })
        ));
    }

    #[test]
    fn detached_cycle_is_rejected() {
        let mut s = TrailScratch::default();
        // A real trail 0 -5-> 5 plus a cycle 100 -3-> 103 -3-> 100 that no
        // read could have seen: degrees balance, XOR balances, not connected.
        let e = [(0, 5), (100, 3), (103, 3)];
        assert_eq!(
            s.check(Some(0), Some(5), &e),
            Err(TrailFailure::Detached { edges: vec![1, 2] })
        );
        // A zero-data lane returning a value never present is a detached loop.
        let e = [(0, 5), (42, 0)];
        assert_eq!(
            s.check(Some(0), Some(5), &e),
            Err(TrailFailure::Detached { edges: vec![1] })
        );
    }

    #[test]
    fn free_ends_need_an_open_or_closed_trail() {
        let mut s = TrailScratch::default();
        // Two lanes both returning the same value with different data: no
        // trail whatever the ends.
        let e = [(9, 1), (9, 2)];
        assert!(s.check(None, None, &e).is_err());
        assert!(s.check(Some(9), None, &e).is_err());
    }
}
