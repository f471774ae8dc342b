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
    use std::io::{BufRead, Read, Write};
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
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    for n in 0usize.. {
        // Bounded like every other line dsxor reads (`json::MAX_LINE_BYTES`,
        // 1 MiB; an instruction is under 200 bytes): `lines()` would grow
        // one unterminated line without limit.
        let limit = dsxor::json::MAX_LINE_BYTES;
        buf.clear();
        let read = (&mut input)
            .take(limit + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| bad_input(anyhow::anyhow!("reading standard input: {e}")))?;
        if read == 0 {
            break;
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        } else if buf.len() as u64 > limit {
            return Err(bad_input(anyhow::anyhow!(
                "standard input line {} is over the {} MiB limit for one line (dsxor::json::MAX_LINE_BYTES)",
                n + 1,
                limit >> 20
            )));
        }
        // A binary line is refused like any other bad line, and the lines
        // after it still answered.
        let line = match std::str::from_utf8(&buf) {
            Ok(line) => line,
            Err(e) => {
                items += 1;
                refused += 1;
                eprintln!("dsxor: line {}: not UTF-8 text: {e}", n + 1);
                writeln!(out, "; refused: not UTF-8 text ({e})")
                    .map_err(|e| environment(anyhow::anyhow!("writing standard output: {e}")))?;
                continue;
            }
        };
        let trimmed = line.trim();
        let reply = if trimmed.is_empty()
            || trimmed.starts_with(';')
            || trimmed.starts_with("//")
            || trimmed.starts_with('#')
        {
            String::new()
        } else {
            items += 1;
            match answer(target, line) {
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
