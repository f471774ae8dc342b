//! The conformance pipeline end to end on a test double: a fake device that
//! implements the conformance kernel's contract (kernels/dsxor.hip ABI) in
//! plain Rust, with switches to misbehave. It drives the real Case → Dispatch
//! → Observation code (`backend::conformance`), the runner, the minimizer,
//! repro files, results files, JUnit and merge. Never shipped as a backend.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dsxor::backend::conformance::{
    ConformanceDevice, DeviceOutcome, KernelObject, BUF_ACTIVE, BUF_ADDR, BUF_DATA, BUF_LDS_INIT,
    BUF_LDS_OUT, BUF_RET, BUF_VERDICT, KERNEL_PREFIX, ROUNDS_KERNEL_PREFIX, TRAFFIC_KERNEL_PREFIX,
};
use dsxor::backend::{
    ArgValue, Backend, BackendError, BackendKind, Completion, DeviceInfo, Dispatch,
};
use dsxor::case::{Case, Mode, WaveSize};
use dsxor::gen::minimize::Budget;
use dsxor::gen::{Pattern, Shard, SuiteSpec};
use dsxor::report::results::{Parameters, Results, Status};
use dsxor::suite::repro::Repro;
use dsxor::suite::run::{replay, run_suite, RunOptions};
use dsxor::suite::{Judge, JudgeError, Judgement};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Misbehave {
    None,
    /// The second lane (in serialization order) at an address reads the
    /// qword but its write is lost.
    LoseSecondUpdate,
    /// Lane 5 of each group returns its value with bit 0 flipped.
    FlipReturnBit,
    /// Every dispatch after the first `n` fails with an environment error.
    EnvironmentAfter(u64),
    /// Faults whenever an active lane has data with bit 63 set.
    FaultOnHighBit,
    /// FlipReturnBit, and an environment error after the first `n` dispatches.
    FlipReturnBitThenEnvironmentAfter(u64),
}

/// A fake conformance device. Lanes of a group are serialized in ascending
/// order; out-of-range (past the 512-byte granule) writes dropped, reads 0;
/// misaligned → fault.
struct FakeGpu {
    info: DeviceInfo,
    misbehave: Misbehave,
    dispatches: u64,
}

fn fake_info() -> DeviceInfo {
    DeviceInfo {
        backend: BackendKind::Emu,
        name: "fake conformance device (test double)".into(),
        target_id: "gfx1100".into(),
        wave_sizes: vec![32, 64],
        compute_units: 1,
        clock_khz: None,
        lds_per_block: 65536,
        runtime_version: None,
        driver_version: None,
        pci_bus_id: None,
        uuid: None,
        placement: None,
    }
}

impl FakeGpu {
    fn new(misbehave: Misbehave) -> FakeGpu {
        FakeGpu {
            info: fake_info(),
            misbehave,
            dispatches: 0,
        }
    }
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The fake "code object": `fake` or `fake+off` followed by the offset.
fn fake_offset(code_object: &[u8], kernel: &str) -> u16 {
    if let Some(rest) = code_object.strip_prefix(b"fake+off") {
        return u16::from_le_bytes([rest[0], rest[1]]);
    }
    kernel
        .trim_start_matches(TRAFFIC_KERNEL_PREFIX)
        .trim_start_matches(ROUNDS_KERNEL_PREFIX)
        .trim_start_matches(KERNEL_PREFIX)
        .parse()
        .unwrap()
}

impl Backend for FakeGpu {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        self.dispatches += 1;
        if let Misbehave::EnvironmentAfter(n) | Misbehave::FlipReturnBitThenEnvironmentAfter(n) =
            self.misbehave
        {
            if self.dispatches > n {
                return Err(BackendError::Environment(
                    "the fake device fell off the bus".into(),
                ));
            }
        }
        // One-round kernels take 7 arguments; the rounds kernels add
        // `rounds`, with data and ret lane-major (lane * rounds + r); the
        // traffic kernels also `ctl` and `verdict`. Their traffic lanes
        // are inactive for the atomic, and this device has no traffic to
        // get wrong: every lane's verdict is 0, as the kernel writes it.
        let traffic = d.kernel.starts_with(TRAFFIC_KERNEL_PREFIX);
        let rounds = match (
            d.args.len(),
            d.kernel.starts_with(ROUNDS_KERNEL_PREFIX) || traffic,
        ) {
            (7, false) => 1,
            (8 | 10, true) => match d.args[7] {
                ArgValue::U32(r) => r as usize,
                _ => panic!("rounds"),
            },
            (n, _) => panic!("{n} arguments for {}", d.kernel),
        };
        let ArgValue::U32(q) = d.args[6] else {
            panic!("lds_qwords")
        };
        let q = q as usize;
        assert_eq!(d.dynamic_lds as usize, q * 8);
        let offset = u32::from(fake_offset(d.code_object, d.kernel));
        let addr = u32s(&d.buffers[BUF_ADDR]);
        let data = u64s(&d.buffers[BUF_DATA]);
        let active = u32s(&d.buffers[BUF_ACTIVE]);
        let init = u64s(&d.buffers[BUF_LDS_INIT]);
        let mut ret = u64s(&d.buffers[BUF_RET]);
        let block = d.block as usize;
        let alloc = (q * 8).div_ceil(512) * 512;
        let mut out = Vec::with_capacity(init.len());
        for g in 0..d.groups as usize {
            let mut lds = init[g * q..(g + 1) * q].to_vec();
            lds.resize(alloc / 8, 0);
            for r in 0..rounds {
                let mut hits = std::collections::HashMap::new();
                for i in g * block..(g + 1) * block {
                    if active[i] == 0 {
                        continue;
                    }
                    let k = i * rounds + r;
                    let eff = u64::from(addr[i]) + u64::from(offset);
                    if eff % 8 != 0 {
                        return Err(BackendError::Fault(format!("MEMVIOL at {eff:#x}")));
                    }
                    if self.misbehave == Misbehave::FaultOnHighBit && data[k] >> 63 == 1 {
                        return Err(BackendError::Fault("wave fault (injected)".into()));
                    }
                    if eff >= alloc as u64 {
                        ret[k] = 0;
                        continue;
                    }
                    let slot = &mut lds[(eff / 8) as usize];
                    let n = hits.entry(eff).or_insert(0u32);
                    *n += 1;
                    ret[k] = *slot;
                    if !(self.misbehave == Misbehave::LoseSecondUpdate && *n == 2) {
                        *slot ^= data[k];
                    }
                    let flip = matches!(
                        self.misbehave,
                        Misbehave::FlipReturnBit | Misbehave::FlipReturnBitThenEnvironmentAfter(_)
                    );
                    if flip && i - g * block == 5 {
                        ret[k] ^= 1;
                    }
                }
            }
            out.extend_from_slice(&lds[..q]);
        }
        let mut buffers = d.buffers.clone();
        buffers[BUF_RET] = ret.iter().flat_map(|v| v.to_le_bytes()).collect();
        buffers[BUF_LDS_OUT] = out.iter().flat_map(|v| v.to_le_bytes()).collect();
        if traffic {
            buffers[BUF_VERDICT] = vec![0; buffers[BUF_VERDICT].len()];
        }
        Ok(Completion {
            buffers,
            elapsed: Duration::from_micros(3),
            wgp_mode: None,
        })
    }
}

fn list_kernels(_: &[u8]) -> Result<Vec<String>, String> {
    Ok([0u16, 8, 4096, 65528]
        .iter()
        .flat_map(|o| {
            [
                format!("{KERNEL_PREFIX}{o}"),
                format!("{ROUNDS_KERNEL_PREFIX}{o}"),
                format!("{TRAFFIC_KERNEL_PREFIX}{o}"),
            ]
        })
        .collect())
}

fn patch(_: &[u8], kernel: &str, offset: u16) -> Result<Vec<u8>, String> {
    assert!(
        kernel == "dsxor_conformance_off0" || kernel == "dsxor_conformance_rounds_off0",
        "{kernel}"
    );
    let mut v = b"fake+off".to_vec();
    v.extend_from_slice(&offset.to_le_bytes());
    Ok(v)
}

fn device(misbehave: Misbehave) -> ConformanceDevice<FakeGpu> {
    let objects = [WaveSize::Wave32, WaveSize::Wave64]
        .into_iter()
        .flat_map(|wave| dsxor::case::Mode::BOTH.map(|mode| (wave, mode)))
        .map(|(wave, mode)| KernelObject {
            wave,
            mode,
            bytes: b"fake".to_vec(),
            source: "test".into(),
            origin: "file".into(),
            compiler: None,
        })
        .collect();
    ConformanceDevice::new(
        FakeGpu::new(misbehave),
        objects,
        list_kernels,
        patch,
        Duration::from_secs(5),
    )
}

/// Test judge: exact comparison against lane-ascending serialization
/// (the fake's order), computed here independently of the fake's code.
struct AscendingJudge;

fn reference(case: &Case) -> Result<(Vec<u64>, Vec<Vec<u64>>), String> {
    let lpg = case.geometry.lanes_per_group() as usize;
    let n = case.lanes.len();
    // Round-major, as Observation::ret.
    let mut ret: Vec<u64> = (0..case.rounds())
        .flat_map(|r| (0..n).map(move |i| (r, i)))
        .map(|(r, i)| case.round_input(r, i).unwrap().1)
        .collect();
    let mut fin = Vec::new();
    for (g, img) in case.lds_init.iter().enumerate() {
        let mut lds = img.clone();
        let alloc = (case.lds_bytes as u64).div_ceil(512) * 512;
        let mut slack = vec![0u64; ((alloc - u64::from(case.lds_bytes)) / 8) as usize];
        for r in 0..case.rounds() {
            for (i, l) in case.lanes.iter().enumerate().skip(g * lpg).take(lpg) {
                if !l.active {
                    continue;
                }
                let eff = u64::from(l.addr) + u64::from(case.offset);
                if eff % 8 != 0 {
                    return Err(format!("lane {i} misaligned"));
                }
                let q = (eff / 8) as usize;
                let cell = if q < lds.len() {
                    &mut lds[q]
                } else if eff < alloc {
                    &mut slack[q - img.len()]
                } else {
                    ret[r * n + i] = 0;
                    continue;
                };
                ret[r * n + i] = *cell;
                *cell ^= case.round_input(r, i).unwrap().0;
            }
        }
        fin.push(lds);
    }
    Ok((ret, fin))
}

impl Judge for AscendingJudge {
    fn judge(&self, case: &Case, outcome: &DeviceOutcome) -> Result<Judgement, JudgeError> {
        let verdict = |passed: bool, kind: &str, summary: String| Judgement {
            passed,
            kind: (!passed).then(|| kind.to_string()),
            summary: summary.clone(),
            explanation: summary,
            notes: vec![],
            halves_split: None,
            expected: serde_json::Value::Null,
        };
        let reference = reference(case);
        Ok(match (outcome, reference) {
            (DeviceOutcome::Completed { observation, .. }, Ok((ret, fin))) => {
                if let Some(i) = (0..ret.len()).find(|&i| ret[i] != observation.ret[i]) {
                    verdict(
                        false,
                        "wrong-return",
                        format!("lane {i} returned {:#x}", observation.ret[i]),
                    )
                } else if fin != observation.lds_final {
                    verdict(false, "wrong-final", "final LDS differs".into())
                } else {
                    verdict(true, "", "ok".into())
                }
            }
            (DeviceOutcome::Fault { .. }, Err(_)) => {
                verdict(true, "", "faulted as expected".into())
            }
            (DeviceOutcome::Fault { message }, Ok(_)) => {
                verdict(false, "unexpected-fault", message.clone())
            }
            (DeviceOutcome::Completed { .. }, Err(e)) => verdict(false, "missing-fault", e),
            (DeviceOutcome::Timeout { message }, _) => verdict(false, "timeout", message.clone()),
        })
    }
    fn policy(&self) -> String {
        "test: lane-ascending, 512-byte granule".into()
    }
}

fn options(dir: &Path, spec: SuiteSpec) -> RunOptions {
    RunOptions {
        spec,
        out_dir: dir.to_path_buf(),
        results_path: None,
        junit: Some(dir.join("junit.xml")),
        minimize: Budget {
            time: Duration::from_secs(30),
            max_tries: 5000,
        },
        max_repros: 100,
        parameters: Parameters {
            timeout_ms: 5000,
            minimize_budget_ms: 30000,
            fault: None,
            interleave_seed: None,
            policy: "test".into(),
        },
        selection: "test double".into(),
        interactive: Some(false),
        probes: Vec::new(),
    }
}

fn all_spec(seed: u64, cases: u64, shard: Shard) -> SuiteSpec {
    SuiteSpec::new(seed, cases, &[], &Pattern::PROBES, &[], shard).unwrap()
}

fn jsonl_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_correct_device_passes_every_pattern_and_leaves_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut dev = device(Misbehave::None);
    let out = run_suite(
        &mut dev,
        &AscendingJudge,
        // Enough cases that the default mix (offset: 75 of 1000) reaches
        // the patched-offset variants.
        &options(dir.path(), all_spec(11, 440, Shard::WHOLE)),
    )
    .unwrap();
    assert_eq!(out.exit_code, 0, "{:?}", out.results.failures);
    assert_eq!(out.results.status, Status::Passed);
    assert_eq!(out.results.total, 440);
    // A cell per (pattern, wave, mode) the plan gives cases to: every
    // plain family and both probes in both waves and both modes; the shape
    // families' small shares reach few of theirs at 440 cases.
    let planned = all_spec(11, 440, Shard::WHOLE).cells_with_cases();
    let shapes = [Pattern::BigGroup, Pattern::Occupancy, Pattern::LdsStraddle];
    for p in Pattern::all().filter(|p| !shapes.contains(p)) {
        for w in [WaveSize::Wave32, WaveSize::Wave64] {
            for m in [Mode::Cu, Mode::Wgp] {
                assert!(planned.contains(&(p, w, m)), "{p} {w:?} {m:?}");
            }
        }
    }
    assert_eq!(out.results.patterns.len(), planned.len());
    let back = Results::read(&out.results_path).unwrap();
    assert_eq!(back, out.results);
    let lines = jsonl_lines(&dir.path().join(back.cases_file.as_ref().unwrap()));
    assert_eq!(lines.len(), 441);
    assert_eq!(lines[0]["format"], "dsxor-cases/1");
    assert!(lines[1..].iter().all(|l| l["passed"] == true));
    // Patched offsets went through the patch hook.
    assert!(lines[1..]
        .iter()
        .any(|l| l["pattern"] == "offset" && l["variant"] == "patched"));
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), planned.len());
    assert!(out.repros.is_empty());
}

#[test]
fn a_lost_update_fails_and_is_minimized_to_two_lanes() {
    let dir = tempfile::tempdir().unwrap();
    let spec = SuiteSpec::new(
        3,
        4,
        &[Pattern::OneAddress],
        &[],
        &[WaveSize::Wave64],
        Shard::WHOLE,
    )
    .unwrap();
    let mut dev = device(Misbehave::LoseSecondUpdate);
    let out = run_suite(&mut dev, &AscendingJudge, &options(dir.path(), spec)).unwrap();
    assert_eq!(out.exit_code, 1);
    assert_eq!(out.results.status, Status::Failed);
    assert_eq!(out.results.failed, 4);
    // One repro for the kind in each (pattern, wave, mode) cell: here one
    // in CU and one in WGP mode; the other failures point to their cell's.
    assert_eq!(out.repros.len(), 2);
    let firsts: Vec<_> = out
        .results
        .failures
        .iter()
        .filter(|f| f.repro.is_some())
        .collect();
    assert_eq!(
        firsts.iter().map(|f| f.mode).collect::<Vec<_>>(),
        [Mode::Cu, Mode::Wgp]
    );
    for f in out.results.failures.iter().filter(|f| f.repro.is_none()) {
        let first = firsts.iter().find(|x| x.mode == f.mode).unwrap();
        assert_eq!(f.same_kind_as, Some(first.index));
    }
    for (f, path) in firsts.into_iter().zip(&out.repros) {
        assert_eq!(
            f.repro.as_deref(),
            Some(path.display().to_string().as_str())
        );
        let r = Repro::read(path).unwrap();
        let active = r.case.lanes.iter().filter(|l| l.active).count();
        // A lost second update needs exactly two contenders (or one plus a
        // third to notice); the minimizer must get there.
        assert!(active <= 3, "minimized to {active} lanes");
        assert_eq!(r.case.geometry.groups, 1);
        assert_eq!(r.case.geometry.waves_per_group, 1);
        assert_eq!(r.seed, 3);
        assert!(!r.minimize.budget_exhausted);
        assert_eq!(f.active_lanes_after, active);
        // Replays: still fails on the broken device, passes on a good one.
        let again = replay(
            &mut device(Misbehave::LoseSecondUpdate),
            &AscendingJudge,
            &r,
        )
        .unwrap();
        assert!(!again.judgement.passed);
        let good = replay(&mut device(Misbehave::None), &AscendingJudge, &r).unwrap();
        assert!(good.judgement.passed, "{:?}", good.judgement);
        // Exported as an observation of its one group.
        let obs = r.to_observation(0).unwrap().to_value();
        assert_eq!(obs["format"], "dsxor-observation/1");
        let lanes = obs["lanes"].as_array().unwrap();
        assert_eq!(
            lanes.iter().filter(|l| l["active"] != false).count(),
            active
        );
        assert_eq!(obs["source"]["seed"], 3);
        assert!(r.to_observation(1).is_err());
    }
}

#[test]
fn faults_and_returns_are_judged_and_minimized_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let spec = SuiteSpec::new(
        5,
        6,
        &[Pattern::Uniform],
        &[],
        &[WaveSize::Wave32],
        Shard::WHOLE,
    )
    .unwrap();
    let out = run_suite(
        &mut device(Misbehave::FlipReturnBit),
        &AscendingJudge,
        &options(dir.path(), spec.clone()),
    )
    .unwrap();
    assert_eq!(out.exit_code, 1);
    for path in &out.repros {
        let r = Repro::read(path).unwrap();
        assert_eq!(r.failure.kind, "wrong-return");
        // Only lane 5 misbehaves: one active lane is enough.
        assert_eq!(r.case.lanes.iter().filter(|l| l.active).count(), 1);
        assert!(r.case.lanes[5].active);
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run_suite(
        &mut device(Misbehave::FaultOnHighBit),
        &AscendingJudge,
        &options(dir.path(), spec),
    )
    .unwrap();
    assert_eq!(out.exit_code, 1);
    for path in &out.repros {
        let r = Repro::read(path).unwrap();
        assert_eq!(r.failure.kind, "unexpected-fault");
        assert!(matches!(r.observed, DeviceOutcome::Fault { .. }));
        assert_eq!(r.case.lanes.iter().filter(|l| l.active).count(), 1);
        // A fault exports as an observation that records the fault.
        let obs = r.to_observation(0).unwrap().to_value();
        assert!(obs["fault"].as_str().unwrap().contains("injected"), "{obs}");
    }
}

#[test]
fn environment_trouble_aborts_with_exit_3_and_keeps_finished_cases() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_suite(
        &mut device(Misbehave::EnvironmentAfter(5)),
        &AscendingJudge,
        &options(dir.path(), all_spec(2, 30, Shard::WHOLE)),
    )
    .unwrap();
    assert_eq!(out.exit_code, 3);
    assert_eq!(out.results.status, Status::Aborted);
    assert!(out
        .results
        .abort_reason
        .as_ref()
        .unwrap()
        .contains("fell off the bus"));
    assert_eq!(out.results.total, 5);
    let lines = jsonl_lines(&dir.path().join(out.results.cases_file.as_ref().unwrap()));
    assert_eq!(lines.len(), 6);
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(junit.contains("<error"), "{junit}");
}

#[test]
fn failures_found_before_an_abort_decide_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_suite(
        &mut device(Misbehave::FlipReturnBitThenEnvironmentAfter(20)),
        &AscendingJudge,
        &options(dir.path(), all_spec(2, 60, Shard::WHOLE)),
    )
    .unwrap();
    assert!(out.results.failed > 0, "{:?}", out.results);
    assert_eq!(out.results.status, Status::Aborted);
    assert!(out.results.abort_reason.is_some());
    assert_eq!(out.exit_code, 1, "failures found must not exit 3");
}

#[test]
fn shards_partition_the_run_and_merge_back() {
    let whole_dir = tempfile::tempdir().unwrap();
    let whole = run_suite(
        &mut device(Misbehave::None),
        &AscendingJudge,
        &options(whole_dir.path(), all_spec(9, 40, Shard::WHOLE)),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut paths: Vec<PathBuf> = Vec::new();
    for k in 1..=3 {
        let shard = Shard { index: k, count: 3 };
        let out = run_suite(
            &mut device(Misbehave::None),
            &AscendingJudge,
            &options(dir.path(), all_spec(9, 40, shard)),
        )
        .unwrap();
        assert_eq!(out.exit_code, 0);
        paths.push(out.results_path);
    }
    let merged = dsxor::suite::merge::merge(&paths).unwrap();
    assert_eq!(merged.total, whole.results.total);
    assert_eq!(merged.spec, whole.results.spec);
    assert_eq!(
        merged
            .patterns
            .iter()
            .map(|p| (p.pattern, p.wave, p.cases))
            .collect::<Vec<_>>(),
        whole
            .results
            .patterns
            .iter()
            .map(|p| (p.pattern, p.wave, p.cases))
            .collect::<Vec<_>>()
    );
    assert_eq!(merged.status, Status::Passed);
    assert_eq!(merged.merged_from.len(), 3);
    // Refusals: a missing shard, a duplicate, another seed, a merged file.
    use dsxor::suite::merge::MergeError;
    assert!(matches!(
        dsxor::suite::merge::merge(&paths[..2]),
        Err(MergeError::MissingShards { .. })
    ));
    let dup = vec![paths[0].clone(), paths[0].clone(), paths[1].clone()];
    assert!(matches!(
        dsxor::suite::merge::merge(&dup),
        Err(MergeError::DuplicateShard { .. })
    ));
    let other_dir = tempfile::tempdir().unwrap();
    let other = run_suite(
        &mut device(Misbehave::None),
        &AscendingJudge,
        &options(
            other_dir.path(),
            all_spec(10, 40, Shard { index: 3, count: 3 }),
        ),
    )
    .unwrap();
    let mixed = vec![paths[0].clone(), paths[1].clone(), other.results_path];
    let err = dsxor::suite::merge::merge(&mixed).unwrap_err();
    assert!(matches!(err, MergeError::DifferentRun { .. }), "{err}");
    assert!(err.to_string().contains("seed 10 vs 9"), "{err}");
    let m = dir.path().join("merged.json");
    dsxor::report::results::write_atomic(&m, &merged).unwrap();
    assert!(matches!(
        dsxor::suite::merge::merge(&[m]),
        Err(MergeError::AlreadyMerged { .. })
    ));
}

#[test]
fn the_model_judge_accepts_the_correct_device_and_names_its_faults() {
    use dsxor::model::Policy;
    use dsxor::suite::judge::ModelJudge;
    let judge = ModelJudge::new(Policy::GFX11);
    let dir = tempfile::tempdir().unwrap();
    let out = run_suite(
        &mut device(Misbehave::None),
        &judge,
        &options(dir.path(), all_spec(21, 110, Shard::WHOLE)),
    )
    .unwrap();
    assert_eq!(out.exit_code, 0, "{:#?}", out.results.failures);
    // The contended families report the order the fake used.
    let lines = jsonl_lines(&dir.path().join(out.results.cases_file.as_ref().unwrap()));
    assert!(lines[1..]
        .iter()
        .any(|l| l["pattern"] == "one-address" && l["notes"][0] == "order: lane-ascending"));
    assert!(lines[1..]
        .iter()
        .any(|l| l["pattern"] == "misaligned" && l["outcome"] == "fault"));

    let dir = tempfile::tempdir().unwrap();
    let spec = SuiteSpec::new(
        4,
        2,
        &[Pattern::KPerAddress],
        &[],
        &[WaveSize::Wave32],
        Shard::WHOLE,
    )
    .unwrap();
    let out = run_suite(
        &mut device(Misbehave::LoseSecondUpdate),
        &judge,
        &options(dir.path(), spec),
    )
    .unwrap();
    assert_eq!(out.exit_code, 1);
    for path in &out.repros {
        let r = Repro::read(path).unwrap();
        // One round: the loss shows in that round's final. Several: a loss
        // in a round before the last shows in the next round, whose
        // returns do not chain from the start the lost round should have
        // left (broken-chain), so the minimizer keeps that kind.
        let want = if r.case.rounds() == 1 {
            "lost-update"
        } else {
            "broken-chain"
        };
        assert_eq!(r.failure.kind, want, "{}", r.failure.explanation);
        assert!(r.case.lanes.iter().filter(|l| l.active).count() <= 3);
        assert!(r.expected["ret_by_lane"].is_object());
        // The exported observation is judged inconsistent by the checker.
        let file = r.to_observation(0).unwrap();
        let v = file
            .judge(&Policy::GFX11)
            .expect("the GFX11 policy is valid");
        assert!(
            !v.passed(),
            "{}\n{}\n{}",
            file.to_json(),
            serde_json::to_string(&r.case).unwrap(),
            v.explain()
        );
    }
}

#[test]
fn the_repro_cap_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let spec = SuiteSpec::new(
        8,
        12,
        &[Pattern::OneAddress, Pattern::Uniform],
        &[],
        &[],
        Shard::WHOLE,
    )
    .unwrap();
    let mut opts = options(dir.path(), spec);
    opts.max_repros = 1;
    let out = run_suite(
        &mut device(Misbehave::FlipReturnBit),
        &AscendingJudge,
        &opts,
    )
    .unwrap();
    assert_eq!(out.exit_code, 1);
    assert_eq!(out.repros.len(), 1);
    assert!(out.results.failed > 1);
    // Past the cap, failures of a new cell have neither repro nor pointer.
    let other_cell = out
        .results
        .failures
        .iter()
        .filter(|f| {
            (f.pattern, f.wave)
                != (
                    out.results.failures[0].pattern,
                    out.results.failures[0].wave,
                )
        })
        .collect::<Vec<_>>();
    assert!(!other_cell.is_empty());
    assert!(other_cell
        .iter()
        .all(|f| f.repro.is_none() && f.same_kind_as.is_none()));
}

/// The stream without what is measured or timed: the header's start time
/// and each case's `device_us`.
fn stream_records(dir: &Path, out: &dsxor::suite::run::RunOutcome) -> Vec<serde_json::Value> {
    let mut lines = jsonl_lines(&dir.join(out.results.cases_file.as_ref().unwrap()));
    lines.remove(0);
    for l in &mut lines {
        l.as_object_mut().unwrap().remove("device_us");
    }
    lines
}

fn workers(misbehave: Misbehave, n: usize) -> Vec<dsxor::suite::run::Worker> {
    (0..n)
        .map(|_| {
            (
                Box::new(device(misbehave))
                    as Box<dyn dsxor::backend::conformance::CaseDevice + Send>,
                Box::new(AscendingJudge) as Box<dyn Judge + Send>,
            )
        })
        .collect()
}

/// Cases run on workers (each its own device and judge) record exactly
/// what one device running them one at a time records: the same stream in
/// the same order, the same counts, failures and minimized repros.
#[test]
fn workers_record_exactly_what_one_device_does() {
    use dsxor::suite::run::run_suite_with;
    let spec = all_spec(11, 150, Shard::WHOLE);
    for misbehave in [
        Misbehave::None,
        Misbehave::LoseSecondUpdate,
        Misbehave::FlipReturnBit,
    ] {
        let one = tempfile::tempdir().unwrap();
        let a = run_suite(
            &mut device(misbehave),
            &AscendingJudge,
            &options(one.path(), spec.clone()),
        )
        .unwrap();
        let many = tempfile::tempdir().unwrap();
        let b = run_suite_with(
            &mut device(misbehave),
            &AscendingJudge,
            &options(many.path(), spec.clone()),
            workers(misbehave, 3),
        )
        .unwrap();
        assert_eq!(a.exit_code, b.exit_code, "{misbehave:?}");
        let (ra, rb) = (
            stream_records(one.path(), &a),
            stream_records(many.path(), &b),
        );
        assert_eq!(ra.len(), 150);
        assert_eq!(ra, rb, "{misbehave:?}");
        let counts = |o: &dsxor::suite::run::RunOutcome| {
            o.results
                .patterns
                .iter()
                .map(|c| (c.pattern, c.wave, c.cases, c.passed, c.failed))
                .collect::<Vec<_>>()
        };
        assert_eq!(counts(&a), counts(&b));
        let failures = |o: &dsxor::suite::run::RunOutcome| {
            o.results
                .failures
                .iter()
                .map(|f| {
                    (
                        f.index,
                        f.kind.clone(),
                        f.same_kind_as,
                        f.repro.is_some(),
                        f.active_lanes_after,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(failures(&a), failures(&b), "{misbehave:?}");
        assert_eq!(a.repros.len(), b.repros.len());
        for (pa, pb) in a.repros.iter().zip(&b.repros) {
            assert_eq!(Repro::read(pa).unwrap().case, Repro::read(pb).unwrap().case);
        }
        if misbehave != Misbehave::None {
            assert!(!a.repros.is_empty());
        }
    }
}

/// A worker's device giving up stops the run at the first case, in plan
/// order, without a result; every case before it is recorded, in order.
#[test]
fn a_worker_giving_up_aborts_at_that_case_in_order() {
    use dsxor::suite::run::run_suite_with;
    let dir = tempfile::tempdir().unwrap();
    // Each of 3 workers serves 5 cases and fails its 6th: plan positions
    // 15, 16 and 17; the run stops at 15.
    let out = run_suite_with(
        &mut device(Misbehave::None),
        &AscendingJudge,
        &options(dir.path(), all_spec(2, 30, Shard::WHOLE)),
        workers(Misbehave::EnvironmentAfter(5), 3),
    )
    .unwrap();
    assert_eq!(out.exit_code, 3);
    assert_eq!(out.results.status, Status::Aborted);
    let plan = all_spec(2, 30, Shard::WHOLE).plan();
    let indices: Vec<u64> = stream_records(dir.path(), &out)
        .iter()
        .map(|l| l["index"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = plan.iter().take(15).map(|p| p.index).collect();
    assert_eq!(indices, expected);
    assert_eq!(out.results.total, 15);
}
