//! `dsxor completions SHELL` and `dsxor man`: generated from the clap
//! definition itself (clap_complete, clap_mangen), so they cannot drift
//! from the flags.

use super::*;

pub(crate) fn completions(shell: clap_complete::Shell, mut cmd: clap::Command) -> Outcome {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "dsxor", &mut script);
    write_stdout(&script)
}

pub(crate) fn man(cmd: clap::Command, sub: Option<&str>) -> Outcome {
    let cmd = match sub {
        None => cmd,
        Some(name) => {
            let known: Vec<String> = cmd
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let found = cmd.find_subcommand(name).cloned().ok_or_else(|| {
                bad_input(anyhow::anyhow!(
                    "no command `{name}`; commands: {}",
                    known.join(", ")
                ))
            })?;
            // dsxor-run(1), as git and cargo name their command pages.
            let page_name = format!("dsxor-{}", found.get_name());
            found.name(page_name).version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut page)
        .map_err(|e| environment(anyhow::anyhow!("rendering the man page: {e}")))?;
    write_stdout(&page)
}

/// Write everything or fail with exit 3: a truncated script or page is
/// worse than none (unlike the display lines of `outln!`).
fn write_stdout(bytes: &[u8]) -> Outcome {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| environment(anyhow::anyhow!("writing to standard output: {e}")))?;
    Ok(dsxor::exit::PASS)
}
