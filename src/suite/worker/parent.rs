//! The parent's side of the worker protocol: start a child per device,
//! ask it one request at a time (`WorkerDevice::request`, the one place a
//! request is sent and its answer, death or silence read), and turn what
//! ends a child into a verdict or an environment error by the policy of the
//! module docs.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::shared::{Regions, SHARED_FDS};
use super::wire::{
    read_frame_reusing, resolve_payload, Blobs, CodeCache, FrameWriter, Incoming, Payload, Request,
    Response, Setup, WireArg, WireCase, WireDispatch, WireInputs, WireObject, WireThroughput,
};
use super::{PARENT_PID, VISIBLE_DEVICES};
use crate::backend::conformance::{
    BatchOutcome, CaseDevice, DeviceOutcome, KernelIdentity, KernelObject,
};
use crate::backend::{Backend, BackendError, Completion, DeviceInfo, Dispatch};
use crate::case::Case;

/// How to start a worker for one device.
#[derive(Clone, Debug)]
pub struct WorkerPlan {
    /// The dsxor binary (`std::env::current_exe()` of the parent).
    pub exe: PathBuf,
    /// `HIP_VISIBLE_DEVICES` for the child: the parent's device, as an
    /// entry of the list the runtime parses (see `visible_entry`).
    pub visible: String,
    /// The device as the parent's probe saw it (recorded in results).
    pub info: DeviceInfo,
    pub objects: Vec<KernelObject>,
    pub timeout: Duration,
    /// Shown on forwarded stderr lines and in messages (`HIP device 1`).
    pub label: String,
    /// Cases per launch at most (`CaseDevice::batch_cap`).
    pub batch: usize,
}

/// The entry of `HIP_VISIBLE_DEVICES` that names the parent's device
/// `ordinal`: the parent's own list is applied first by the runtime (HIP's
/// ordinals count the devices it lets through, in its order), so ordinal
/// `i` is the list's `i`-th entry; without a list, `i` itself. The same
/// precedence as clr: `HIP_VISIBLE_DEVICES`, else `CUDA_VISIBLE_DEVICES`
/// (rocdevice.cpp `Device::init`); ROCR_VISIBLE_DEVICES is applied by ROCr
/// beneath both and is inherited unchanged.
pub fn visible_entry(
    ordinal: u32,
    hip_visible: Option<&str>,
    cuda_visible: Option<&str>,
) -> String {
    let list = hip_visible
        .filter(|s| !s.is_empty())
        .or(cuda_visible.filter(|s| !s.is_empty()));
    match list {
        Some(l) => l
            .split(',')
            .nth(ordinal as usize)
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|| ordinal.to_string()),
        None => ordinal.to_string(),
    }
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    /// The child's protocol frames, read by a thread so that waiting for an
    /// answer has a deadline; closed when the child's stdout closes.
    answers: Receiver<std::io::Result<Incoming>>,
    /// An answer's buffers, done with, back to the thread reading answers
    /// (`wire::read_frame_reusing`).
    spare: std::sync::mpsc::Sender<(Vec<u8>, Vec<u8>)>,
}

/// How long the parent waits for the child's answer to `Setup` (HIP's
/// initialisation and one module load per code object) and to a kernel
/// identity, beyond the launch timeout. Policy: no source bounds these
/// calls; a minute is far above what they take on hardware or on AMD's
/// emulator (seconds), so only a stuck runtime reaches it.
pub const SETUP_DEADLINE: Duration = Duration::from_secs(120);

/// How long the parent waits for a case's answer beyond the launch timeout
/// the child's own watchdog enforces. Policy: the child polls the launch
/// (hipStreamQuery), but its copies, event queries and teardown are
/// blocking HIP calls with no timeout of their own; a runtime stuck in one
/// of them (seen with ROCm 5.4 on rocjitsu after the emulator crashed: the
/// run hung for good) would hang the whole run. What a case does besides the
/// launch takes milliseconds on a GPU and about a second on the emulator,
/// so 20 s more than the launch timeout means the runtime is stuck: the
/// child is killed and the case is a `timeout` verdict.
pub const ANSWER_GRACE: Duration = Duration::from_secs(20);

/// A `CaseDevice` whose cases run in a worker process (see the module
/// docs). The process starts at the first case, and again after one that
/// retired or killed it.
pub struct WorkerDevice {
    plan: WorkerPlan,
    running: Option<Running>,
    /// Last stderr lines of the current child.
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Processes started so far.
    started: u32,
    /// The code objects the current child holds (`Request::Dispatch`,
    /// `Request::Throughput`).
    code: CodeCache,
    /// The input buffers of the last throughput launch sent to the current
    /// child, which it keeps (`WireInputs::Kept`); empty when none.
    inputs: Vec<Vec<u8>>,
    /// The last request's payload buffer, emptied: the next case or batch
    /// is encoded into its allocation (a fresh one regrew and page-faulted
    /// for every launch).
    spare: Blobs,
    /// The frame writer of every request, its buffers kept (as the
    /// child's).
    writer: FrameWriter,
    /// CPU seconds of the children that have ended (read just before each
    /// was reaped).
    ended_cpu: f64,
    /// The payload regions every child of this device is handed (policy
    /// `worker-shared-payload`; none where they could not be made): the
    /// requests' (here for its descriptor; `spare` builds in it) and the
    /// answers', read here. They outlive a child: a child's end is reaped
    /// before the next one starts, so one writer at a time.
    regions: Option<Regions>,
}

/// CPU seconds of a child so far (0 once it cannot be read).
fn child_cpu(child: &Child) -> f64 {
    crate::suite::cpu::pid_cpu_seconds(child.id()).unwrap_or(0.0)
}

/// Lines of a child's stderr kept for a fault message.
const TAIL_LINES: usize = 8;

impl WorkerDevice {
    pub fn new(plan: WorkerPlan) -> WorkerDevice {
        // Policy worker-shared-payload: payloads cross in shared regions;
        // where they cannot be made (no memfd_create, e.g. a seccomp
        // filter) they cross in the pipes, as before, only slower.
        let regions = Regions::create().ok();
        let spare = regions
            .as_ref()
            .and_then(|r| r.requests.try_clone().ok())
            .map_or_else(Blobs::default, Blobs::in_region);
        WorkerDevice {
            plan,
            running: None,
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
            started: 0,
            code: CodeCache::default(),
            inputs: Vec::new(),
            spare,
            writer: FrameWriter::default(),
            ended_cpu: 0.0,
            regions,
        }
    }

    /// Worker processes started so far.
    pub fn processes_started(&self) -> u32 {
        self.started
    }

    fn env_error(&self, what: String) -> BackendError {
        BackendError::Environment(format!("worker for {}: {what}", self.plan.label))
    }

    fn start(&mut self) -> Result<(), BackendError> {
        let mut cmd = Command::new(&self.plan.exe);
        cmd.arg("worker")
            .env(PARENT_PID, std::process::id().to_string())
            .env(VISIBLE_DEVICES, &self.plan.visible)
            // HIP_VISIBLE_DEVICES wins over it in clr; removed so nothing
            // else reads a list the child's ordinal does not index.
            .env_remove("CUDA_VISIBLE_DEVICES")
            .env_remove(SHARED_FDS)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(r) = &self.regions {
            r.hand_to(&mut cmd);
        }
        let mut child = cmd.spawn().map_err(|e| {
            self.env_error(format!("cannot start {}: {e}", self.plan.exe.display()))
        })?;
        self.started += 1;
        // A fresh process holds no code object and no inputs yet.
        self.code = CodeCache::default();
        self.inputs = Vec::new();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(self.env_error("the child has no pipes".into()));
        };
        let tail = Arc::clone(&self.stderr_tail);
        if let Ok(mut t) = tail.lock() {
            t.clear();
        }
        let prefix = format!("[worker {}] ", self.plan.label);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{prefix}{line}");
                if let Ok(mut t) = tail.lock() {
                    if t.len() == TAIL_LINES {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        let (send, answers) = std::sync::mpsc::channel();
        let (spare, spares) = std::sync::mpsc::channel::<(Vec<u8>, Vec<u8>)>();
        std::thread::spawn(move || {
            let mut stdout = BufReader::with_capacity(1 << 16, stdout);
            // The parent gives an answer's buffers back before it sends the
            // next request, so they are here when its answer's header is.
            let mut reuse = || spares.try_iter().last();
            loop {
                let frame = match read_frame_reusing(&mut stdout, &mut reuse) {
                    Ok(None) => return,
                    Ok(Some(f)) => Ok(f),
                    Err(e) => Err(e),
                };
                let end = frame.is_err();
                if send.send(frame).is_err() || end {
                    return;
                }
            }
        });
        self.running = Some(Running {
            child,
            stdin,
            answers,
            spare,
        });
        // In the spare payload (requests are built after their child is
        // started: `ensure_started`).
        let mut blobs = std::mem::take(&mut self.spare);
        let setup = Setup {
            objects: self
                .plan
                .objects
                .iter()
                .map(|o| WireObject::from_object(o, &mut blobs))
                .collect(),
            timeout_ms: self.plan.timeout.as_millis() as u64,
        };
        let deadline = SETUP_DEADLINE + self.plan.timeout;
        let request = (Request::Setup(setup), blobs);
        let info = match self.ask("the setup", request, deadline, |r, _| match r {
            Response::Ready { info } => Ok((Ok(info), false)),
            other => Err(Box::new(other)),
        })? {
            Ok(info) => info,
            Err(Lost::Signal { death, said }) => {
                return Err(self.env_error(format!(
                    "the child was {death} before its device was open{}",
                    last_line(&said)
                )))
            }
            Err(Lost::Hung { limit, .. }) => {
                return Err(self.env_error(format!(
                    "the child did not open its device within {limit:?} (its HIP runtime is stuck); killed"
                )))
            }
        };
        if info.target_id != self.plan.info.target_id {
            self.stop();
            return Err(self.env_error(format!(
                "the child opened a {} device, the parent saw {} (is {}={} the right device?)",
                info.target_id, self.plan.info.target_id, VISIBLE_DEVICES, self.plan.visible
            )));
        }
        Ok(())
    }

    /// A child running, started if none is: before a request is built in
    /// the spare payload, so that a child's setup is built there too.
    fn ensure_started(&mut self) -> Result<(), BackendError> {
        if self.running.is_none() {
            self.start()?;
        }
        Ok(())
    }

    /// One request to the child (started first if none runs): see [`ask`].
    ///
    /// [`ask`]: WorkerDevice::ask
    fn request<T>(
        &mut self,
        what: &str,
        request: (Request, Blobs),
        deadline: Duration,
        take: impl FnOnce(Response, Payload<'_>) -> Taken<T>,
    ) -> Result<Result<T, Lost>, BackendError> {
        self.ensure_started()?;
        self.ask(what, request, deadline, take)
    }

    /// Send `request` (`what` names it in messages; its buffers are the
    /// `Blobs`) to the running child and read its answer with `take` (given
    /// the answer's payload): the answer of the kind asked for
    /// gives its value (or why it is unreadable) and whether it retires the
    /// child; any other answer is given back. What can be a verdict on the
    /// work the child was running comes back as `Lost`: killed by a signal,
    /// or no answer within `deadline`. Every other end is an environment
    /// error: an error answer, an unexpected or unreadable one, an exit with
    /// a code, a broken pipe. Whatever retires or ends the child leaves none
    /// running; the next request starts a fresh one.
    fn ask<T>(
        &mut self,
        what: &str,
        request: (Request, Blobs),
        deadline: Duration,
        take: impl FnOnce(Response, Payload<'_>) -> Taken<T>,
    ) -> Result<Result<T, Lost>, BackendError> {
        let answer = self.exchange(&request.0, &request.1, deadline);
        // A batch is not held while its answer is read; its payload's
        // allocation is kept for the next request.
        let (request, mut spare) = request;
        drop(request);
        spare.clear();
        self.spare = spare;
        let Answer {
            response,
            json,
            payload,
            shared: shared_len,
        } = match answer {
            Ok(r) => r,
            // The policy of the module docs: a signal is the runtime ending
            // the process on a device fault; anything else is dsxor's or the
            // environment's trouble.
            Err(Exchange::Died(death @ Death::Signal(..))) => {
                let said = self.tail();
                return Ok(Err(Lost::Signal { death, said }));
            }
            // Policy (ANSWER_GRACE): the work did not end; the child was
            // killed.
            Err(Exchange::Hung(limit)) => {
                let said = self.tail();
                return Ok(Err(Lost::Hung { limit, said }));
            }
            Err(Exchange::Died(death)) => {
                let said = self.tail();
                return Err(self.env_error(format!(
                    "the worker process {death} while running {what}{}",
                    last_line(&said)
                )));
            }
            Err(Exchange::Io(e)) => {
                self.stop();
                return Err(self.env_error(e));
            }
        };
        let region = self.regions.as_mut().map(|r| &mut r.answers);
        let bytes = match resolve_payload(&payload, shared_len, region) {
            Ok(b) => b,
            Err(e) => {
                self.stop();
                return Err(self.env_error(format!("unreadable answer to {what}: {e}")));
            }
        };
        let taken = take(response, Payload(bytes));
        if let Some(r) = &self.running {
            // Closed only when the reader has stopped: nothing to reuse.
            let _ = r.spare.send((json, payload));
        }
        match taken {
            Ok((Ok(value), retire)) => {
                if retire {
                    // A sticky error or a kernel that never ends: nothing
                    // more runs in that process.
                    self.stop();
                }
                Ok(Ok(value))
            }
            Ok((Err(e), _)) => {
                self.stop();
                Err(self.env_error(format!("unreadable answer to {what}: {e}")))
            }
            Err(other) => {
                self.stop();
                Err(match *other {
                    Response::Error(e) => e.into_backend(),
                    other => self.env_error(format!("unexpected answer to {what}: {other:?}")),
                })
            }
        }
    }

    /// Kill and reap the current child, if any.
    fn stop(&mut self) {
        if let Some(mut r) = self.running.take() {
            self.ended_cpu += child_cpu(&r.child);
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }

    fn tail(&self) -> String {
        self.stderr_tail
            .lock()
            .map(|t| {
                t.iter()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .cloned()
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }

    /// Send one request and read its answer. A child gone (EOF, broken
    /// pipe) is reaped and described; one that has not answered within
    /// `deadline` is killed (`Exchange::Hung`).
    fn exchange(
        &mut self,
        request: &Request,
        blobs: &Blobs,
        deadline: Duration,
    ) -> Result<Answer, Exchange> {
        let Some(r) = self.running.as_mut() else {
            return Err(Exchange::Io("no worker process".into()));
        };
        if self.writer.write(&mut r.stdin, request, blobs).is_err() {
            return Err(Exchange::Died(self.reap()));
        }
        let frame = match self
            .running
            .as_ref()
            .map(|r| r.answers.recv_timeout(deadline))
        {
            None => return Err(Exchange::Io("no worker process".into())),
            Some(Ok(Ok(frame))) => frame,
            Some(Ok(Err(e))) => return Err(Exchange::Io(format!("reading the answer: {e}"))),
            Some(Err(RecvTimeoutError::Disconnected)) => return Err(Exchange::Died(self.reap())),
            Some(Err(RecvTimeoutError::Timeout)) => {
                self.stop();
                return Err(Exchange::Hung(deadline));
            }
        };
        let (json, payload, shared) = match frame {
            Incoming::Foreign(msg) => {
                self.stop();
                return Err(Exchange::Io(msg));
            }
            Incoming::Frame {
                json,
                payload,
                shared,
            } => (json, payload, shared),
        };
        match serde_json::from_slice(&json) {
            Ok(response) => Ok(Answer {
                response,
                json,
                payload,
                shared,
            }),
            Err(e) => {
                // Quote the JSON's start: a damaged answer can be long.
                let start: String = String::from_utf8_lossy(&json).chars().take(200).collect();
                Err(Exchange::Io(format!("unreadable answer: {e}: {start}")))
            }
        }
    }

    /// The exit of a child whose pipe closed.
    fn reap(&mut self) -> Death {
        let Some(mut r) = self.running.take() else {
            return Death::Unknown("no process".into());
        };
        // Its stdout closed: it is exiting. Wait for it (bounded: a child
        // stuck in its runtime's teardown is killed). Its CPU is the last
        // reading before the wait reaps it.
        let mut waited = Duration::ZERO;
        let mut cpu = 0.0f64;
        let status = loop {
            cpu = cpu.max(child_cpu(&r.child));
            match r.child.try_wait() {
                Ok(Some(s)) => break Ok(s),
                Ok(None) if waited < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(5));
                    waited += Duration::from_millis(5);
                }
                Ok(None) => {
                    let _ = r.child.kill();
                    break r.child.wait();
                }
                Err(e) => break Err(e),
            }
        };
        self.ended_cpu += cpu;
        // Let the stderr thread catch the runtime's last words.
        std::thread::sleep(Duration::from_millis(20));
        match status {
            Ok(s) => death_of(s),
            Err(e) => Death::Unknown(e.to_string()),
        }
    }
}

/// A child's answer frame: the response, its JSON and in-stream payload
/// buffers (given back to the reader for reuse), and the payload's length
/// when it is in the child's shared region instead.
struct Answer {
    response: Response,
    json: Vec<u8>,
    payload: Vec<u8>,
    shared: Option<usize>,
}

/// How a worker process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Death {
    /// Killed by a signal (number, name).
    Signal(i32, &'static str),
    /// Exited by itself with this code.
    Exit(i32),
    Unknown(String),
}

impl std::fmt::Display for Death {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Death::Signal(n, name) => write!(f, "killed by signal {n} ({name})"),
            Death::Exit(c) => write!(f, "exited with code {c}"),
            Death::Unknown(why) => write!(f, "ended, status unknown: {why}"),
        }
    }
}

fn signal_name(n: i32) -> &'static str {
    match n {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "signal",
    }
}

#[cfg(unix)]
fn death_of(s: std::process::ExitStatus) -> Death {
    use std::os::unix::process::ExitStatusExt;
    match (s.signal(), s.code()) {
        (Some(n), _) => Death::Signal(n, signal_name(n)),
        (None, Some(c)) => Death::Exit(c),
        (None, None) => Death::Unknown(format!("{s}")),
    }
}

#[cfg(not(unix))]
fn death_of(s: std::process::ExitStatus) -> Death {
    match s.code() {
        Some(c) => Death::Exit(c),
        None => Death::Unknown(format!("{s}")),
    }
}

enum Exchange {
    Died(Death),
    /// No answer within this deadline; the child was killed.
    Hung(Duration),
    Io(String),
}

impl Drop for WorkerDevice {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What `WorkerDevice::ask`'s reader makes of an answer: the value of the
/// kind asked for (or why it is unreadable) and whether the answer retires
/// the child, or any other answer given back.
type Taken<T> = Result<(Result<T, String>, bool), Box<Response>>;

/// How a request ended without an answer, in a way that can be a verdict on
/// the work the child was running (see `WorkerDevice::ask`). `said` is the
/// child's last stderr line (empty if none).
enum Lost {
    /// Killed by a signal while running it (ROCm 6's `abort()` on a device
    /// fault is SIGABRT).
    Signal { death: Death, said: String },
    /// No answer within `limit`; the child was killed.
    Hung { limit: Duration, said: String },
}

/// The child's last stderr line as the end of a fault or timeout message.
fn after_printing(said: &str) -> String {
    if said.is_empty() {
        String::new()
    } else {
        format!(" after printing \"{said}\"")
    }
}

/// The child's last stderr line as the end of an environment error.
fn last_line(said: &str) -> String {
    if said.is_empty() {
        String::new()
    } else {
        format!(" (its last line: \"{said}\")")
    }
}

/// An environment error's text for a child lost `while` ("running a
/// batch") or that did not `answer` ("answer a batch") in time.
fn lost_while(lost: Lost, while_: &str, answer: &str) -> String {
    match lost {
        Lost::Signal { death, said } => format!(
            "the worker process {death} while {while_}{}",
            last_line(&said)
        ),
        Lost::Hung { limit, .. } => {
            format!("the worker process did not {answer} within {limit:?}; killed")
        }
    }
}

/// The fault of the `work` ("case", "launch") a child was killed by a
/// signal while running: the HIP runtime's `abort()` on a device fault.
fn killed_by_signal(work: &str, death: &Death, said: &str) -> String {
    format!(
        "the worker process running the {work} was {death}{}: the HIP runtime ends the process on a device fault (ROCm/clr rocdevice.cpp callbackQueue calls abort())",
        after_printing(said)
    )
}

impl CaseDevice for WorkerDevice {
    fn info(&self) -> &DeviceInfo {
        &self.plan.info
    }

    /// Every child's so far: the ended ones and the live one
    /// (`suite::cpu::pid_cpu_seconds`).
    fn helper_cpu_seconds(&self) -> f64 {
        self.ended_cpu + self.running.as_ref().map_or(0.0, |r| child_cpu(&r.child))
    }

    fn run_case(&mut self, case: &Case) -> Result<DeviceOutcome, BackendError> {
        self.ensure_started()?;
        let mut blobs = std::mem::take(&mut self.spare);
        let request = Request::Run(Box::new(WireCase::from_case(case, &mut blobs)));
        let deadline = self.plan.timeout + ANSWER_GRACE;
        let answer = self.request("a case", (request, blobs), deadline, |r, p| match r {
            Response::Outcome { outcome, retire } => Ok((outcome.to_outcome(p), retire)),
            other => Err(Box::new(other)),
        })?;
        Ok(match answer {
            Ok(outcome) => outcome,
            // No device label: a case's record must not depend on which
            // worker ran it (the label is on forwarded stderr).
            Err(Lost::Signal { death, said }) => DeviceOutcome::Fault {
                message: killed_by_signal("case", &death, &said),
            },
            // Policy (ANSWER_GRACE): the case's work did not end; the
            // worker is gone and the next case gets a fresh one.
            Err(Lost::Hung { limit, said }) => DeviceOutcome::Timeout {
                message: format!(
                    "the worker process running the case did not answer within {limit:?} (launch timeout {:?} + {ANSWER_GRACE:?}): its HIP runtime is stuck outside the launch watchdog, in a blocking call (a copy, an event or stream query); the process was killed{}",
                    self.plan.timeout,
                    after_printing(&said)
                ),
            },
        })
    }

    fn batch_cap(&self) -> usize {
        self.plan.batch.max(1)
    }

    /// One request, one launch. A child that faults, times out, dies or
    /// hangs on it blames no case: the caller (`run_cases`) runs the
    /// batch's cases again one per launch.
    fn run_batch(&mut self, cases: &[&Case]) -> Result<BatchOutcome, BackendError> {
        // The child's watchdog allows the launch timeout per case
        // (`dispatch_for_batch`); the answer may take that long plus grace.
        let deadline = self.plan.timeout.saturating_mul(cases.len().max(1) as u32) + ANSWER_GRACE;
        self.ensure_started()?;
        let mut blobs = std::mem::take(&mut self.spare);
        let request = Request::RunBatch(
            cases
                .iter()
                .map(|c| WireCase::from_case(c, &mut blobs))
                .collect(),
        );
        let answer = self.request("a batch", (request, blobs), deadline, |r, p| match r {
            Response::Batch { outcome, retire } => Ok((outcome.to_batch(p), retire)),
            other => Err(Box::new(other)),
        })?;
        answer.map_err(|lost| self.env_error(lost_while(lost, "running a batch", "answer a batch")))
    }

    fn kernel_identity(&mut self, case: &Case) -> Result<KernelIdentity, BackendError> {
        self.ensure_started()?;
        let mut blobs = std::mem::take(&mut self.spare);
        let request = Request::Identity(Box::new(WireCase::from_case(case, &mut blobs)));
        let deadline = SETUP_DEADLINE + self.plan.timeout;
        let request = (request, blobs);
        let answer = self.request("a kernel identity", request, deadline, |r, _| match r {
            Response::Identity(k) => Ok((Ok(k), false)),
            other => Err(Box::new(other)),
        })?;
        answer.map_err(|lost| self.env_error(lost_while(lost, "naming a kernel", "name a kernel")))
    }

    fn kernel_objects(&self) -> &[KernelObject] {
        &self.plan.objects
    }

    /// A raw launch, as [`Backend::dispatch`] sends it.
    fn launch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        Backend::dispatch(self, d)
    }
}

/// Raw launches in worker processes (`dsxor qualify --backend hip`): each
/// `Dispatch` is one `Request::Dispatch`, its code object sent once per
/// child and then as the bytes that differ ([`CodeCache`]). The policy of
/// the module docs, per launch: a fault or timeout the child answered is
/// that launch's `BackendError::Fault`/`Timeout` and retires the child; a
/// child killed by a signal while running it is a `Fault` naming the signal
/// (ROCm 6's `abort()`); one that does not answer within the launch's
/// timeout plus [`ANSWER_GRACE`] is killed and the launch is a `Timeout`;
/// one that exits with a code is an environment error. The next launch
/// starts a fresh child.
impl Backend for WorkerDevice {
    fn info(&self) -> &DeviceInfo {
        &self.plan.info
    }

    fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        // Before encoding: a fresh child resets the code cache.
        self.ensure_started()?;
        let mut blobs = std::mem::take(&mut self.spare);
        let request = Request::Dispatch(Box::new(WireDispatch {
            code: self.code.encode(d.code_object, &mut blobs),
            kernel: d.kernel.to_string(),
            groups: d.groups,
            block: d.block,
            dynamic_lds: d.dynamic_lds,
            buffers: d.buffers.iter().map(|b| blobs.put(b)).collect(),
            args: d.args.iter().map(WireArg::from_arg).collect(),
            timeout_ms: u64::try_from(d.timeout.as_millis()).unwrap_or(u64::MAX),
        }));
        let sizes: Vec<usize> = d.buffers.iter().map(Vec::len).collect();
        let answer = self.launch(d, request, blobs, |r, p| match r {
            Response::Launch { outcome, retire } => Ok((outcome.to_result(&sizes, p), retire)),
            other => Err(Box::new(other)),
        })?;
        // The protocol brings every buffer back (raw launches are
        // `qualify`'s, which reads them all); the contract of `read_back`
        // holds all the same.
        answer.map(|mut done| {
            for (i, b) in done.buffers.iter_mut().enumerate() {
                if !d.read_back.wants(i) {
                    *b = Vec::new();
                }
            }
            done
        })
    }
}

impl WorkerDevice {
    /// One launch request (`Dispatch`, `Throughput`) and what its answer,
    /// or the child's death or silence, makes of the launch, by the policy
    /// of [`impl Backend for WorkerDevice`](WorkerDevice#impl-Backend-for-WorkerDevice).
    fn launch(
        &mut self,
        d: &Dispatch<'_>,
        request: Request,
        blobs: Blobs,
        take: impl FnOnce(Response, Payload<'_>) -> Taken<Result<Completion, BackendError>>,
    ) -> Result<Result<Completion, BackendError>, BackendError> {
        let deadline = d.timeout.saturating_add(ANSWER_GRACE);
        Ok(
            match self.request("a launch", (request, blobs), deadline, take)? {
                Ok(launch) => launch,
                Err(Lost::Signal { death, said }) => Err(BackendError::Fault(killed_by_signal(
                    "launch", &death, &said,
                ))),
                // Policy (ANSWER_GRACE): the launch's work did not end; the
                // worker is gone and the next launch gets a fresh one.
                // (Its stderr, forwarded, says where it was stuck.)
                Err(Lost::Hung { limit, .. }) => Err(BackendError::Timeout {
                    kernel: d.kernel.to_string(),
                    limit,
                    pc: None,
                }),
            },
        )
    }

    /// One throughput launch (`Request::Throughput`): as a raw launch
    /// ([`Backend::dispatch`]), by the same policy, but the inputs cross
    /// the pipe only when they differ from the last ones this child was
    /// sent, and only the buffers `d.read_back` names come back.
    fn throughput(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        // Before encoding: a fresh child resets the code and input caches.
        self.ensure_started()?;
        let mut blobs = std::mem::take(&mut self.spare);
        let buffers = if self.inputs.as_slice() == d.buffers.as_slice() && !d.buffers.is_empty() {
            WireInputs::Kept
        } else {
            self.inputs = d.buffers.clone();
            WireInputs::Sent(d.buffers.iter().map(|b| blobs.put(b)).collect())
        };
        let read_back: Vec<u32> = (0..d.buffers.len())
            .filter(|&i| d.read_back.wants(i))
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        let request = Request::Throughput(Box::new(WireThroughput {
            code: self.code.encode(d.code_object, &mut blobs),
            kernel: d.kernel.to_string(),
            groups: d.groups,
            block: d.block,
            dynamic_lds: d.dynamic_lds,
            buffers,
            args: d.args.iter().map(WireArg::from_arg).collect(),
            timeout_ms: u64::try_from(d.timeout.as_millis()).unwrap_or(u64::MAX),
            read_back,
        }));
        let sizes: Vec<usize> = d
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| if d.read_back.wants(i) { b.len() } else { 0 })
            .collect();
        // A child that faulted, timed out or died is gone: the next
        // launch's child is fresh and is sent the inputs again (`start`).
        self.launch(d, request, blobs, |r, p| match r {
            Response::Throughput { outcome, retire } => Ok((outcome.to_result(&sizes, p), retire)),
            other => Err(Box::new(other)),
        })?
    }
}

/// Throughput launches in worker processes (`dsxor bench --backend hip`):
/// each `Dispatch` is one `Request::Throughput` to a [`WorkerDevice`], by
/// the policy of [`impl Backend for WorkerDevice`](WorkerDevice#impl-Backend-for-WorkerDevice)
/// (a fault, a child killed by a signal, a hang past the timeout plus
/// [`ANSWER_GRACE`]: that launch's `Fault` or `Timeout`, and the next
/// launch starts a fresh child). A launch's time is its HIP event time,
/// measured in the child as `HipBackend` measures it in process.
pub struct ThroughputWorker {
    worker: WorkerDevice,
}

impl ThroughputWorker {
    /// Nothing starts until the first launch.
    pub fn new(plan: WorkerPlan) -> ThroughputWorker {
        ThroughputWorker {
            worker: WorkerDevice::new(plan),
        }
    }

    /// Worker processes started so far.
    pub fn processes_started(&self) -> u32 {
        self.worker.processes_started()
    }
}

impl Backend for ThroughputWorker {
    fn info(&self) -> &DeviceInfo {
        &self.worker.plan.info
    }

    fn dispatch(&mut self, d: &Dispatch<'_>) -> Result<Completion, BackendError> {
        self.worker.throughput(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_entry_indexes_the_parents_list() {
        assert_eq!(visible_entry(1, None, None), "1");
        assert_eq!(visible_entry(1, Some("2,3"), None), "3");
        assert_eq!(visible_entry(0, Some("GPU-abc,5"), None), "GPU-abc");
        // HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES (clr).
        assert_eq!(visible_entry(0, Some("4"), Some("7")), "4");
        assert_eq!(visible_entry(0, Some(""), Some("7")), "7");
    }

    #[test]
    fn signals_are_named() {
        assert_eq!(
            Death::Signal(6, signal_name(6)).to_string(),
            "killed by signal 6 (SIGABRT)"
        );
        assert_eq!(Death::Exit(101).to_string(), "exited with code 101");
    }
}
