//! `dsxor asm` / `dsxor disasm` as commands: arguments, stdin batches, line
//! alignment, exit codes (DESIGN.md: 2 = bad input). Expected text is LLVM's
//! own check lines (llvm/test/MC/AMDGPU/gfx11_asm_ds.s), padding included.

mod common;

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
