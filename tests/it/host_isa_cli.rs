//! `dsxor asm` / `dsxor disasm` as commands: arguments, stdin batches, line
//! alignment, exit codes (docs/src/reference/exit-codes.md: 2 = bad input). Expected text is LLVM's
//! own check lines (llvm/test/MC/AMDGPU/gfx11_asm_ds.s), padding included.

use crate::common;

use common::{dsxor, dsxor_stdin};

const GFX11_LINE: &str =
    "ds_xor_rtn_b64 v[5:6], v1, v[2:3]       ; encoding: [0x00,0x00,0xac,0xd9,0x01,0x02,0x00,0x05]";
const GFX11_GDS_LINE: &str = "ds_xor_rtn_b64 v[254:255], v255, v[254:255] offset:4 gds ; encoding: [0x04,0x00,0xae,0xd9,0xff,0xfe,0x00,0xfe]";

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn one_instruction_from_the_command_line() {
    // Quoted as one argument, or split by the shell into several.
    for args in [
        vec![
            "asm",
            "--target",
            "gfx1100",
            "ds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:0",
        ],
        vec![
            "asm",
            "--target",
            "gfx1100",
            "ds_xor_rtn_b64",
            "v[5:6],",
            "v1,",
            "v[2:3]",
        ],
    ] {
        let o = dsxor(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), format!("{GFX11_LINE}\n"));
    }
    let o = dsxor(&[
        "asm",
        "--target",
        "gfx1103",
        "ds_xor_rtn_b64 v[254:255], v255, v[254:255] offset:4 gds",
    ]);
    assert_eq!(stdout(&o), format!("{GFX11_GDS_LINE}\n"));
    let o = dsxor(&[
        "disasm",
        "--target",
        "gfx1100",
        "[0x04,0x00,0xae,0xd9,0xff,0xfe,0x00,0xfe]",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "ds_xor_rtn_b64 v[254:255], v255, v[254:255] offset:4 gds\n"
    );
}

#[test]
fn refusals_exit_2_and_say_why() {
    let o = dsxor(&["asm", "--target", "gfx1200", "ds_xor_b32 v1, v2 gds"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("rule no-gds"), "{}", stderr(&o));

    let o = dsxor(&["asm", "--target", "gfx1199", "ds_xor_b32 v1, v2"]);
    assert_eq!(o.status.code(), Some(2));
    for t in ["gfx900", "gfx90a", "gfx1100", "gfx1151", "gfx1250"] {
        assert!(
            stderr(&o).contains(t),
            "the error lists {t}: {}",
            stderr(&o)
        );
    }

    let o = dsxor(&["disasm", "--target", "gfx1100", "[0x00,0x00,0xac,0xd9]"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("8 bytes"), "{}", stderr(&o));
}

#[test]
fn stdin_batches_answer_every_line_in_place() {
    let input = "ds_xor_rtn_b64 v[5:6], v1, v[2:3]\n\
                 \n\
                 ds_xor_b32 v1, v2 offset:70000\n\
                 ; a comment line\n\
                 ds_xor_rtn_b64 v[254:255], v255, v[254:255] offset:4 gds\n";
    let o = dsxor_stdin(&["asm", "--target", "gfx1100"], input);
    assert_eq!(o.status.code(), Some(2), "one line is refused");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[0], GFX11_LINE);
    assert_eq!(lines[1], "");
    assert!(
        lines[2].starts_with("; refused: ") && lines[2].contains("rule offset-range"),
        "{}",
        lines[2]
    );
    assert_eq!(lines[3], "");
    assert_eq!(lines[4], GFX11_GDS_LINE);
    assert!(stderr(&o).contains("line 3:"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 of 3 lines refused"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn thousands_in_one_call() {
    // 5000 copies of one LLVM check line's source, then its bytes back.
    let input = "ds_xor_rtn_b64 v[5:6], v1, v[2:3]\n".repeat(5000);
    let o = dsxor_stdin(&["asm", "--target", "gfx1100"], &input);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 5000);
    assert!(out.lines().all(|l| l == GFX11_LINE));
    let bytes = "[0x00,0x00,0xac,0xd9,0x01,0x02,0x00,0x05]\n".repeat(5000);
    let o = dsxor_stdin(&["disasm", "--target", "gfx1100"], &bytes);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 5000);
    assert!(out
        .lines()
        .all(|l| l == "ds_xor_rtn_b64 v[5:6], v1, v[2:3]"));
}

/// Seeded garbage through `asm` and `disasm` on every family: every line
/// gets one answer line, the exit code is 0 or 2, and nothing panics
/// (huge register numbers, multi-byte characters, stray brackets, numbers
/// of every radix and width).
#[test]
fn garbage_lines_never_panic() {
    use rand::{Rng, SeedableRng};
    let pieces = [
        "ds_xor_rtn_b64",
        "ds_xor_b32",
        "ds_swizzle_b32",
        "ds_store_2addr_b32",
        "ds_gws_init",
        "ds_nop",
        "v",
        "a",
        "s",
        "v[",
        "a[",
        "[",
        "]",
        ":",
        ",",
        " ",
        "\t",
        "offset",
        "offset0",
        "offset1",
        "gds",
        "swizzle(",
        "QUAD_PERM",
        "BITMASK_PERM",
        "\"",
        "FFT",
        "ROTATE",
        ")",
        "0x",
        "0b",
        "0",
        "-",
        "4294967295",
        "4294967296",
        "18446744073709551616",
        "255",
        "256",
        "65535",
        "65536",
        "é",
        "\u{3000}",
        "\u{1F600}",
        ";",
        "//",
        "\u{0}",
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x6a72_6261_6765);
    let mut asm_lines = Vec::new();
    let mut byte_lines = Vec::new();
    for _ in 0..3000 {
        let n = rng.random_range(1..14);
        let line: String = (0..n)
            .map(|_| pieces[rng.random_range(0..pieces.len())])
            .collect();
        asm_lines.push(line);
        // Well-formed shapes with extreme numbers (v[0:4294967295] once
        // overflowed the width arithmetic).
        let num = |rng: &mut rand_chacha::ChaCha8Rng| -> String {
            let edges = [
                "0",
                "1",
                "255",
                "256",
                "4294967295",
                "4294967296",
                "99999999999",
            ];
            if rng.random_bool(0.5) {
                edges[rng.random_range(0..edges.len())].to_owned()
            } else {
                rng.random::<u32>().to_string()
            }
        };
        let mut line = String::from(pieces[rng.random_range(0..6)]);
        for i in 0..rng.random_range(1..4) {
            let sep = if i == 0 { " " } else { ", " };
            let kind = ["v", "a"][rng.random_range(0..2)];
            let reg = if rng.random_bool(0.5) {
                format!("{kind}{}", num(&mut rng))
            } else {
                format!("{kind}[{}:{}]", num(&mut rng), num(&mut rng))
            };
            line.push_str(sep);
            line.push_str(&reg);
        }
        if rng.random_bool(0.5) {
            line.push_str(&format!(" offset:{}", num(&mut rng)));
        }
        asm_lines.push(line);
        let n = rng.random_range(0..12);
        let bytes: Vec<String> = (0..n)
            .map(|_| match rng.random_range(0..6) {
                0 => format!("0x{:x}", rng.random::<u64>()),
                1 => rng.random::<u8>().to_string(),
                2 => pieces[rng.random_range(0..pieces.len())].to_owned(),
                _ => format!("0x{:02x}", rng.random::<u8>()),
            })
            .collect();
        let sep = if rng.random_bool(0.5) { "," } else { " " };
        let body = bytes.join(sep);
        byte_lines.push(if rng.random_bool(0.7) {
            format!("[{body}]")
        } else {
            body
        });
    }
    for target in [
        "gfx900", "gfx90a", "gfx950", "gfx1030", "gfx1100", "gfx1250",
    ] {
        for (cmd, lines) in [("asm", &asm_lines), ("disasm", &byte_lines)] {
            let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let o = dsxor_stdin(&[cmd, "--target", target], &input);
            let err = stderr(&o);
            assert!(
                matches!(o.status.code(), Some(0 | 2)),
                "{cmd} {target}: exit {:?}: {err}",
                o.status.code()
            );
            assert!(!err.contains("panicked"), "{cmd} {target}: {err}");
            // `lines()` splits on \n only (the \0 piece stays in its line).
            assert_eq!(
                stdout(&o).split_terminator('\n').count(),
                lines.len(),
                "{cmd} {target}: one answer per line"
            );
        }
    }
}

/// A line over `json::MAX_LINE_BYTES` is refused (exit 2) after the lines
/// before it were answered, instead of being read into memory whole; a
/// last line without its newline is still an instruction.
#[test]
fn an_overlong_stdin_line_is_refused_and_an_unterminated_last_line_answered() {
    use std::io::Write;
    let o = dsxor_stdin(
        &["asm", "--target", "gfx1100"],
        "ds_xor_rtn_b64 v[5:6], v1, v[2:3]",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), [GFX11_LINE]);

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dsxor"))
        .args(["asm", "--target", "gfx1100"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // dsxor stops reading at the limit: the rest may meet a closed pipe.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(b"ds_xor_rtn_b64 v[5:6], v1, v[2:3]\n");
        let _ = input.write_all(&vec![b'v'; (dsxor::json::MAX_LINE_BYTES + 4096) as usize]);
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), [GFX11_LINE]);
    assert!(
        stderr(&o).contains("line 2 is over the 1 MiB limit"),
        "{}",
        stderr(&o)
    );
}
