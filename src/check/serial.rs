//! The serializability check for one contended address (docs/src/internals/serializability.md).
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
/// One open-addressing slot: key, the epoch that makes it live, vertex id
/// (one cache line access per probe).
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    stamp: u32,
    id: u32,
}

/// One value in the graph: how many lanes leave it (return it), how many
/// enter it (leave it behind), and its union-find parent.
#[derive(Clone, Copy)]
struct Vertex {
    value: u64,
    leaves: u32,
    enters: u32,
    parent: u32,
}

#[derive(Default)]
pub(crate) struct TrailScratch {
    slots: Vec<Slot>,
    epoch: u32,
    mask: usize,
    vertices: Vec<Vertex>,
    /// Per edge: vertex of its `ret` (for the connectivity pass).
    edge_from: Vec<u32>,
    /// Per edge: vertex of its `ret ^ data` ([`TrailScratch::trail_order`]).
    edge_to: Vec<u32>,
    /// The start's vertex in the last check, when known.
    start: Option<u32>,
    /// Per vertex: the one edge leaving it ([`TrailScratch::trail_order`]).
    out_edge: Vec<u32>,
}

#[inline(always)]
fn hash(v: u64) -> u64 {
    // A multiplicative mix (splitmix64 finaliser): values are structured
    // (xor chains), never hostile, so a fast mix suffices.
    let mut z = v.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl TrailScratch {
    fn reset(&mut self, max_vertices: usize) {
        // More slots than vertices can ever exist, so probing terminates;
        // load factor about 1/2 for a passing trail.
        let cap = (max_vertices * 2).next_power_of_two().max(16);
        if self.slots.len() < cap {
            self.slots = vec![Slot::default(); cap];
            self.epoch = 0;
        }
        self.mask = cap - 1;
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.slots.iter_mut().for_each(|s| s.stamp = 0);
            self.epoch = 1;
        }
        self.vertices.clear();
        self.edge_from.clear();
        self.edge_to.clear();
    }

    #[inline(always)]
    fn intern(&mut self, v: u64) -> u32 {
        let mut i = hash(v) as usize & self.mask;
        // The mask keeps i in bounds, so the loop ends only by `break`
        // (a new value) or `return` (a known one).
        while let Some(slot) = self.slots.get_mut(i) {
            if slot.stamp != self.epoch {
                let id = self.vertices.len() as u32;
                *slot = Slot {
                    key: v,
                    stamp: self.epoch,
                    id,
                };
                break;
            }
            if slot.key == v {
                return slot.id;
            }
            i = (i + 1) & self.mask;
        }
        let id = self.vertices.len() as u32;
        self.vertices.push(Vertex {
            value: v,
            leaves: 0,
            enters: 0,
            parent: id,
        });
        id
    }

    #[inline(always)]
    fn find(&mut self, mut x: u32) -> u32 {
        // Path halving.
        loop {
            let p = self.vertices.get(x as usize).map_or(x, |v| v.parent);
            if p == x {
                return x;
            }
            let gp = self.vertices.get(p as usize).map_or(p, |v| v.parent);
            if let Some(v) = self.vertices.get_mut(x as usize) {
                v.parent = gp;
            }
            x = gp;
        }
    }

    #[inline(always)]
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The larger id under the smaller; path halving keeps the trees
            // shallow (a trail adds its vertices in chain order).
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            if let Some(v) = self.vertices.get_mut(hi as usize) {
                v.parent = lo;
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
        // At most two new vertices per edge plus the two endpoints.
        self.reset(edges.len() * 2 + 2);
        let s_id = start.map(|s| self.intern(s));
        self.start = s_id;
        let t_id = end.map(|t| self.intern(t));
        // The virtual edge t → s closes the trail: then every vertex
        // balances. A free endpoint leaves one vertex off by one.
        if let Some(v) = s_id.and_then(|s| self.vertices.get_mut(s as usize)) {
            v.enters += 1;
        }
        if let Some(v) = t_id.and_then(|t| self.vertices.get_mut(t as usize)) {
            v.leaves += 1;
        }
        for &(ret, data) in edges {
            let u = self.intern(ret);
            let w = self.intern(ret ^ data);
            if let Some(x) = self.vertices.get_mut(u as usize) {
                x.leaves += 1;
            }
            if let Some(x) = self.vertices.get_mut(w as usize) {
                x.enters += 1;
            }
            self.edge_from.push(u);
            self.edge_to.push(w);
            self.union(u, w);
        }
        // out − in must be 0 everywhere, except that a free end leaves one
        // vertex at −1 (the end) and a free start one at +1 (the start);
        // with both free, both or neither.
        let mut plus: Option<u32> = None;
        let mut minus: Option<u32> = None;
        let (mut n_plus, mut n_minus) = (0usize, 0usize);
        let mut bad: Option<u32> = None;
        for (id, x) in self.vertices.iter().enumerate() {
            let id = id as u32;
            if x.leaves == x.enters + 1 {
                n_plus += 1;
                plus = plus.or(Some(id));
            } else if x.enters == x.leaves + 1 {
                n_minus += 1;
                minus = minus.or(Some(id));
            } else if x.leaves != x.enters {
                bad = bad.or(Some(id));
            }
        }
        let shape_ok = match (start.is_some(), end.is_some()) {
            (true, true) => n_plus == 0 && n_minus == 0,
            (true, false) => n_plus == 0 && n_minus == 1,
            (false, true) => n_plus == 1 && n_minus == 0,
            (false, false) => n_plus == n_minus && n_plus <= 1,
        };
        // Degrees sum to the number of virtual edges, so a wrong shape
        // always has a vertex to blame; prefer the plainly broken one.
        let blame = bad.or(if shape_ok { None } else { plus.or(minus) });
        if let Some(x) = blame.and_then(|id| self.vertices.get(id as usize)) {
            return Err(TrailFailure::BrokenChain {
                value: x.value,
                leaves: x.leaves,
                enters: x.enters,
            });
        }
        // Connectivity: every edge in one component, the start's if known.
        let Some(anchor) = s_id.or(self.edge_from.first().copied()) else {
            return Ok(());
        };
        let root = self.find(anchor);
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

impl TrailScratch {
    /// After a passing [`TrailScratch::check`] with a known start: the
    /// order the returns fix, `order[k]` the edge performed k-th, when no
    /// value is left by two edges (then each value has at most one edge out
    /// and the trail from the start is the only one). False when the order
    /// is open or the start unknown. Linear: the values were hashed by the
    /// check.
    pub(crate) fn trail_order(&mut self, order: &mut Vec<u32>) -> bool {
        order.clear();
        let Some(mut cur) = self.start else {
            return false;
        };
        self.out_edge.clear();
        self.out_edge.resize(self.vertices.len(), u32::MAX);
        for (e, &u) in self.edge_from.iter().enumerate() {
            match self.out_edge.get_mut(u as usize) {
                Some(x) if *x == u32::MAX => *x = e as u32,
                _ => return false,
            }
        }
        for _ in 0..self.edge_from.len() {
            let Some(e) = self.out_edge.get_mut(cur as usize) else {
                return false;
            };
            if *e == u32::MAX {
                return false;
            }
            let edge = std::mem::replace(e, u32::MAX);
            order.push(edge);
            match self.edge_to.get(edge as usize) {
                Some(&to) => cur = to,
                None => return false,
            }
        }
        true
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
