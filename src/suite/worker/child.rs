//! The child's side of the worker protocol: `dsxor worker` serves requests
//! on the one HIP device it sees until its stdin closes or an answer
//! retires it.

use std::io::{BufRead, Write};
use std::time::Duration;

use super::shared::Regions;
use super::wire::{
    Blobs, CodeCache, FrameReader, FrameWriter, Framed, Payload, Request, Response, Setup,
    WireBatch, WireCase, WireDispatch, WireError, WireInputs, WireLaunch, WireOutcome,
    WireThroughput,
};
use super::PARENT_PID;
use crate::backend::conformance::{BatchOutcome, CaseDevice, ConformanceDevice, DeviceOutcome};
use crate::backend::hip::HipBackend;
use crate::backend::{Backend, Dispatch, ReadBack};
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
/// `regions`: the parent's shared regions, when it gave them (requests' and
/// answers'); the answers' payloads then go there, not on `output`.
pub fn serve(
    mut input: impl BufRead,
    mut output: impl Write,
    regions: Option<Regions>,
) -> std::io::Result<()> {
    let mut device: Option<ConformanceDevice<HipBackend>> = None;
    let mut code = CodeCache::default();
    // The inputs of the last throughput launch (`WireInputs::Kept`).
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let error = |msg: String| Response::Error(WireError::Invalid(msg));
    // Frame buffers kept from request to request: each launch's request
    // and answer reuse the last one's memory.
    let mut reader = FrameReader::default();
    let mut writer = FrameWriter::default();
    let mut blobs = Blobs::default();
    if let Some(r) = regions {
        reader.shared = Some(r.requests);
        blobs = Blobs::in_region(r.answers);
    }
    loop {
        blobs.clear();
        match reader.next(&mut input) {
            Ok(None) => return Ok(()),
            Ok(Some(Framed::Frame)) => {}
            Ok(Some(Framed::Foreign(msg))) => {
                return writer.write(&mut output, &error(msg), &blobs);
            }
            // A damaged header or a frame cut short: the stream cannot be
            // resynchronised, so say why and stop.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::InvalidData | std::io::ErrorKind::UnexpectedEof
                ) =>
            {
                let msg = format!("worker: unreadable request frame: {e}");
                return writer.write(&mut output, &error(msg), &blobs);
            }
            Err(e) => return Err(e),
        };
        let request: Request = match serde_json::from_slice(&reader.json) {
            Ok(r) => r,
            Err(e) => {
                let msg = format!("worker: unreadable request: {e}");
                writer.write(&mut output, &error(msg), &blobs)?;
                continue;
            }
        };
        let payload = match reader.payload() {
            Ok(p) => p,
            Err(e) => {
                let msg = format!("worker: unreadable request payload: {e}");
                return writer.write(&mut output, &error(msg), &blobs);
            }
        };
        let response = respond(
            request,
            Payload(payload),
            &mut blobs,
            &mut device,
            &mut code,
            &mut kept,
        );
        let retire = matches!(
            response,
            Response::Outcome { retire: true, .. }
                | Response::Batch { retire: true, .. }
                | Response::Launch { retire: true, .. }
                | Response::Throughput { retire: true, .. }
        );
        writer.write(&mut output, &response, &blobs)?;
        if retire {
            return Ok(());
        }
    }
}

/// The answer to `request`, whose buffers are in `payload`; the answer's
/// buffers go to `blobs`.
fn respond(
    request: Request,
    payload: Payload<'_>,
    blobs: &mut Blobs,
    device: &mut Option<ConformanceDevice<HipBackend>>,
    code: &mut CodeCache,
    kept: &mut Vec<Vec<u8>>,
) -> Response {
    match (request, device.as_mut()) {
        (Request::Setup(setup), _) => match open_child(&setup, payload) {
            Ok(d) => {
                let info = d.info().clone();
                *device = Some(d);
                Response::Ready { info }
            }
            Err(e) => Response::Error(e),
        },
        (
            Request::Run(_)
            | Request::RunBatch(_)
            | Request::Identity(_)
            | Request::Dispatch(_)
            | Request::Throughput(_),
            None,
        ) => Response::Error(WireError::Invalid(
            "worker: a case arrived before the setup".into(),
        )),
        (Request::Throughput(w), Some(d)) => throughput(&w, payload, blobs, d, code, kept),
        (Request::Dispatch(w), Some(d)) => dispatch(&w, payload, blobs, d, code),
        (Request::Run(case), Some(d)) => {
            let case = match case.to_case(payload) {
                Ok(c) => c,
                Err(e) => return unreadable(e),
            };
            match d.run_case(&case) {
                Ok(outcome) => {
                    let retire = !matches!(outcome, DeviceOutcome::Completed { .. });
                    Response::Outcome {
                        outcome: WireOutcome::from_outcome(&outcome, blobs),
                        retire,
                    }
                }
                Err(e) => Response::Error(WireError::from_backend(e)),
            }
        }
        (Request::RunBatch(wire), Some(d)) => run_batch(wire, payload, blobs, d),
        (Request::Identity(case), Some(d)) => match case.to_case(payload) {
            Ok(case) => match d.kernel_identity(&case) {
                Ok(k) => Response::Identity(k),
                Err(e) => Response::Error(WireError::from_backend(e)),
            },
            Err(e) => unreadable(e),
        },
    }
}

/// Answer a throughput launch (`dsxor bench`): its inputs sent now or kept
/// from the last launch, only the buffers asked for sent back.
fn throughput(
    w: &WireThroughput,
    payload: Payload<'_>,
    blobs: &mut Blobs,
    d: &mut ConformanceDevice<HipBackend>,
    code: &mut CodeCache,
    kept: &mut Vec<Vec<u8>>,
) -> Response {
    let bytes = match code.decode(&w.code, payload) {
        Ok(b) => b,
        Err(e) => return unreadable(e),
    };
    match &w.buffers {
        WireInputs::Sent(sent) => {
            match sent
                .iter()
                .enumerate()
                .map(|(i, b)| Ok(payload.bytes(*b, &format!("buffer {i}"))?.to_vec()))
                .collect::<Result<Vec<_>, String>>()
            {
                Ok(b) => *kept = b,
                Err(e) => return unreadable(e),
            }
        }
        WireInputs::Kept if kept.is_empty() => {
            return unreadable(
                "a throughput launch of kept inputs, but none were sent to this process".into(),
            )
        }
        WireInputs::Kept => {}
    }
    if let Some(&i) = w.read_back.iter().find(|&&i| i as usize >= kept.len()) {
        return unreadable(format!(
            "read_back names buffer {i} of a launch of {}",
            kept.len()
        ));
    }
    let dispatch = Dispatch {
        code_object: &bytes,
        kernel: &w.kernel,
        groups: w.groups,
        block: w.block,
        dynamic_lds: w.dynamic_lds,
        // A fresh copy per launch: what one launch wrote into its
        // buffers must not be the next one's input.
        buffers: kept.clone(),
        args: w.args.iter().map(|a| a.to_arg()).collect(),
        timeout: Duration::from_millis(w.timeout_ms),
        // `ReadBack::Only` takes a static list; every buffer comes
        // back from the device (after the timed events) and only
        // those asked for cross the pipe.
        read_back: ReadBack::All,
    };
    let result = d.backend_mut().dispatch(&dispatch).map(|mut done| {
        for (i, b) in done.buffers.iter_mut().enumerate() {
            if !w.read_back.contains(&(i as u32)) {
                *b = Vec::new();
            }
        }
        done
    });
    match WireLaunch::from_result(result, blobs) {
        Ok(outcome) => Response::Throughput {
            // A fault or a timeout: a sticky error or a kernel that
            // never ends; nothing more runs in this process.
            retire: !matches!(outcome, WireLaunch::Completed { .. }),
            outcome,
        },
        Err(e) => Response::Error(WireError::from_backend(e)),
    }
}

/// Answer one raw launch (`dsxor qualify`'s programs).
fn dispatch(
    w: &WireDispatch,
    payload: Payload<'_>,
    blobs: &mut Blobs,
    d: &mut ConformanceDevice<HipBackend>,
    code: &mut CodeCache,
) -> Response {
    let bytes = match code.decode(&w.code, payload) {
        Ok(b) => b,
        Err(e) => return unreadable(e),
    };
    let buffers = match w
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| Ok(payload.bytes(*b, &format!("buffer {i}"))?.to_vec()))
        .collect::<Result<Vec<_>, String>>()
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
        read_back: ReadBack::All,
    };
    match WireLaunch::from_result(d.backend_mut().dispatch(&dispatch), blobs) {
        Ok(outcome) => Response::Launch {
            // A fault or a timeout: a sticky error or a kernel that
            // never ends; nothing more runs in this process.
            retire: !matches!(outcome, WireLaunch::Completed { .. }),
            outcome,
        },
        Err(e) => Response::Error(WireError::from_backend(e)),
    }
}

/// Answer a batch of cases run in one launch.
fn run_batch(
    wire: Vec<WireCase>,
    payload: Payload<'_>,
    blobs: &mut Blobs,
    d: &mut ConformanceDevice<HipBackend>,
) -> Response {
    let cases = match wire
        .iter()
        .map(|c| c.to_case(payload))
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
                outcome: WireBatch::from_batch(&outcome, blobs),
                retire,
            }
        }
        Err(e) => Response::Error(WireError::from_backend(e)),
    }
}

/// A request whose buffers or code the worker cannot read.
fn unreadable(e: String) -> Response {
    Response::Error(WireError::Invalid(format!("worker: {e}")))
}

fn open_child(
    setup: &Setup,
    payload: Payload<'_>,
) -> Result<ConformanceDevice<HipBackend>, WireError> {
    let objects = setup
        .objects
        .iter()
        .map(|o| o.to_object(payload))
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
    use crate::suite::worker::wire::{
        foreign_version, read_frame, FrameWriter, Incoming, WireArg, WireCase, WireCode,
        WireDispatch, WireObject, LINE_TAG,
    };

    /// The answers `serve` wrote: every frame, in order.
    fn answers(out: &[u8]) -> Vec<Response> {
        let mut r = out;
        let mut got = Vec::new();
        while let Some(f) = read_frame(&mut r).unwrap() {
            match f {
                Incoming::Frame { json, .. } => got.push(serde_json::from_slice(&json).unwrap()),
                Incoming::Foreign(m) => panic!("{m}"),
            }
        }
        got
    }

    fn frame(request: &Request, blobs: &Blobs) -> Vec<u8> {
        let mut v = Vec::new();
        FrameWriter::default()
            .write(&mut v, request, blobs)
            .unwrap();
        v
    }

    fn invalid(r: &Response, text: &str) -> bool {
        matches!(r, Response::Error(WireError::Invalid(m)) if m.contains(text))
    }

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
        let mut blobs = Blobs::default();
        let wire = WireObject::from_object(&o, &mut blobs);
        let back = wire.to_object(Payload(blobs.as_slice())).unwrap();
        assert_eq!(back.bytes, o.bytes);
        assert_eq!(back.mode, o.mode);
        // A child with no device answers the stray case with an error and
        // ignores a line that is not the protocol's.
        let mut blobs = Blobs::default();
        let case = WireCase::from_case(
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
                stress: None,
                traffic: None,
            },
            &mut blobs,
        );
        let mut input = b"hello from a runtime\n".to_vec();
        input.extend(frame(&Request::Identity(Box::new(case)), &blobs));
        let mut out = Vec::new();
        serve(input.as_slice(), &mut out, None).unwrap();
        let got = answers(&out);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(invalid(&got[0], "before the setup"), "{got:?}");
    }

    #[test]
    fn a_launch_before_the_setup_is_refused() {
        let mut blobs = Blobs::default();
        let d = Request::Dispatch(Box::new(WireDispatch {
            code: WireCode::Bytes(blobs.put(&[0u8; 4])),
            kernel: "k".into(),
            groups: 1,
            block: 32,
            dynamic_lds: 0,
            buffers: vec![],
            args: vec![WireArg::from_arg(&ArgValue::Buffer(0))],
            timeout_ms: 10,
        }));
        let mut out = Vec::new();
        serve(frame(&d, &blobs).as_slice(), &mut out, None).unwrap();
        let got = answers(&out);
        assert!(invalid(&got[0], "before the setup"), "{got:?}");
    }

    #[test]
    fn another_protocol_version_is_refused_not_ignored() {
        // Version 1, version 3 (JSON lines with base64 buffers), version 4
        // (binary frames, no traffic fields: it would run a traffic case as
        // a plain one), version 5 (no throughput launches) and version 6
        // (no payloads in shared memory): the child
        // answers in its own version and stops.
        for (input, version) in [
            ("dsxor-worker/1 {\"identity\":{}}\n", "dsxor-worker/1 "),
            (
                "dsxor-worker/3 {\"run\":{\"addr\":\"AAAAAA==\"}}\n",
                "dsxor-worker/3 ",
            ),
            ("dsxor-worker/4 2 0\n{}", "dsxor-worker/4 "),
            ("dsxor-worker/5 2 0\n{}", "dsxor-worker/5 "),
            ("dsxor-worker/6 2 0\n{}", "dsxor-worker/6 "),
        ] {
            let mut out = Vec::new();
            serve(input.as_bytes(), &mut out, None).unwrap();
            assert!(out.starts_with(LINE_TAG.as_bytes()));
            let got = answers(&out);
            assert_eq!(got.len(), 1, "{got:?}");
            let want = format!("{}at the other end", version);
            assert!(invalid(&got[0], &want), "{got:?}");
            let msg = foreign_version(input).expect("a foreign line");
            assert!(invalid(&got[0], &msg), "{got:?}");
        }
        assert_eq!(
            foreign_version("dsxor-worker/4 2 0").as_deref(),
            Some(
                "worker protocol dsxor-worker/4 at the other end, this is dsxor-worker/7: the parent and the worker must be the same dsxor binary"
            )
        );
        assert_eq!(
            foreign_version("dsxor-worker/5 2 0").as_deref(),
            Some(
                "worker protocol dsxor-worker/5 at the other end, this is dsxor-worker/7: the parent and the worker must be the same dsxor binary"
            )
        );
        assert_eq!(foreign_version(&format!("{LINE_TAG}0 0")), None);
        assert_eq!(foreign_version("hello"), None);
    }

    #[test]
    fn a_damaged_frame_is_refused_with_its_reason() {
        // A header that does not parse, one announcing more than a frame
        // may hold, and a frame cut short: each answered, none a panic.
        let cut = {
            let mut f = frame(&Request::RunBatch(vec![]), &Blobs::default());
            f.truncate(f.len() - 2);
            f
        };
        for (input, why) in [
            (
                format!("{LINE_TAG}twelve 0\n").into_bytes(),
                "unreadable frame header",
            ),
            (
                format!("{LINE_TAG}2 {}\n{{}}", 1u64 << 40).into_bytes(),
                "each at most",
            ),
            (cut, "unreadable request frame"),
            // A payload in a shared region this child was not given.
            (
                {
                    let json = r#"{"run_batch":[]}"#;
                    format!("{LINE_TAG}{} 8 shared\n{json}", json.len()).into_bytes()
                },
                "given no region",
            ),
        ] {
            let mut out = Vec::new();
            serve(input.as_slice(), &mut out, None).unwrap();
            let got = answers(&out);
            assert_eq!(got.len(), 1, "{got:?}");
            assert!(invalid(&got[0], why), "{why}: {got:?}");
        }
    }
}
