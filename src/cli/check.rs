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
        // For a machine: a format tag, the verdict as a word, and addresses
        // as hex strings like the observation file's own.
        let mut value = serde_json::to_value(&verdict).map_err(bad_input)?;
        if let Some(findings) = value.get_mut("findings").and_then(|f| f.as_array_mut()) {
            for f in findings {
                if let Some(a) = f.get("address").and_then(|a| a.as_u64()) {
                    f["address"] = format!("{a:#x}").into();
                }
            }
        }
        let mut out = serde_json::Map::new();
        out.insert("format".into(), "dsxor-verdict/1".into());
        out.insert(
            "verdict".into(),
            if verdict.passed() {
                "consistent"
            } else {
                "inconsistent"
            }
            .into(),
        );
        if let serde_json::Value::Object(fields) = value {
            out.extend(fields);
        }
        let text = serde_json::to_string_pretty(&out).map_err(bad_input)?;
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
