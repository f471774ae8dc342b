//! A short fingerprint of a case's inputs, recorded with every case of a
//! run so that two runs of one seed can be compared case by case (and a
//! replay with `--seed` shown to regenerate the same cases).

use sha2::{Digest, Sha256};

use crate::case::Case;

/// Tag hashed first, so a change of what is hashed changes every digest.
const DOMAIN: &[u8] = b"dsxor-case-digest/1\0";

/// First 16 hex digits (64 bits) of SHA-256 over everything the device is
/// given: geometry, LDS size, offset, every lane's ADDR, DATA, EXEC bit and
/// VDST-before, the mode when it is CU mode, and every workgroup's LDS image (integers little-endian,
/// lengths before sequences), and the traffic roles and spins when the case
/// has any. Not the pattern name or run index, which the
/// device never sees: a case named `(seed, pattern, wave, ordinal)` has one
/// digest whatever else the run selected. 64 bits tell cases apart; the
/// stream stays small. Rounds after the first (DATA and VDST-before per
/// lane) are hashed last, and only when present, so a one-round case has
/// the digest it had before rounds existed.
pub fn case_digest(case: &Case) -> String {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(case.geometry.wave_size.lanes().to_le_bytes());
    h.update(case.geometry.waves_per_group.to_le_bytes());
    h.update(case.geometry.groups.to_le_bytes());
    // CU mode only: a WGP-mode case keeps the digest it had before modes
    // existed (every case then ran in WGP mode).
    if case.geometry.mode == crate::case::Mode::Cu {
        h.update(b"cumode\0");
    }
    h.update(case.lds_bytes.to_le_bytes());
    h.update(case.offset.to_le_bytes());
    h.update((case.lanes.len() as u64).to_le_bytes());
    for l in &case.lanes {
        h.update(l.addr.to_le_bytes());
        h.update(l.data.to_le_bytes());
        h.update([u8::from(l.active)]);
        h.update(l.vdst_init.to_le_bytes());
    }
    h.update((case.lds_init.len() as u64).to_le_bytes());
    for g in &case.lds_init {
        h.update((g.len() as u64).to_le_bytes());
        let bytes: Vec<u8> = g.iter().flat_map(|q| q.to_le_bytes()).collect();
        h.update(&bytes);
    }
    // Rounds after the first, only when there are any: a one-round case
    // keeps the digest it had before rounds existed.
    if !case.more_rounds.is_empty() {
        h.update(b"rounds\0");
        h.update((case.more_rounds.len() as u64).to_le_bytes());
        let mut bytes = Vec::with_capacity(case.lanes.len() * 16);
        for r in &case.more_rounds {
            bytes.clear();
            h.update((r.data.len() as u64).to_le_bytes());
            for (d, v) in r.data.iter().zip(&r.vdst_init) {
                bytes.extend_from_slice(&d.to_le_bytes());
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            h.update(&bytes);
        }
    }
    // Background traffic, only when present: a case without it keeps the
    // digest it had before traffic existed.
    if let Some(t) = &case.traffic {
        h.update(b"traffic\0");
        h.update((t.lanes.len() as u64).to_le_bytes());
        let roles: Vec<u8> = t.lanes.iter().map(|&r| u8::from(r)).collect();
        h.update(&roles);
        h.update((t.spin.len() as u64).to_le_bytes());
        let spin: Vec<u8> = t.spin.iter().flat_map(|s| s.to_le_bytes()).collect();
        h.update(&spin);
    }
    let full = h.finalize();
    hex::encode(full.get(..8).unwrap_or(&full[..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::WaveSize;
    use crate::gen::{generate, CaseId, Pattern};

    fn case(seed: u64, ordinal: u64) -> Case {
        generate(
            seed,
            CaseId {
                pattern: Pattern::KPerAddress,
                wave: WaveSize::Wave32,
                mode: crate::case::Mode::Wgp,
                ordinal,
            },
            0,
        )
        .case
    }

    /// Digests are compared across runs and versions (`dsxor merge`, a
    /// replay with `--seed`): these are the ones the streaming SHA-256
    /// over each field wrote, for a one-round WGP case, a CU-mode case, and
    /// a case with rounds.
    #[test]
    fn digests_stay_what_earlier_versions_wrote() {
        let pinned = |id: CaseId| case_digest(&generate(7, id, 0).case);
        let id = |pattern, mode, ordinal| CaseId {
            pattern,
            wave: WaveSize::Wave64,
            mode,
            ordinal,
        };
        let got = [
            pinned(id(Pattern::OneAddress, crate::case::Mode::Wgp, 3)),
            pinned(id(Pattern::BigGroup, crate::case::Mode::Cu, 1)),
            pinned(id(Pattern::Uniform, crate::case::Mode::Wgp, 2)),
        ];
        let rounds = generate(7, id(Pattern::Uniform, crate::case::Mode::Wgp, 2), 0)
            .case
            .rounds();
        assert!(rounds > 1, "{rounds}");
        assert_eq!(
            got,
            ["06fbfbff6bcf49f1", "55f2eaf10d9964d5", "c135f4473238106f"]
        );
    }

    #[test]
    fn equal_cases_equal_digests_any_input_changes_it() {
        let a = case(1, 0);
        assert_eq!(case_digest(&a), case_digest(&case(1, 0)));
        assert_eq!(case_digest(&a).len(), 16);
        assert_ne!(case_digest(&a), case_digest(&case(2, 0)));
        assert_ne!(case_digest(&a), case_digest(&case(1, 1)));
        let mut b = a.clone();
        b.lanes[3].vdst_init ^= 1;
        assert_ne!(case_digest(&a), case_digest(&b));
        let mut b = a.clone();
        b.lanes[0].active = !b.lanes[0].active;
        assert_ne!(case_digest(&a), case_digest(&b));
        let mut b = a.clone();
        if let Some(q) = b.lds_init[0].last_mut() {
            *q ^= 1 << 63;
        }
        assert_ne!(case_digest(&a), case_digest(&b));
        let mut b = a.clone();
        b.offset ^= 8;
        assert_ne!(case_digest(&a), case_digest(&b));
    }
}
