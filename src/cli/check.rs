//! `dsxor check`.

use super::*;

pub(crate) fn check_file(
    file: &std::path::Path,
    oor: OutOfRangeArg,
    lds_granule: u32,
    json: bool,
) -> Outcome {
    let policy = dsxor::model::Policy {
        lds_granule,
        out_of_range_return: oor.into(),
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
