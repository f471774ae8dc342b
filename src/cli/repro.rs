//! `dsxor repro`.

use super::*;

#[derive(clap::Args, Debug)]
pub(crate) struct ReproArgs {
    /// A dsxor-repro/1 file.
    pub(crate) file: std::path::PathBuf,
    #[command(flatten)]
    pub(crate) dev: DeviceArgs,
    /// Write the repro's recorded observation (one workgroup) as a
    /// dsxor-observation/1 file here and exit, running nothing.
    #[arg(long)]
    pub(crate) export: Option<std::path::PathBuf>,
    /// Workgroup to export.
    #[arg(long, default_value_t = 0)]
    pub(crate) group: u32,
}

pub(crate) fn cmd_repro(args: ReproArgs) -> Outcome {
    use dsxor::backend::conformance::DeviceOutcome;
    let repro = dsxor::suite::repro::Repro::read(&args.file).map_err(bad_input)?;
    outln!(
        "repro {}: {} (seed {}, case {}/{} wave{} #{}), recorded on {} ({}): {}",
        args.file.display(),
        repro.failure.kind,
        repro.seed,
        repro.case_id.pattern,
        repro.variant,
        repro.case_id.wave.lanes(),
        repro.case_id.ordinal,
        repro.device.name,
        repro.device.target_id,
        repro.failure.summary
    );
    if let Some(path) = &args.export {
        let file = repro.to_observation(args.group).map_err(bad_input)?;
        let mut text = file.to_json();
        text.push('\n');
        // A bad path is the user's (2); a write failing on a good one (a
        // full disk) is the machine's (3).
        dsxor::report::results::check_writable(None, Some(path)).map_err(bad_input)?;
        dsxor::report::results::write_text_atomic(path, &text).map_err(unwritten)?;
        outln!(
            "exported group {} as dsxor-observation/1: {}",
            args.group,
            path.display()
        );
        return Ok(dsxor::exit::PASS);
    }
    let policy = policy_of(&args.dev)?;
    let req = device_request(&args.dev, vec![repro.case.geometry.wave_size])?;
    let mut opened = open_device(&req)?;
    let judge = dsxor::suite::judge::ModelJudge::new(policy);
    let replayed =
        dsxor::suite::run::replay(opened.device.as_mut(), &judge, &repro).map_err(|e| match e {
            dsxor::suite::run::ReplayError::Backend(dsxor::backend::BackendError::Invalid(m)) => {
                bad_input(anyhow::anyhow!(m))
            }
            dsxor::suite::run::ReplayError::Backend(
                b @ dsxor::backend::BackendError::Hazard(_),
            ) => bad_input(b),
            dsxor::suite::run::ReplayError::Backend(b) => environment(b),
            dsxor::suite::run::ReplayError::Judge(j) => bad_input(j),
        })?;
    if let Some(k) = &replayed.kernel {
        if k.code_object_sha256 != repro.kernel.code_object_sha256 {
            outln!(
                "note: kernel code object differs from the recorded one ({} vs {})",
                k.code_object_sha256,
                repro.kernel.code_object_sha256
            );
        }
    }
    let j = &replayed.judgement;
    let what = match &replayed.outcome {
        DeviceOutcome::Completed { .. } => "completed".to_string(),
        DeviceOutcome::Fault { message } => format!("faulted: {message}"),
        DeviceOutcome::Timeout { message } => format!("timed out: {message}"),
    };
    outln!("replayed on {}: the device {what}", opened.selection.reason);
    // A failure found under an injected fault, replayed without it, passes
    // for a reason that says nothing about the device: say so.
    let applied = req.fault.as_ref().map(|f| f.to_string());
    let missing_fault = match (&repro.fault, &applied) {
        (Some(recorded), Some(now)) if recorded == now => None,
        (Some(recorded), _) => Some(recorded.clone()),
        (None, _) => None,
    };
    if let Some(f) = &missing_fault {
        outln!(
            "note: recorded under --fault {f}, which this replay did not inject{};              add --backend emu --fault {f} to replay it as recorded",
            applied
                .as_ref()
                .map(|a| format!(" (it injected {a})"))
                .unwrap_or_default()
        );
    }
    if j.passed {
        match &missing_fault {
            Some(f) => outln!(
                "PASSES now, without the recorded fault {f}: {}",
                j.explanation
            ),
            None => outln!("PASSES now: {}", j.explanation),
        }
        Ok(dsxor::exit::PASS)
    } else {
        let same = j.kind.as_deref() == Some(repro.failure.kind.as_str());
        outln!(
            "STILL FAILS ({}{}): {}",
            j.kind.as_deref().unwrap_or("unknown"),
            if same {
                ", as recorded"
            } else {
                ", differently from the record"
            },
            j.explanation
        );
        Ok(dsxor::exit::FAIL)
    }
}
