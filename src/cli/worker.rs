//! `dsxor worker` (hidden): the child side of `suite::worker`. Started by a
//! `dsxor run` with HIP_VISIBLE_DEVICES naming one device; runs the cases it
//! is sent on stdin, answers on stdout.

use super::*;

pub(crate) fn cmd_worker() -> Outcome {
    dsxor::suite::worker::die_with_parent();
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let regions = dsxor::suite::worker::Regions::inherited()
        .map_err(|e| environment(anyhow::anyhow!("worker: shared regions: {e}")))?;
    dsxor::suite::worker::serve(stdin.lock(), stdout.lock(), regions)
        .map_err(|e| environment(anyhow::anyhow!("worker: {e}")))?;
    Ok(dsxor::exit::PASS)
}
