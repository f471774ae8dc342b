//! `dsxor asm` / `dsxor disasm`.

use super::*;

// ---- isa handlers ----
/// `asm` / `disasm`: one item from the command line, or one per line from
/// stdin with one answer line per input line. Blank and comment-only lines
/// are echoed as blank lines, so output line N always answers input line N.
pub(crate) fn isa_lines(
    target: &str,
    item: &[String],
    answer: impl Fn(dsxor::isa::Target, &str) -> Result<String, dsxor::isa::IsaError>,
) -> Outcome {
    use std::io::{BufRead, Write};
    let target = dsxor::isa::target(target).map_err(bad_input)?;
    if !item.is_empty() {
        let line = item.join(" ");
        let text = answer(target, &line)
            .map_err(|e| bad_input(anyhow::anyhow!("`{}`: {e}", line.trim())))?;
        writeln!(std::io::stdout(), "{text}")
            .map_err(|e| environment(anyhow::anyhow!("writing standard output: {e}")))?;
        return Ok(dsxor::exit::PASS);
    }
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut items, mut refused) = (0usize, 0usize);
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.map_err(|e| bad_input(anyhow::anyhow!("reading standard input: {e}")))?;
        let trimmed = line.trim();
        let reply = if trimmed.is_empty()
            || trimmed.starts_with(';')
            || trimmed.starts_with("//")
            || trimmed.starts_with('#')
        {
            String::new()
        } else {
            items += 1;
            match answer(target, &line) {
                Ok(text) => text,
                Err(e) => {
                    refused += 1;
                    eprintln!("dsxor: line {}: `{trimmed}`: {e}", n + 1);
                    format!("; refused: {e}")
                }
            }
        };
        writeln!(out, "{reply}")
            .map_err(|e| environment(anyhow::anyhow!("writing standard output: {e}")))?;
    }
    out.flush()
        .map_err(|e| environment(anyhow::anyhow!("writing standard output: {e}")))?;
    if refused > 0 {
        return Err(bad_input(anyhow::anyhow!(
            "{refused} of {items} lines refused for {target} (each named above)"
        )));
    }
    Ok(dsxor::exit::PASS)
}
