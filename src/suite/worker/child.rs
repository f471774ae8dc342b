//! The child's side of the worker protocol: `dsxor worker` serves requests
//! on the one HIP device it sees until its stdin closes or an answer
//! retires it.

use std::io::{BufRead, Write};
use std::time::Duration;

use super::wire::{
    b64, foreign_version, write_line, CodeCache, Request, Response, Setup, WireBatch, WireCase,
    WireError, WireLaunch, WireObject, WireOutcome, LINE_TAG,
};
use super::PARENT_PID;
use crate::backend::conformance::{BatchOutcome, CaseDevice, ConformanceDevice, DeviceOutcome};
use crate::backend::hip::HipBackend;
use crate::backend::{Backend, Dispatch};
use crate::case::Case;

/// The child's first act: end with its parent. A parent killed outright
/// (SIGKILL: a CI cancel, an OOM kill) runs no cleanup, and a child stuck in
/// a HIP call never reads the EOF on its stdin, so without this it would
/// live on holding its GPU. Linux: `prctl(PR_SET_PDEATHSIG, SIGKILL)`
/// (prctl(2); the signal comes when the *thread* that started the child
/// ends, which here is the thread that owns the `WorkerDevice` and kills the
/// child anyway when it is done), then a check that the parent named in
/// `PARENT_PID` is still the parent (it may have died before the prctl).
/// Elsewhere: nothing (the EOF on stdin still ends an idle child).
pub fn die_with_parent() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and
        // touches no memory of ours.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        }
        let expected = std::env::var(PARENT_PID)
            .ok()
            .and_then(|p| p.parse::<u32>().ok());
        if expected.is_some_and(|p| p != std::os::unix::process::parent_id()) {
            std::process::exit(i32::from(crate::exit::ENVIRONMENT));
        }
    }
}

/// The child's side: serve requests from `input` on the one HIP device this
/// process sees, answering on `output`, until `input` closes. Returns after
/// a retiring answer too (the caller exits; the parent kills it anyway).
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut device: Option<ConformanceDevice<HipBackend>> = None;
    let mut code = CodeCache::default();
    for line in input.lines() {
        let line = line?;
        if let Some(msg) = foreign_version(&line) {
            write_line(&mut output, &Response::Error(WireError::Invalid(msg)))?;
            return Ok(());
        }
        let Some(body) = line.strip_prefix(LINE_TAG) else {
            continue;
        };
        let request: Result<Request, _> = serde_json::from_str(body);
        // The line's text is not needed again: a batch is not held twice.
        drop(line);
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                let msg = format!("worker: unreadable request: {e}");
                write_line(&mut output, &Response::Error(WireError::Invalid(msg)))?;
                continue;
            }
        };
        let response = respond(request, &mut device, &mut code);
        let retire = matches!(
            response,
            Response::Outcome { retire: true, .. }
                | Response::Batch { retire: true, .. }
                | Response::Launch { retire: true, .. }
        );
        write_line(&mut output, &response)?;
        if retire {
            return Ok(());
        }
    }
    Ok(())
}

fn respond(
    request: Request,
    device: &mut Option<ConformanceDevice<HipBackend>>,
    code: &mut CodeCache,
) -> Response {
    let unreadable = |e: String| Response::Error(WireError::Invalid(format!("worker: {e}")));
    match (request, device.as_mut()) {
        (Request::Setup(setup), _) => match open_child(&setup) {
            Ok(d) => {
                let info = d.info().clone();
                *device = Some(d);
                Response::Ready { info }
            }
            Err(e) => Response::Error(e),
        },
        (
            Request::Run(_) | Request::RunBatch(_) | Request::Identity(_) | Request::Dispatch(_),
            None,
        ) => Response::Error(WireError::Invalid(
            "worker: a case arrived before the setup".into(),
        )),
        (Request::Dispatch(w), Some(d)) => {
            use base64::Engine;
            let bytes = match code.decode(&w.code) {
                Ok(b) => b,
                Err(e) => return unreadable(e),
            };
            let buffers = match w
                .buffers
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    b64()
                        .decode(b)
                        .map_err(|e| format!("buffer {i}: not base64: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(b) => b,
                Err(e) => return unreadable(e),
            };
            let dispatch = Dispatch {
                code_object: &bytes,
                kernel: &w.kernel,
                groups: w.groups,
                block: w.block,
                dynamic_lds: w.dynamic_lds,
                buffers,
                args: w.args.iter().map(|a| a.to_arg()).collect(),
                timeout: Duration::from_millis(w.timeout_ms),
            };
            match WireLaunch::from_result(d.backend_mut().dispatch(&dispatch)) {
                Ok(outcome) => Response::Launch {
                    // A fault or a timeout: a sticky error or a kernel that
                    // never ends; nothing more runs in this process.
                    retire: !matches!(outcome, WireLaunch::Completed { .. }),
                    outcome,
                },
                Err(e) => Response::Error(WireError::from_backend(e)),
            }
        }
        (Request::Run(case), Some(d)) => {
            let case = match case.to_case() {
                Ok(c) => c,
                Err(e) => return unreadable(e),
            };
            match d.run_case(&case) {
                Ok(outcome) => {
                    let retire = !matches!(outcome, DeviceOutcome::Completed { .. });
                    Response::Outcome {
                        outcome: WireOutcome::from_outcome(&outcome),
                        retire,
                    }
                }
                Err(e) => Response::Error(WireError::from_backend(e)),
            }
        }
        (Request::RunBatch(wire), Some(d)) => {
            let cases = match wire
                .iter()
                .map(WireCase::to_case)
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(c) => c,
                Err(e) => return unreadable(e),
            };
            drop(wire);
            let refs: Vec<&Case> = cases.iter().collect();
            match d.run_batch(&refs) {
                Ok(outcome) => {
                    drop(refs);
                    drop(cases);
                    let retire = !matches!(outcome, BatchOutcome::Each(_));
                    Response::Batch {
                        outcome: WireBatch::from_batch(&outcome),
                        retire,
                    }
                }
                Err(e) => Response::Error(WireError::from_backend(e)),
            }
        }
        (Request::Identity(case), Some(d)) => match case.to_case() {
            Ok(case) => match d.kernel_identity(&case) {
                Ok(k) => Response::Identity(k),
                Err(e) => Response::Error(WireError::from_backend(e)),
            },
            Err(e) => unreadable(e),
        },
    }
}

fn open_child(setup: &Setup) -> Result<ConformanceDevice<HipBackend>, WireError> {
    let objects = setup
        .objects
        .iter()
        .map(WireObject::to_object)
        .collect::<Result<Vec<_>, _>>()
        .map_err(WireError::Invalid)?;
    // The parent made this process see exactly one device: ordinal 0.
    let backend = HipBackend::open(Some(0)).map_err(WireError::from_backend)?;
    Ok(ConformanceDevice::with_codeobj(
        backend,
        objects,
        Duration::from_millis(setup.timeout_ms),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::conformance::KernelObject;
    use crate::backend::ArgValue;
    use crate::case::WaveSize;
    use crate::suite::worker::wire::{WireArg, WireCode, WireDispatch};

    #[test]
    fn protocol_round_trips_and_skips_foreign_lines() {
        let o = KernelObject {
            wave: WaveSize::Wave64,
            mode: crate::case::Mode::Cu,
            bytes: vec![0x7f, b'E', b'L', b'F'],
            source: "s".into(),
            origin: "file".into(),
            compiler: None,
        };
        let back = WireObject::from_object(&o).to_object().unwrap();
        assert_eq!(back.bytes, o.bytes);
        assert_eq!(back.mode, o.mode);
        // A child with no device answers the stray case with an error and
        // ignores a line that is not the protocol's.
        let input = format!(
            "hello from a runtime\n{LINE_TAG}{}\n",
            serde_json::to_string(&Request::Identity(Box::new(WireCase::from_case(
                &crate::case::Case {
                    pattern: "t".into(),
                    index: 0,
                    geometry: crate::case::Geometry {
                        wave_size: WaveSize::Wave32,
                        waves_per_group: 1,
                        groups: 1,
                        mode: crate::case::Mode::Wgp,
                    },
                    lds_bytes: 8,
                    offset: 0,
                    lds_init: vec![vec![0]],
                    lanes: vec![],
                    more_rounds: vec![],
                }
            ))))
            .unwrap()
        );
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let r: Response = serde_json::from_str(lines[0].strip_prefix(LINE_TAG).unwrap()).unwrap();
        assert!(
            matches!(r, Response::Error(WireError::Invalid(ref m)) if m.contains("before the setup")),
            "{r:?}"
        );
    }

    #[test]
    fn a_launch_before_the_setup_is_refused() {
        use base64::Engine;
        let d = Request::Dispatch(Box::new(WireDispatch {
            code: WireCode::Bytes(b64().encode([0u8; 4])),
            kernel: "k".into(),
            groups: 1,
            block: 32,
            dynamic_lds: 0,
            buffers: vec![],
            args: vec![WireArg::from_arg(&ArgValue::Buffer(0))],
            timeout_ms: 10,
        }));
        let input = format!("{LINE_TAG}{}\n", serde_json::to_string(&d).unwrap());
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let r: Response =
            serde_json::from_str(text.trim_end().strip_prefix(LINE_TAG).unwrap()).unwrap();
        assert!(
            matches!(r, Response::Error(WireError::Invalid(ref m)) if m.contains("before the setup")),
            "{r:?}"
        );
    }

    #[test]
    fn another_protocol_version_is_refused_not_ignored() {
        let input = "dsxor-worker/1 {\"identity\":{}}\n";
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let r: Response = serde_json::from_str(lines[0].strip_prefix(LINE_TAG).unwrap()).unwrap();
        assert!(
            matches!(r, Response::Error(WireError::Invalid(ref m)) if m.contains("dsxor-worker/1 at the other end")),
            "{r:?}"
        );
        assert_eq!(foreign_version(&format!("{LINE_TAG}{{}}")), None);
        assert_eq!(foreign_version("hello"), None);
    }
}
