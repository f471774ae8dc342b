//! `dsxor gate`: the node health gate. Every check of
//! `dsxor::fleet::gate::CHECKS` runs on every visible GPU, each a `dsxor`
//! child process, all devices side by side within one time budget; one
//! JSON verdict for the node on stdout.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dsxor::fleet::gate::{CheckResult, GateDevice, GateVerdict, CHECKS};
use dsxor::report::results::Status;

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct GateArgs {
    /// Time allowed for the whole gate (every device's checks run side by
    /// side); a check still running then is killed and fails its device.
    #[arg(long, default_value = "60s", value_parser = timeout_value)]
    pub(crate) budget: std::time::Duration,
    /// Directory for the checks' results files (default: a temporary
    /// directory, removed afterwards).
    #[arg(long)]
    pub(crate) out: Option<std::path::PathBuf>,
}

/// One running check.
struct Running {
    device: usize,
    check: usize,
    child: Child,
    stdout: std::thread::JoinHandle<String>,
    stderr: std::thread::JoinHandle<String>,
    started: Instant,
}

fn drain(mut r: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        s
    })
}

/// What a finished check's `--json` document and exit code say.
fn judge_check(name: &str, code: Option<i32>, stdout: &str, stderr: &str, ms: u64) -> CheckResult {
    let doc: Option<serde_json::Value> = serde_json::from_str(stdout).ok();
    let field = |k: &str| doc.as_ref().and_then(|d| d.get(k)).cloned();
    let last_err = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    let (verdict, detail) = match code {
        Some(0) => (
            Status::Passed,
            format!(
                "{} cases passed",
                field("total").and_then(|v| v.as_u64()).unwrap_or(0)
            ),
        ),
        Some(1) => (
            Status::Failed,
            format!(
                "{} of {} cases failed",
                field("failed").and_then(|v| v.as_u64()).unwrap_or(0),
                field("total").and_then(|v| v.as_u64()).unwrap_or(0)
            ),
        ),
        Some(c) => (
            Status::Aborted,
            format!(
                "could not run (exit {c}): {}",
                field("abort_reason")
                    .and_then(|v| v.as_str().map(str::to_string))
                    .or_else(|| field("error").and_then(|v| v.as_str().map(str::to_string)))
                    .unwrap_or(last_err)
            ),
        ),
        // Killed by a signal: a device fault that aborts the process
        // (ROCm 6's default) is the device's failure.
        None => (
            Status::Failed,
            format!("the check's process died ({last_err})"),
        ),
    };
    CheckResult {
        name: name.to_string(),
        verdict,
        exit_code: code,
        elapsed_ms: ms,
        detail,
    }
}

/// Milliseconds since `s`.
fn ms_since(s: Instant) -> u64 {
    u64::try_from(s.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Device `i`'s entry, with each of its checks started as a child of this
/// binary into `running` (a device whose properties cannot be read, or a
/// check that cannot start, gets its failed check here instead).
fn start_checks(
    i: usize,
    p: &Result<dsxor::hip::DeviceProps, dsxor::hip::HipError>,
    exe: &std::path::Path,
    out_dir: &std::path::Path,
    running: &mut Vec<Running>,
) -> GateDevice {
    let index = u32::try_from(i).unwrap_or(u32::MAX);
    let mut d = GateDevice {
        index,
        uuid: None,
        pci_bus_id: None,
        name: String::new(),
        target_id: String::new(),
        verdict: Status::Passed,
        reason: String::new(),
        checks: Vec::new(),
    };
    match p {
        Ok(p) => {
            d.uuid = p.uuid.clone();
            d.pci_bus_id = Some(p.pci_bus_id.clone());
            d.name = p.name.clone();
            d.target_id = p.gcn_arch_name.clone();
            for (c, check) in CHECKS.iter().enumerate() {
                let dir = out_dir.join(format!("device{i}-{}", check.name));
                let spawned = Command::new(exe)
                    .args(check.args)
                    .arg("--device")
                    .arg(index.to_string())
                    .arg("--json")
                    .arg("--out")
                    .arg(&dir)
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn();
                match spawned {
                    Ok(mut child) => {
                        let stdout = drain(child.stdout.take().expect("piped"));
                        let stderr = drain(child.stderr.take().expect("piped"));
                        running.push(Running {
                            device: i,
                            check: c,
                            child,
                            stdout,
                            stderr,
                            started: Instant::now(),
                        });
                    }
                    Err(e) => d.checks.push(CheckResult {
                        name: check.name.into(),
                        verdict: Status::Aborted,
                        exit_code: None,
                        elapsed_ms: 0,
                        detail: format!("cannot start {}: {e}", exe.display()),
                    }),
                }
            }
        }
        Err(e) => d.checks.push(CheckResult {
            name: "properties".into(),
            verdict: Status::Failed,
            exit_code: None,
            elapsed_ms: 0,
            detail: format!("its properties cannot be read: {}", e.one_line()),
        }),
    }
    d
}

/// Wait for the running checks, each until it ends or the gate's deadline
/// passes (then it is killed and failed), and add its result to its device.
fn wait_for_checks(
    mut running: Vec<Running>,
    devices: &mut [GateDevice],
    deadline: Instant,
    budget: Duration,
) -> Result<(), Failure> {
    while !running.is_empty() {
        let mut i = 0;
        while i < running.len() {
            let over = Instant::now() >= deadline;
            let done = running[i].child.try_wait().map_err(environment)?;
            if done.is_none() && !over {
                i += 1;
                continue;
            }
            let mut r = running.swap_remove(i);
            let status = match done {
                Some(s) => Some(s),
                None => {
                    let _ = r.child.kill();
                    r.child.wait().ok();
                    None
                }
            };
            let stdout = r.stdout.join().unwrap_or_default();
            let stderr = r.stderr.join().unwrap_or_default();
            let ms = ms_since(r.started);
            let name = CHECKS[r.check].name;
            let result = match status {
                None => CheckResult {
                    name: name.into(),
                    verdict: Status::Failed,
                    exit_code: None,
                    elapsed_ms: ms,
                    detail: format!(
                        "not finished within the gate's budget of {}s",
                        budget.as_secs_f64()
                    ),
                },
                Some(s) => judge_check(name, s.code(), &stdout, &stderr, ms),
            };
            devices[r.device].checks.push(result);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

pub(crate) fn cmd_gate(args: GateArgs) -> Outcome {
    let budget = args.budget;
    let started = Instant::now();
    let placement = dsxor::backend::Placement::current();
    let print = |v: &GateVerdict| {
        let text = serde_json::to_string_pretty(v).unwrap_or_default();
        dsxor::report::console::machine_text(&format!("{text}\n"));
        if !v.reason.is_empty() {
            eprintln!("{}", v.reason);
        }
        v.exit_code
    };
    let budget_ms = u64::try_from(budget.as_millis()).unwrap_or(u64::MAX);
    let report = match dsxor::hip::probe() {
        Ok(r) => r,
        Err(e) => {
            let v = GateVerdict::new(
                placement,
                Vec::new(),
                Some(format!("no HIP runtime: {}", e.one_line())),
                budget_ms,
                ms_since(started),
            );
            return Ok(print(&v));
        }
    };
    let props = match &report.devices {
        dsxor::hip::Devices::Found(list) => list,
        dsxor::hip::Devices::None { .. } => {
            let v = GateVerdict::new(
                placement,
                Vec::new(),
                Some(
                    report
                        .no_device_reason()
                        .unwrap_or_else(|| "no HIP device".into()),
                ),
                budget_ms,
                ms_since(started),
            );
            return Ok(print(&v));
        }
    };
    let tmp;
    let out_dir = match &args.out {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::tempdir().map_err(environment)?;
            tmp.path().to_path_buf()
        }
    };
    let exe = std::env::current_exe().map_err(environment)?;
    let mut devices: Vec<GateDevice> = Vec::new();
    let mut running: Vec<Running> = Vec::new();
    for (i, p) in props.iter().enumerate() {
        devices.push(start_checks(i, p, &exe, &out_dir, &mut running));
    }
    wait_for_checks(running, &mut devices, started + budget, budget)?;
    for d in &mut devices {
        // In CHECKS order, whichever finished first: the verdict and its
        // reason read the same on every node.
        d.checks.sort_by_key(|c| {
            CHECKS
                .iter()
                .position(|k| k.name == c.name)
                .unwrap_or(usize::MAX)
        });
        d.judge();
    }
    let v = GateVerdict::new(placement, devices, None, budget_ms, ms_since(started));
    Ok(print(&v))
}
