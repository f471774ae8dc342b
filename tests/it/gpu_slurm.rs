//! The fleet recipes on a real Slurm: each test starts a single-node
//! cluster of its own (`munged`, `slurmctld`, `slurmd` on localhost, a
//! generated `slurm.conf` in a temporary directory, private ports and
//! munge socket; nothing in /etc or /run) and stops it afterwards.
//!
//! - examples/ci/slurm-array.sh runs as an array job on four simulated GPUs
//!   (the software HIP runtime), each task on the GPU Slurm's gres/gpu gives
//!   it through ROCR_VISIBLE_DEVICES; the merged shards equal an unsharded
//!   run of the same seed, verdicts and case digests.
//! - examples/ci/slurm-healthcheck.sh (dsxor gate) as slurmd's
//!   HealthCheckProgram drains the node when one simulated GPU is faulty,
//!   with dsxor's reason in `sinfo -R`, and returns it once the fault is gone.
//!
//! Needs root and Slurm (Debian's slurm-wlm, munge): skipped with a notice
//! when either is missing, mandatory under DSXOR_REQUIRE_TOOLS=1.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One cluster at a time: both tests name the node after this host.
static ONE_CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

const PROGRAMS: [&str; 7] = [
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "scontrol",
    "squeue",
];

fn on_path(p: &str) -> bool {
    std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .chain(["/usr/sbin".into(), "/sbin".into()])
                .any(|d| d.join(p).is_file())
        })
        .unwrap_or(false)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

struct Cluster {
    dir: tempfile::TempDir,
    node: String,
    children: Vec<(String, Child)>,
}

impl Cluster {
    /// A running cluster with `extra` appended to its slurm.conf, or None
    /// (after the notice) when this machine cannot run one.
    fn start(extra: &str) -> Option<Cluster> {
        // SAFETY: plain libc call.
        if unsafe { libc::geteuid() } != 0 {
            common::missing("a single-node Slurm cluster", "the tests must run as root");
            return None;
        }
        if let Some(p) = PROGRAMS.iter().find(|p| !on_path(p)) {
            common::missing(
                "a single-node Slurm cluster",
                &format!("{p} is not installed (apt-get install slurm-wlm munge)"),
            );
            return None;
        }
        let dir = tempfile::tempdir().expect("temporary directory");
        let t = dir.path();
        for d in ["munge", "state", "spool", "log", "dev", "work"] {
            std::fs::create_dir_all(t.join(d)).expect("mkdir");
        }
        // munged refuses a key shorter than 32 bytes; any random bytes do.
        let mut key = vec![0u8; 1024];
        {
            use std::io::Read;
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut key))
                .expect("reading /dev/urandom");
        }
        let keyfile = t.join("munge/munge.key");
        std::fs::write(&keyfile, key).expect("munge key");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&keyfile, std::fs::Permissions::from_mode(0o600)).unwrap();
        // Four GPUs for gres/gpu: slurmd wants character devices; the
        // index of each is the number its name ends with.
        for i in 0..4 {
            std::os::unix::fs::symlink("/dev/null", t.join(format!("dev/gpu{i}"))).unwrap();
        }
        std::fs::write(
            t.join("gres.conf"),
            format!("Name=gpu File={}/dev/gpu[0-3]\n", t.display()),
        )
        .unwrap();
        let node = dsxor::backend::placement::host_name()
            .split('.')
            .next()
            .unwrap_or("localhost")
            .to_string();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let sock = t.join("munge/sock");
        let conf = format!(
            "ClusterName=dsxortest\n\
             SlurmctldHost={node}(127.0.0.1)\n\
             SlurmctldPort={}\n\
             SlurmdPort={}\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={sock}\n\
             CredType=cred/munge\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             StateSaveLocation={t}/state\n\
             SlurmdSpoolDir={t}/spool\n\
             SlurmctldPidFile={t}/slurmctld.pid\n\
             SlurmdPidFile={t}/slurmd.pid\n\
             SlurmctldLogFile={t}/log/slurmctld.log\n\
             SlurmdLogFile={t}/log/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\n\
             SchedulerType=sched/builtin\n\
             MpiDefault=none\n\
             ReturnToService=2\n\
             JobCompType=jobcomp/none\n\
             AccountingStorageType=accounting_storage/none\n\
             GresTypes=gpu\n\
             {extra}\n\
             NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} Gres=gpu:4 State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port(),
            sock = sock.display(),
            t = t.display(),
        );
        std::fs::write(t.join("slurm.conf"), conf).unwrap();
        let mut c = Cluster {
            dir,
            node,
            children: Vec::new(),
        };
        let t = c.dir.path().to_path_buf();
        let p = |s: &str| t.join(s).display().to_string();
        c.spawn(
            "munged",
            &[
                "--foreground",
                "--force",
                &format!("--socket={}", p("munge/sock")),
                &format!("--key-file={}", p("munge/munge.key")),
                &format!("--pid-file={}", p("munge/munged.pid")),
                &format!("--log-file={}", p("munge/munged.log")),
                &format!("--seed-file={}", p("munge/seed")),
            ],
        );
        c.wait_for("munged's socket", Duration::from_secs(20), |c| {
            c.dir.path().join("munge/sock").exists()
        });
        let conf = p("slurm.conf");
        c.spawn("slurmctld", &["-D", "-f", &conf]);
        c.spawn("slurmd", &["-D", "-f", &conf]);
        Some(c)
    }

    fn spawn(&mut self, prog: &str, args: &[&str]) {
        let log = std::fs::File::create(self.dir.path().join(format!("log/{prog}.out"))).unwrap();
        let child = Command::new(prog)
            .args(args)
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {prog}: {e}"));
        self.children.push((prog.to_string(), child));
    }

    /// A Slurm client command against this cluster.
    fn cmd(&self, prog: &str) -> Command {
        let mut c = Command::new(prog);
        c.env("SLURM_CONF", self.dir.path().join("slurm.conf"));
        c
    }

    fn out(&self, prog: &str, args: &[&str]) -> String {
        let o = self
            .cmd(prog)
            .args(args)
            .output()
            .expect("slurm client runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// The daemons' logs, for a failure message.
    fn logs(&self) -> String {
        let mut s = String::new();
        for f in [
            "log/slurmctld.log",
            "log/slurmd.log",
            "log/slurmd.out",
            "log/slurmctld.out",
        ] {
            let text = std::fs::read_to_string(self.dir.path().join(f)).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            s.push_str(&format!("--- {f}\n"));
            for l in tail.into_iter().rev() {
                s.push_str(l);
                s.push('\n');
            }
        }
        s
    }

    fn wait_for(&self, what: &str, limit: Duration, ok: impl Fn(&Cluster) -> bool) {
        let start = Instant::now();
        while !ok(self) {
            assert!(
                start.elapsed() < limit,
                "waited {limit:?} for {what}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `sinfo`'s state of the node (idle, drained, ...).
    fn state(&self) -> String {
        self.out("sinfo", &["-h", "-N", "-o", "%T"])
            .trim()
            .to_string()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // slurmd first, munged last; SIGTERM, then SIGKILL after 10 s.
        for (name, child) in self.children.iter_mut().rev() {
            // SAFETY: plain libc call on our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let start = Instant::now();
            loop {
                match child.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if start.elapsed() < Duration::from_secs(10) => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    _ => {
                        eprintln!("{name} did not stop on SIGTERM: killed");
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                }
            }
        }
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_dsxor"))
        .parent()
        .expect("bin dir")
        .to_path_buf()
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

const DEVICES: &str = "gfx1100,gfx1100,gfx1100,gfx1100";

/// The simulated GPUs' UUIDs, as `dsxor info` reports them.
fn simulated_uuids() -> Vec<String> {
    let o = common::dsxor_hipsim(&["info", "--json"], &[("DSXOR_HIPSIM_DEVICES", DEVICES)]);
    let v: Value = serde_json::from_slice(&o.stdout).expect("info --json");
    v["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["uuid"].as_str().expect("a uuid").to_string())
        .collect()
}

/// index → (case digest, passed) of a case stream.
fn digests(stream: &Path) -> Vec<(u64, String, bool)> {
    std::fs::read_to_string(stream)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["index"].as_u64().unwrap(),
                v["case_digest"].as_str().unwrap().to_string(),
                v["passed"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_slurm_array_recipe_shards_over_four_gpus_and_merges_to_the_unsharded_run() {
    let _one = ONE_CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let Some(c) = Cluster::start("") else {
        return;
    };
    c.wait_for("the node to be idle", Duration::from_secs(60), |c| {
        c.state() == "idle"
    });
    let work = c.dir.path().join("work");
    let (seed, cases) = ("0x5eed", "96");
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = c
        .cmd("sbatch")
        .args(["--parsable", "--array=0-3", "--chdir"])
        .arg(&work)
        .arg(format!("--output={}/dsxor-%A_%a.log", work.display()))
        .arg(repo().join("examples/ci/slurm-array.sh"))
        .env("PATH", &path)
        .env("DSXOR_SEED", seed)
        .env("DSXOR_CASES", cases)
        .env("DSXOR_HIP_LIB", common::hipsim_lib())
        .env("DSXOR_HIPSIM_DEVICES", DEVICES)
        .env_remove("HIP_VISIBLE_DEVICES")
        .env_remove("ROCR_VISIBLE_DEVICES")
        .env_remove("DSXOR_HIPSIM_FAULT")
        .output()
        .unwrap();
    assert!(o.status.success(), "sbatch: {}", common::text(&o));
    let job = String::from_utf8_lossy(&o.stdout).trim().to_string();
    c.wait_for("the array to finish", Duration::from_secs(180), |c| {
        c.out("squeue", &["-h", "-j", &job]).trim().is_empty()
    });
    let logs: String = common::files(&work, ".log")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    let shards = common::files(&work.join("results"), "of4.json");
    assert_eq!(shards.len(), 4, "{shards:?}\n{logs}\n{}", c.logs());

    // Each task ran on the GPU Slurm gave it, and its records say so.
    let uuids = simulated_uuids();
    let mut tasks = Vec::new();
    for s in &shards {
        let d = &read_json(s)["environment"]["device"];
        let u = d["uuid"].as_str().unwrap_or("");
        assert!(uuids.iter().any(|x| x == u), "{u} not among {uuids:?}");
        let p = &d["placement"];
        assert_eq!(p["slurm_node"], Value::from(c.node.clone()), "{p}");
        assert_eq!(p["slurm_array_job_id"], Value::from(job.clone()), "{p}");
        tasks.push(p["slurm_array_task_id"].as_str().unwrap().to_string());
        // The PCI address is the physical GPU's: device 0 of the task is
        // the GPU whose ROCR_VISIBLE_DEVICES index Slurm chose.
        let k = uuids.iter().position(|x| x == u).unwrap();
        assert_eq!(
            d["pci_bus_id"],
            Value::from(format!("0000:{:02x}:00.0", 3 + k))
        );
    }
    tasks.sort();
    assert_eq!(tasks, ["0", "1", "2", "3"]);

    // Merged shards = the unsharded run of the same seed.
    let args: Vec<String> = ["merge".to_string(), "--out".into()]
        .into_iter()
        .chain([work.join("merged.json").display().to_string()])
        .chain(shards.iter().map(|p| p.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let m = common::dsxor(&args);
    assert_eq!(common::code(&m), 0, "{}", common::text(&m));
    let whole_dir = work.join("whole");
    let w = common::dsxor_hipsim(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "0",
            "--seed",
            seed,
            "--cases",
            cases,
            "--out",
            whole_dir.to_str().unwrap(),
        ],
        &[("DSXOR_HIPSIM_DEVICES", DEVICES)],
    );
    assert_eq!(common::code(&w), 0, "{}", common::text(&w));
    let merged = read_json(&work.join("merged.json"));
    let whole = read_json(&common::results_json(&whole_dir)[0]);
    for k in ["status", "total", "passed", "failed", "patterns"] {
        let strip = |v: &Value| {
            let mut v = v.clone();
            if let Some(a) = v.as_array_mut() {
                for c in a {
                    c.as_object_mut().map(|o| o.remove("wall_ms"));
                }
            }
            v
        };
        assert_eq!(strip(&merged[k]), strip(&whole[k]), "{k}");
    }
    let mut sharded: Vec<_> = common::files(&work.join("results"), ".cases.jsonl")
        .iter()
        .flat_map(|s| digests(s))
        .collect();
    sharded.sort();
    let whole_cases = digests(&common::files(&whole_dir, ".cases.jsonl")[0]);
    assert_eq!(sharded.len(), 96);
    assert_eq!(sharded, whole_cases, "case digests and verdicts");

    // And as a fleet: every GPU on this node, all passed.
    let args: Vec<String> = std::iter::once("fleet".to_string())
        .chain([
            "--json".into(),
            work.join("fleet.json").display().to_string(),
        ])
        .chain(shards.iter().map(|p| p.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let f = common::dsxor(&args);
    assert_eq!(common::code(&f), 0, "{}", common::text(&f));
    let fleet = read_json(&work.join("fleet.json"));
    assert_eq!(fleet["nodes"][0]["node"], Value::from(c.node.clone()));
    drop(c);
    eprintln!(
        "the Slurm array test took {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn dsxor_gate_as_health_check_drains_a_node_with_a_faulty_gpu_and_returns_it() {
    let _one = ONE_CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    // The health check's script: the simulated node's configuration, then
    // the recipe. The fault (one of four GPUs, physical ordinal 2) is read
    // from a file, so the test can remove it while slurmd runs.
    let Some(c) = Cluster::start("") else {
        return;
    };
    let t = c.dir.path();
    let fault = t.join("fault");
    std::fs::write(&fault, "torn").unwrap();
    let hc = t.join("healthcheck.sh");
    std::fs::write(
        &hc,
        format!(
            "#!/bin/bash\n\
             export SLURM_CONF={conf}\n\
             export PATH=/usr/sbin:/usr/bin:/sbin:/bin\n\
             export DSXOR={dsxor}\n\
             export DSXOR_HIP_LIB={lib}\n\
             export DSXOR_HIPSIM_DEVICES={DEVICES}\n\
             export DSXOR_HIPSIM_FAULT=$(cat {fault})\n\
             export DSXOR_HIPSIM_FAULT_DEVICES=2\n\
             export DSXOR_GATE_BUDGET=30s\n\
             export DSXOR_GATE_LOCK={lock}\n\
             exec {recipe}\n",
            conf = t.join("slurm.conf").display(),
            dsxor = env!("CARGO_BIN_EXE_dsxor"),
            lib = common::hipsim_lib().display(),
            fault = fault.display(),
            lock = t.join("gate.lock").display(),
            recipe = repo().join("examples/ci/slurm-healthcheck.sh").display(),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hc, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Reconfigured with the health check (slurmd runs it at start and then
    // every interval).
    let conf = t.join("slurm.conf");
    let text = std::fs::read_to_string(&conf).unwrap().replace(
        "GresTypes=gpu\n",
        &format!(
            "GresTypes=gpu\nHealthCheckProgram={}\nHealthCheckInterval=2\nHealthCheckNodeState=ANY\n",
            hc.display()
        ),
    );
    // Replaced by a rename, never rewritten in place: slurmctld and slurmd
    // may still be reading it at their start, and a truncated file is a
    // fatal parse error ("unrecognized key") for them.
    let fresh = t.join("slurm.conf.new");
    std::fs::write(&fresh, text).unwrap();
    std::fs::rename(&fresh, &conf).unwrap();
    c.wait_for("slurmctld", Duration::from_secs(60), |c| {
        !c.state().is_empty()
    });
    let r = c.cmd("scontrol").arg("reconfigure").output().unwrap();
    assert!(
        r.status.success(),
        "scontrol reconfigure: {}",
        common::text(&r)
    );

    let bad = simulated_uuids()[2].clone();
    c.wait_for("the gate to drain the node", Duration::from_secs(90), |c| {
        c.out("sinfo", &["-R", "-h", "-o", "%n|%E"]).contains(&bad)
    });
    let reasons = c.out("sinfo", &["-R", "-h", "-o", "%n|%E"]);
    let line = reasons.lines().next().unwrap_or("");
    assert!(
        line.starts_with(&format!("{}|dsxor gate: 1 of 4 GPUs failed", c.node)),
        "{reasons}"
    );
    assert!(line.contains("conformance-smoke"), "{reasons}");
    eprintln!("sinfo -R: {line}");
    assert!(c.state().starts_with("drain"), "{}", c.state());

    // The fault removed: the next check returns the node.
    std::fs::write(&fault, "").unwrap();
    c.wait_for(
        "the node to return to service",
        Duration::from_secs(90),
        |c| c.out("sinfo", &["-R", "-h"]).trim().is_empty() && c.state() == "idle",
    );
    drop(c);
    eprintln!(
        "the Slurm health-check test took {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
