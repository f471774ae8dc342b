//! Spans over GF(2): the check of contended throughput lanes (`expect`) and
//! the DATA subspace they are drawn from (`pattern`) both need one, so it
//! lives below both rather than in either.

/// A basis of a subspace of GF(2)^64, in reduced echelon form by leading bit.
#[derive(Clone, Debug)]
pub struct Gf2Basis {
    /// `rows[b]`: the basis vector whose highest set bit is `b`, or 0.
    rows: [u64; 64],
    rank: usize,
}

impl Default for Gf2Basis {
    fn default() -> Self {
        Gf2Basis {
            rows: [0; 64],
            rank: 0,
        }
    }
}

impl Gf2Basis {
    /// Reduce `v` by the basis: 0 exactly when `v` is in the span.
    pub fn reduce(&self, mut v: u64) -> u64 {
        while v != 0 {
            let top = 63 - v.leading_zeros() as usize;
            let r = self.rows[top];
            if r == 0 {
                break;
            }
            v ^= r;
        }
        v
    }

    /// Add `v` to the span; true when it was not in it already.
    pub fn insert(&mut self, v: u64) -> bool {
        let r = self.reduce(v);
        if r == 0 {
            return false;
        }
        let top = 63 - r.leading_zeros() as usize;
        self.rows[top] = r;
        self.rank += 1;
        true
    }

    pub fn contains(&self, v: u64) -> bool {
        self.reduce(v) == 0
    }

    pub fn rank(&self) -> usize {
        self.rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gf2_basis() {
        let mut b = Gf2Basis::default();
        assert!(b.insert(0b1010));
        assert!(b.insert(0b0110));
        assert!(!b.insert(0b1100));
        assert!(!b.insert(0));
        assert!(b.contains(0b1100));
        assert!(!b.contains(0b0001));
        assert_eq!(b.rank(), 2);
    }
}
