//! How many rounds a case has, and the DATA and VDST-before of its rounds
//! after the first.
//!
//! A round is one more `ds_xor_rtn_b64` per lane in the same launch, on the
//! same addresses with the same EXEC (kernels/dsxor.hip, "Conformance
//! kernels with rounds"). Rounds amortize what a launch costs whatever it
//! checks (copying the LDS image in and out, the launch itself): measured
//! on the software device, docs/src/internals/performance.md.
//!
//! Round 0 is the case as the pattern drew it, from the case's own stream;
//! the round count and the later rounds come from a second stream of the
//! same seed and case id (`CaseRng::with_domain`), so a one-round case is
//! byte for byte what it was before rounds existed (same digest), and
//! adding rounds to a case never changes its round 0.

use crate::case::{Case, Round};

use super::pattern::{CaseId, Pattern};
use super::rng::CaseRng;

/// Key domain of the rounds stream (`CaseRng::with_domain`): "rounds".
const ROUNDS_DOMAIN: u64 = u64::from_le_bytes(*b"rounds\0\0");

/// Rounds of a multi-round case. A case of R rounds costs about
/// F + R * P on the software device, F the launch and the LDS image copies
/// and P one round (emulation, check, generation); measured, P is a small
/// part of F at every LDS size the patterns draw, so verified lane-ops per
/// CPU-second grow with R until P dominates: 16 is past the knee
/// (performance.md has the table).
pub const MULTI_ROUNDS: usize = 16;

/// One case in `ONE_ROUND_EVERY` keeps a single round: the launch shape
/// every case had before rounds (one instruction per launch) stays covered.
pub const ONE_ROUND_EVERY: u64 = 8;

/// The round count of case `id` of the run with `seed`. Its own function
/// (and its own stream) so the mix can be retuned without touching what a
/// pattern draws. Probes keep one round: a misaligned or out-of-range lane
/// judges the dispatch, not the round, and probes can fault real hardware.
pub fn round_count(rng: &mut CaseRng, id: &CaseId) -> usize {
    if id.pattern.is_probe() || rng.below(ONE_ROUND_EVERY) == 0 {
        1
    } else {
        MULTI_ROUNDS
    }
}

/// Give `case` (generated for `id` of the run with `seed`) its rounds:
/// DATA drawn the way its pattern and variant draw round 0's, a fresh VDST
/// poison per lane and round.
pub fn add_rounds(case: &mut Case, seed: u64, id: &CaseId, variant: &str) {
    let mut rng = CaseRng::with_domain(seed, ROUNDS_DOMAIN, id.stream());
    let rounds = round_count(&mut rng, id);
    let per_group = case.geometry.lanes_per_group().max(1) as usize;
    case.more_rounds = (1..rounds)
        .map(|_| {
            let data = match (id.pattern, variant) {
                (Pattern::Data, "zero") => vec![0; case.lanes.len()],
                (Pattern::Data, "all-ones") => vec![u64::MAX; case.lanes.len()],
                (Pattern::Data, "single-bit") => (0..case.lanes.len())
                    .map(|_| 1u64 << rng.below(64))
                    .collect(),
                (Pattern::Data, "equal-contenders") => {
                    // One value per (group, address), as round 0 has.
                    let mut by_addr = std::collections::BTreeMap::new();
                    case.lanes
                        .iter()
                        .enumerate()
                        .map(|(i, l)| {
                            *by_addr
                                .entry((i / per_group, l.addr))
                                .or_insert_with(|| rng.next_u64())
                        })
                        .collect()
                }
                _ => {
                    let mut data = vec![0; case.lanes.len()];
                    rng.fill_u64(&mut data);
                    data
                }
            };
            let mut vdst_init = vec![0; case.lanes.len()];
            rng.fill_u64(&mut vdst_init);
            Round { data, vdst_init }
        })
        .collect();
}
