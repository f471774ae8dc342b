//! `dsxor kernels` / `dsxor inspect`.

use super::*;

pub(crate) fn cmd_kernels(target: Option<&str>, json: bool) -> Outcome {
    use dsxor::codeobj::{describe::describe, embedded, CodeObject};
    if json {
        json_mode("dsxor-kernels/1");
    }
    let objects: Vec<_> = embedded()
        .iter()
        .filter(|o| target.is_none_or(|t| o.target == t))
        .collect();
    if objects.is_empty() {
        return Err(environment(anyhow::anyhow!(
            "no embedded code object for target {}",
            target.unwrap_or("(any)")
        )));
    }
    use std::io::Write;
    // Write errors (a closed pipe under `| head`) end the listing quietly.
    let mut so = std::io::stdout().lock();
    let mut listed = Vec::new();
    for o in objects {
        // An embedded object that does not parse is a broken build, not bad input.
        let co = CodeObject::parse(o.bytes).map_err(|e| {
            environment(anyhow::Error::new(e).context(format!("embedded {}", o.file_name)))
        })?;
        if json {
            let mut v = dsxor::codeobj::describe::describe_value(&co, false);
            v["target"] = o.target.into();
            v["wave"] = o.wave.lanes().into();
            v["file_name"] = o.file_name.into();
            v["bytes"] = o.bytes.len().into();
            v["origin"] = o.origin.name().into();
            v["compiler"] = o.compiler.into();
            listed.push(v);
            continue;
        }
        let _ = writeln!(
            so,
            "{} wave{}  {}  {} bytes  from {} ({})",
            o.target,
            o.wave.lanes(),
            o.file_name,
            o.bytes.len(),
            o.origin.name(),
            o.compiler
        );
        let _ = write!(so, "{}", describe(&co, false).map_err(environment)?);
    }
    drop(so);
    if json {
        print_json(
            "listed",
            dsxor::exit::PASS,
            serde_json::json!({ "objects": listed }),
        );
    }
    Ok(dsxor::exit::PASS)
}

pub(crate) fn cmd_inspect(file: &std::path::Path, target: Option<&str>, json: bool) -> Outcome {
    use dsxor::codeobj::{describe::describe, CodeObject, CodeObjectError, TargetId};
    if json {
        json_mode("dsxor-inspect/1");
    }
    let data = dsxor::codeobj::read_file(file).map_err(bad_input)?;
    let in_file = |e: CodeObjectError| {
        bad_input(CodeObjectError::InFile {
            path: file.to_path_buf(),
            error: Box::new(e),
        })
    };
    let co = match target {
        Some(t) => {
            let t = TargetId::parse(t).map_err(bad_input)?;
            CodeObject::parse_for_target(&data, &t)
        }
        None => CodeObject::parse(&data),
    }
    .map_err(in_file)?;
    if json {
        let mut v = dsxor::codeobj::describe::describe_value(&co, true);
        v["file"] = file.display().to_string().into();
        print_json("inspected", dsxor::exit::PASS, v);
        return Ok(dsxor::exit::PASS);
    }
    use std::io::Write;
    let text = describe(&co, true).map_err(in_file)?;
    let mut so = std::io::stdout().lock();
    let _ = writeln!(so, "{}", file.display());
    let _ = write!(so, "{text}");
    Ok(dsxor::exit::PASS)
}
