//! A short fingerprint of a case's inputs, recorded with every case of a
//! run so that two runs of one seed can be compared case by case (and a
//! replay with `--seed` shown to regenerate the same cases).
//!
//! A fingerprint, not a security boundary: nothing trusts a digest to
//! prove who made a case, so a fast non-cryptographic hash (XXH3-64) does.
//! Format 1 was the first 64 bits of SHA-256 over the same bytes; every
//! digest changed with format 2, so a stream's header names its format
//! (`CasesHeader::case_digest_format`, absent: format 1) and
//! `report::results::compare_case_streams` refuses to compare two formats.

use xxhash_rust::xxh3::Xxh3Default;

use crate::case::Case;

/// Tag hashed first, so a change of what is hashed changes every digest.
/// Also the format's name in a case stream's header.
pub const DIGEST_FORMAT: &str = "dsxor-case-digest/2";

/// The format of a stream whose header names none: SHA-256, every stream
/// written before format 2.
pub const DIGEST_FORMAT_1: &str = "dsxor-case-digest/1";

/// Bytes gathered before each hasher update: the hasher's per-call cost
/// is paid per 4 KiB, not per field, and nothing is allocated per case.
const CHUNK: usize = 4096;

/// The bytes of a case, fed to XXH3 in chunks. (XXH3's streaming state
/// hashes any split of a byte sequence as the whole: flushing early only
/// costs a call.)
struct Sink {
    hasher: Xxh3Default,
    buf: [u8; CHUNK],
    len: usize,
}

impl Sink {
    /// The next `n` bytes of the stream (`n <= CHUNK`), to fill in.
    fn room(&mut self, n: usize) -> &mut [u8] {
        if self.len + n > CHUNK {
            self.hasher.update(&self.buf[..self.len]);
            self.len = 0;
        }
        let at = self.len;
        self.len += n;
        &mut self.buf[at..at + n]
    }

    fn put(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(CHUNK) {
            self.room(c.len()).copy_from_slice(c);
        }
    }

    /// Words little-endian, a buffer's worth at a time (one copy loop the
    /// compiler vectorizes, where a call per word was most of the digest).
    fn u64s(&mut self, words: &[u64]) {
        for ws in words.chunks(CHUNK / 8) {
            let dst = self.room(ws.len() * 8);
            for (d, w) in dst.chunks_exact_mut(8).zip(ws) {
                d.copy_from_slice(&w.to_le_bytes());
            }
        }
    }

    fn finish(mut self) -> u64 {
        self.hasher.update(&self.buf[..self.len]);
        self.hasher.digest()
    }
}

/// XXH3-64 (seed 0, the default secret) over everything the device is
/// given, as 16 hex digits (the hash's canonical big-endian form, as
/// `xxhsum -H3` prints it): the format tag, geometry, LDS size, offset, every
/// lane's ADDR, DATA, EXEC bit and VDST-before, the mode when it is CU mode,
/// and every workgroup's LDS image (integers little-endian, lengths before
/// sequences), the rounds after the first (DATA and VDST-before per lane)
/// when there are any, and the traffic roles and spins when the case has
/// any. The bytes are format 1's with its tag replaced, so what decides a
/// digest is unchanged. Not the pattern name or run index, which the device
/// never sees: a case named `(seed, pattern, wave, ordinal)` has one digest
/// whatever else the run selected. 64 bits tell cases apart; the stream
/// stays small. Computed once per case (`suite::run`'s `Facts`).
pub fn case_digest(case: &Case) -> String {
    format!("{:016x}", case_digest_u64(case))
}

/// [`case_digest`] as a number.
pub fn case_digest_u64(case: &Case) -> u64 {
    let mut h = Sink {
        hasher: Xxh3Default::new(),
        buf: [0; CHUNK],
        len: 0,
    };
    h.put(DIGEST_FORMAT.as_bytes());
    h.put(b"\0");
    h.put(&case.geometry.wave_size.lanes().to_le_bytes());
    h.put(&case.geometry.waves_per_group.to_le_bytes());
    h.put(&case.geometry.groups.to_le_bytes());
    // CU mode only: format 1 hashed nothing for WGP mode (every case ran in
    // WGP mode before modes existed).
    if case.geometry.mode == crate::case::Mode::Cu {
        h.put(b"cumode\0");
    }
    h.put(&case.lds_bytes.to_le_bytes());
    h.put(&case.offset.to_le_bytes());
    h.put(&(case.lanes.len() as u64).to_le_bytes());
    for l in &case.lanes {
        // ADDR (4 bytes), DATA (8), EXEC (1), VDST-before (8).
        let d = h.room(21);
        d[..4].copy_from_slice(&l.addr.to_le_bytes());
        d[4..12].copy_from_slice(&l.data.to_le_bytes());
        d[12] = u8::from(l.active);
        d[13..].copy_from_slice(&l.vdst_init.to_le_bytes());
    }
    h.put(&(case.lds_init.len() as u64).to_le_bytes());
    for g in &case.lds_init {
        h.put(&(g.len() as u64).to_le_bytes());
        h.u64s(g);
    }
    if !case.more_rounds.is_empty() {
        h.put(b"rounds\0");
        h.put(&(case.more_rounds.len() as u64).to_le_bytes());
        for r in &case.more_rounds {
            h.put(&(r.data.len() as u64).to_le_bytes());
            for (d, v) in r.data.iter().zip(&r.vdst_init) {
                let b = h.room(16);
                b[..8].copy_from_slice(&d.to_le_bytes());
                b[8..].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    if let Some(t) = &case.traffic {
        h.put(b"traffic\0");
        h.put(&(t.lanes.len() as u64).to_le_bytes());
        for &r in &t.lanes {
            h.put(&[u8::from(r)]);
        }
        h.put(&(t.spin.len() as u64).to_le_bytes());
        for s in &t.spin {
            h.put(&s.to_le_bytes());
        }
    }
    h.finish()
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
    /// replay with `--seed`): these are the format-2 digests of a one-round
    /// WGP case, a CU-mode case, and a case with rounds. (Format 1, SHA-256,
    /// gave 06fbfbff6bcf49f1, 55f2eaf10d9964d5, c135f4473238106f.) Each was
    /// checked once against `xxhsum -H3` (xxHash 0.8, the reference
    /// implementation) over the bytes `reference_bytes` writes.
    #[test]
    fn digests_stay_what_earlier_versions_wrote() {
        let got = pinned_ids().map(|id| case_digest(&generate(7, id, 0).case));
        let rounds = generate(7, pinned_ids()[2], 0).case.rounds();
        assert!(rounds > 1, "{rounds}");
        assert_eq!(
            got,
            ["5f8d1a1cba75943c", "21c30d4a7198d9c3", "58ec0628bd2b15c0"]
        );
    }

    fn pinned_ids() -> [CaseId; 3] {
        let id = |pattern, mode, ordinal| CaseId {
            pattern,
            wave: WaveSize::Wave64,
            mode,
            ordinal,
        };
        [
            id(Pattern::OneAddress, crate::case::Mode::Wgp, 3),
            id(Pattern::BigGroup, crate::case::Mode::Cu, 1),
            id(Pattern::Uniform, crate::case::Mode::Wgp, 2),
        ]
    }

    /// The hashed bytes written out in one go, field by field as the doc
    /// of `case_digest` lists them: what the chunked sink must hash.
    fn reference_bytes(case: &Case) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(b"dsxor-case-digest/2\0");
        b.extend_from_slice(&case.geometry.wave_size.lanes().to_le_bytes());
        b.extend_from_slice(&case.geometry.waves_per_group.to_le_bytes());
        b.extend_from_slice(&case.geometry.groups.to_le_bytes());
        if case.geometry.mode == crate::case::Mode::Cu {
            b.extend_from_slice(b"cumode\0");
        }
        b.extend_from_slice(&case.lds_bytes.to_le_bytes());
        b.extend_from_slice(&case.offset.to_le_bytes());
        b.extend_from_slice(&(case.lanes.len() as u64).to_le_bytes());
        for l in &case.lanes {
            b.extend_from_slice(&l.addr.to_le_bytes());
            b.extend_from_slice(&l.data.to_le_bytes());
            b.push(u8::from(l.active));
            b.extend_from_slice(&l.vdst_init.to_le_bytes());
        }
        b.extend_from_slice(&(case.lds_init.len() as u64).to_le_bytes());
        for g in &case.lds_init {
            b.extend_from_slice(&(g.len() as u64).to_le_bytes());
            g.iter().for_each(|q| b.extend_from_slice(&q.to_le_bytes()));
        }
        if !case.more_rounds.is_empty() {
            b.extend_from_slice(b"rounds\0");
            b.extend_from_slice(&(case.more_rounds.len() as u64).to_le_bytes());
            for r in &case.more_rounds {
                b.extend_from_slice(&(r.data.len() as u64).to_le_bytes());
                for (d, v) in r.data.iter().zip(&r.vdst_init) {
                    b.extend_from_slice(&d.to_le_bytes());
                    b.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        if let Some(t) = &case.traffic {
            b.extend_from_slice(b"traffic\0");
            b.extend_from_slice(&(t.lanes.len() as u64).to_le_bytes());
            t.lanes.iter().for_each(|&r| b.push(u8::from(r)));
            b.extend_from_slice(&(t.spin.len() as u64).to_le_bytes());
            t.spin
                .iter()
                .for_each(|s| b.extend_from_slice(&s.to_le_bytes()));
        }
        b
    }

    /// The sink's 4 KiB chunks hash exactly the bytes written in one go,
    /// for cases far below, around and far above one chunk. With
    /// `DSXOR_DIGEST_BYTES_DIR` set, the pinned cases' bytes are written
    /// there, for `xxhsum -H3` to check the pinned digests.
    #[test]
    fn chunks_hash_the_listed_bytes_in_one_go() {
        let mut sizes = Vec::new();
        let mut cases = Vec::new();
        for id in pinned_ids() {
            for ordinal in 0..6 {
                cases.push(generate(7, CaseId { ordinal, ..id }, 0).case);
            }
        }
        // One far below a chunk, as hand-made cases and minimized repros are.
        let mut small = cases[0].clone();
        small.lanes.truncate(3);
        small.lds_init = vec![vec![1, 2, 3]];
        small.more_rounds.clear();
        let mut traffic = small.clone();
        traffic.traffic = Some(crate::case::Traffic {
            lanes: vec![true, false, false],
            spin: vec![1, 0, 65535],
        });
        cases.push(small);
        cases.push(traffic);
        for (k, case) in cases.iter().enumerate() {
            let bytes = reference_bytes(case);
            sizes.push(bytes.len());
            assert_eq!(
                case_digest_u64(case),
                xxhash_rust::xxh3::xxh3_64(&bytes),
                "case {k} ({}), {} bytes",
                case.pattern,
                bytes.len()
            );
        }
        assert!(
            sizes.iter().any(|&n| n < CHUNK) && sizes.iter().any(|&n| n > 3 * CHUNK),
            "{sizes:?}"
        );
        if let Some(dir) = std::env::var_os("DSXOR_DIGEST_BYTES_DIR") {
            for (k, id) in pinned_ids().into_iter().enumerate() {
                let bytes = reference_bytes(&generate(7, id, 0).case);
                std::fs::write(
                    std::path::Path::new(&dir).join(format!("pinned{k}.bin")),
                    bytes,
                )
                .unwrap();
            }
        }
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
