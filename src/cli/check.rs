//! `dsxor check`.

use super::*;

pub(crate) fn check_file(
    file: &std::path::Path,
    oor: &str,
    lds_granule: u32,
    json: bool,
) -> Outcome {
    use dsxor::model::{OutOfRangeReturn, Policy};
    let out_of_range_return = OutOfRangeReturn::parse(oor).ok_or_else(|| {
        bad_input(anyhow::anyhow!(
            "--out-of-range-return {oor:?}: expected zero, vdst-unchanged or any"
        ))
    })?;
    let policy = Policy {
        lds_granule,
        out_of_range_return,
    };
    policy
        .validate()
        .map_err(|e| bad_input(anyhow::anyhow!("--lds-granule: {e}")))?;
    let obs = dsxor::check::file::ObservationFile::read(file).map_err(bad_input)?;
    let verdict = obs.judge(&policy).map_err(bad_input)?;
    if json {
        let text = serde_json::to_string_pretty(&verdict).map_err(bad_input)?;
        outln!("{text}");
    } else {
        outln!("{}: {}", file.display(), verdict.explain());
    }
    Ok(if verdict.passed() {
        dsxor::exit::PASS
    } else {
        dsxor::exit::FAIL
    })
}
