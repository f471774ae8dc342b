//! Which runs a bench makes: every pattern × chain × wave size at a size that
//! fills the device, then an occupancy sweep (workgroups per CU × waves per
//! workgroup) of the conflict-free independent chain. `--quick` keeps the
//! same shape at CI size.

use crate::bench::expect::Chain;
use crate::bench::pattern::Pattern;
use crate::bench::BenchError;
use crate::case::WaveSize;

/// Most work-items in one workgroup (HIP's maxThreadsPerBlock on gfx11;
/// AMDGPUUsage.rst: the default flat workgroup size limit is 1024).
pub const MAX_WORKGROUP_LANES: u32 = 1024;

/// One configuration to launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSpec {
    pub name: String,
    /// `patterns` or `occupancy`.
    pub sweep: &'static str,
    pub pattern: Pattern,
    pub chain: Chain,
    pub wave: WaveSize,
    pub workgroups_per_cu: u32,
    pub groups: u32,
    pub waves_per_group: u32,
    pub iters: u32,
}

impl RunSpec {
    pub fn lanes_per_group(&self) -> u32 {
        self.waves_per_group * self.wave.lanes()
    }
    pub fn lanes(&self) -> u64 {
        self.groups as u64 * self.lanes_per_group() as u64
    }
}

/// Sizes and counts of a bench.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub quick: bool,
    pub seed: u64,
    pub warmup: u32,
    pub reps: u32,
    /// `iters` of the `_dep` kernel: ≡ 3 (mod 4), so both the final LDS and
    /// an uncontended fold are nonzero and the check is strongest.
    pub iters_dep: u32,
    /// `iters` of the `_indep` kernel: a multiple of 4 (the ABI), and
    /// ≡ 4 (mod 8) by default: an odd number of 4-instruction rounds, so the
    /// final LDS and an uncontended fold are nonzero (`expect`).
    pub iters_indep: u32,
    /// Workgroups per CU of the pattern runs.
    pub workgroups_per_cu: u32,
    /// Lanes per workgroup of the pattern runs (waves = this / wave size).
    pub lanes_per_group: u32,
    pub sweep_workgroups_per_cu: Vec<u32>,
    pub sweep_waves_per_group: Vec<u32>,
    /// Wave sizes to run (those the device and the code objects offer).
    pub waves: Vec<WaveSize>,
    /// Keep only runs whose name contains this.
    pub filter: Option<String>,
}

impl Settings {
    /// Defaults: full runs fill the device (4 workgroups of 256 lanes per CU,
    /// ~1000 instructions per lane, 30 timed launches); quick runs are one
    /// 64-lane workgroup per CU with ~30 instructions per lane, 5 launches.
    pub fn new(quick: bool) -> Settings {
        if quick {
            Settings {
                quick,
                seed: 1,
                warmup: 1,
                reps: 5,
                iters_dep: 31,
                iters_indep: 28,
                workgroups_per_cu: 1,
                lanes_per_group: 64,
                sweep_workgroups_per_cu: vec![1, 2],
                sweep_waves_per_group: vec![1, 4],
                waves: vec![WaveSize::Wave32, WaveSize::Wave64],
                filter: None,
            }
        } else {
            Settings {
                quick,
                seed: 1,
                warmup: 3,
                reps: 30,
                iters_dep: 1023,
                iters_indep: 1020,
                workgroups_per_cu: 4,
                lanes_per_group: 256,
                sweep_workgroups_per_cu: vec![1, 2, 4, 8],
                sweep_waves_per_group: vec![1, 2, 4, 8, 16, 32],
                waves: vec![WaveSize::Wave32, WaveSize::Wave64],
                filter: None,
            }
        }
    }

    /// Reject settings no run could honour.
    pub fn validate(&self) -> Result<(), BenchError> {
        let bad = |m: String| Err(BenchError::Plan(m));
        if self.reps == 0 {
            return bad("--reps must be at least 1".into());
        }
        // Samples are kept (8 bytes each); the cap keeps a bench's memory
        // bounded whatever the command line says.
        if self.reps > 100_000 || self.warmup > 100_000 {
            return bad("--reps and --warmup are limited to 100000".into());
        }
        if self.iters_dep == 0 {
            return bad("iterations of the dependent chain must be at least 1".into());
        }
        if self.iters_indep == 0 || !self.iters_indep.is_multiple_of(4) {
            return bad(format!(
                "iterations of the independent chain must be a positive multiple of 4 (the kernel issues 4 at a time), not {}",
                self.iters_indep
            ));
        }
        if self.workgroups_per_cu == 0 || self.sweep_workgroups_per_cu.contains(&0) {
            return bad("workgroups per CU must be at least 1".into());
        }
        if self.lanes_per_group == 0
            || !self.lanes_per_group.is_multiple_of(64)
            || self.lanes_per_group > MAX_WORKGROUP_LANES
        {
            return bad(format!(
                "lanes per workgroup must be a multiple of 64 up to {MAX_WORKGROUP_LANES} (whole waves of either size), not {}",
                self.lanes_per_group
            ));
        }
        if self.sweep_waves_per_group.contains(&0) {
            return bad("waves per workgroup must be at least 1".into());
        }
        if self.waves.is_empty() {
            return bad("no wave size to run".into());
        }
        Ok(())
    }
}

/// The runs of a bench on a device with `compute_units` CUs.
pub fn plan(settings: &Settings, compute_units: u32) -> Result<Vec<RunSpec>, BenchError> {
    settings.validate()?;
    let cus = compute_units.max(1);
    let groups = |per_cu: u32| {
        cus.checked_mul(per_cu)
            .ok_or_else(|| BenchError::Plan(format!("{cus} CUs x {per_cu} workgroups overflows")))
    };
    let iters = |chain| match chain {
        Chain::Dep => settings.iters_dep,
        Chain::Indep => settings.iters_indep,
    };
    let mut runs = Vec::new();
    for &wave in &settings.waves {
        for chain in [Chain::Dep, Chain::Indep] {
            for pattern in Pattern::all() {
                runs.push(RunSpec {
                    name: format!("{}/{}/wave{}", pattern.name(), chain.name(), wave.lanes()),
                    sweep: "patterns",
                    pattern,
                    chain,
                    wave,
                    workgroups_per_cu: settings.workgroups_per_cu,
                    groups: groups(settings.workgroups_per_cu)?,
                    waves_per_group: settings.lanes_per_group / wave.lanes(),
                    iters: iters(chain),
                });
            }
        }
    }
    for &wave in &settings.waves {
        for &per_cu in &settings.sweep_workgroups_per_cu {
            for &waves in &settings.sweep_waves_per_group {
                if waves * wave.lanes() > MAX_WORKGROUP_LANES {
                    continue;
                }
                runs.push(RunSpec {
                    name: format!(
                        "occupancy/wave{}/{per_cu}wg-per-cu/{waves}waves",
                        wave.lanes()
                    ),
                    sweep: "occupancy",
                    pattern: Pattern::ConflictFree,
                    chain: Chain::Indep,
                    wave,
                    workgroups_per_cu: per_cu,
                    groups: groups(per_cu)?,
                    waves_per_group: waves,
                    iters: settings.iters_indep,
                });
            }
        }
    }
    if let Some(f) = &settings.filter {
        runs.retain(|r| r.name.contains(f.as_str()));
        if runs.is_empty() {
            return Err(BenchError::Plan(format!("no run name contains `{f}`")));
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn full_plan_covers_every_pattern_chain_and_wave() {
        let runs = plan(&Settings::new(false), 96).unwrap();
        let names: HashSet<_> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names.len(), runs.len(), "names are unique");
        for w in [32, 64] {
            for c in ["dep", "indep"] {
                for p in Pattern::all() {
                    assert!(names.contains(format!("{}/{c}/wave{w}", p.name()).as_str()));
                }
            }
        }
        let pat = runs.iter().filter(|r| r.sweep == "patterns").count();
        assert_eq!(pat, 2 * 2 * 7);
        // wave32: 4 x 6 waves counts; wave64: 32 waves exceeds 1024 lanes -> 4 x 5
        assert_eq!(runs.len() - pat, 24 + 20);
        let r = runs
            .iter()
            .find(|r| r.name == "conflict-free/indep/wave64")
            .unwrap();
        assert_eq!((r.groups, r.waves_per_group, r.iters), (384, 4, 1020));
        assert!(runs
            .iter()
            .all(|r| r.lanes_per_group() <= MAX_WORKGROUP_LANES));
    }

    #[test]
    fn default_iterations_give_the_strong_check() {
        for quick in [false, true] {
            assert_eq!(Settings::new(quick).iters_dep % 4, 3);
            // An odd number of rounds of 4.
            assert_eq!(Settings::new(quick).iters_indep % 8, 4);
        }
    }

    #[test]
    fn quick_plan_is_small() {
        let runs = plan(&Settings::new(true), 1).unwrap();
        assert_eq!(runs.len(), 28 + 2 * 4);
        let lane_ops: u64 = runs.iter().map(|r| r.lanes() * r.iters as u64).sum();
        assert!(lane_ops < 200_000, "{lane_ops}");
    }

    #[test]
    fn bad_settings_are_rejected() {
        let mut s = Settings::new(true);
        s.iters_indep = 6;
        assert!(matches!(plan(&s, 1), Err(BenchError::Plan(_))));
        let mut s = Settings::new(true);
        s.reps = 0;
        assert!(plan(&s, 1).is_err());
        let mut s = Settings::new(true);
        s.lanes_per_group = 96;
        assert!(plan(&s, 1).is_err());
        let mut s = Settings::new(true);
        s.filter = Some("no-such-run".into());
        assert!(plan(&s, 1).is_err());
        let mut s = Settings::new(true);
        s.workgroups_per_cu = u32::MAX;
        assert!(plan(&s, 2).is_err());
    }

    #[test]
    fn filter_keeps_matching_runs() {
        let mut s = Settings::new(true);
        s.filter = Some("one-address".into());
        let runs = plan(&s, 1).unwrap();
        assert_eq!(runs.len(), 4);
    }
}
