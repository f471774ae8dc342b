//! Differential test of `dsxor asm` / `dsxor disasm` against llvm-mc (LLVM 22;
//! `DSXOR_LLVM_MC` overrides the path). External truth only: dsxor's output
//! is compared with llvm-mc's, never with itself.
//!
//! For every known target, in one batched llvm-mc call and one batched dsxor
//! call per step:
//! 1. ≥1000 random XOR-family instructions (random registers, offsets, gds
//!    and AGPR forms where legal, ~15% mutated into an invalid form): the
//!    verdict (accepted / refused) must agree line by line, and accepted
//!    lines must print identically (text and encoding).
//! 2. The encodings from step 1 disassembled by both: identical text.
//! 3. Every invalid form of the issue, for every target where it is invalid:
//!    refused by both.
//! 4. Every opcode of the target's table, with random operands, disassembled
//!    by both: identical text (the table is LLVM's).
//! 5. Random DS-shaped words (stray fields, gds/acc/bit 16, odd and
//!    overflowing tuples): where dsxor prints, it prints what llvm-mc prints;
//!    where dsxor refuses, llvm-mc also refuses or prints text that does not
//!    reassemble to the word (round-trip policy, src/isa/text.rs).
//! 6. All 65536 `ds_swizzle_b32` offsets on gfx1100 (one family's printer
//!    suffices: every family here shares LLVM's gfx9+ swizzle printer; the
//!    others get 2000 random ones).
//! 7. The family rules (gds, AGPRs, even tuples, tuples past v255) probed
//!    directly, and the syntax-subset claim: 24000 mangled lines, each one
//!    dsxor accepts must come out of llvm-mc identically.
//!
//! Seeded ChaCha8, so a failure reproduces.

use crate::common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use dsxor::isa::{self, DsInst, Family, Field, GdsForm, OffsetForm, Target};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What llvm-mc said about each input line: `Some(output)` (`Some("")` for
/// a line it reads as blank or a comment) or `None` (refused).
///
/// Assembly input is interleaved with numbered markers (`s_mov_b32 s0, N`
/// after line N) so output maps to input lines even when a line prints
/// nothing. After some lexer errors ("invalid octal number") llvm-mc also
/// drops the next statement, so a sacrificial `s_nop 0` precedes each
/// marker; should a marker still go missing, the lines around it are asked
/// again, one llvm-mc call each.
fn llvm_mc(mc: &Path, target: &str, disassemble: bool, input: &[String]) -> Vec<Option<String>> {
    let (stdout, refused) = run_llvm_mc(mc, target, disassemble, input);
    if disassemble {
        let mut printed = stdout.into_iter();
        let answers: Vec<Option<String>> = (1..=input.len())
            .map(|n| {
                if refused.contains(&n) {
                    None
                } else {
                    printed.next()
                }
            })
            .collect();
        assert!(
            printed.next().is_none(),
            "llvm-mc printed more lines than it accepted"
        );
        return answers;
    }
    let mut answers: Vec<Option<Option<String>>> = vec![None; input.len()];
    let (mut last_mark, mut group) = (0usize, Vec::new());
    for l in stdout {
        let mark = l
            .strip_prefix("s_mov_b32 s0, ")
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| match v.strip_prefix("0x") {
                Some(h) => usize::from_str_radix(h, 16).ok(),
                None => v.parse().ok(),
            });
        match mark {
            Some(k) => {
                if k == last_mark + 1 {
                    assert!(group.len() <= 1, "line {k} gave {group:?}");
                    let answer = if refused.contains(&k) {
                        None
                    } else {
                        Some(group.first().cloned().unwrap_or_default())
                    };
                    if let Some(slot) = answers.get_mut(k - 1) {
                        *slot = Some(answer);
                    }
                }
                last_mark = k;
                group.clear();
            }
            None => group.push(l),
        }
    }
    answers
        .into_iter()
        .zip(input)
        .map(|(a, line)| {
            a.unwrap_or_else(|| {
                let (out, refused) = run_llvm_mc(mc, target, false, std::slice::from_ref(line));
                let out: Vec<String> = out
                    .into_iter()
                    .filter(|l| !l.starts_with("s_mov_b32 s0, 1"))
                    .collect();
                assert!(out.len() <= 1, "`{line}` gave {out:?}");
                (!refused.contains(&1)).then(|| out.into_iter().next().unwrap_or_default())
            })
        })
        .collect()
}

/// One llvm-mc run: its instruction lines (tab stripped) and the input
/// lines it refused (1-based).
fn run_llvm_mc(
    mc: &Path,
    target: &str,
    disassemble: bool,
    input: &[String],
) -> (Vec<String>, BTreeSet<usize>) {
    let mut cmd = Command::new(mc);
    cmd.args(["-arch=amdgcn", &format!("-mcpu={target}"), "-show-encoding"]);
    if disassemble {
        cmd.arg("--disassemble");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc starts");
    let mut stdin = child.stdin.take().expect("piped");
    let text: String = if disassemble {
        input.join("\n") + "\n"
    } else {
        let mut t = String::new();
        for (i, l) in input.iter().enumerate() {
            // The s_nop is sacrificial: after some lexer errors llvm-mc
            // drops the next statement.
            t.push_str(&format!("{l}\ns_nop 0\ns_mov_b32 s0, {}\n", i + 1));
        }
        t
    };
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc runs");
    writer.join().expect("writer").expect("stdin written");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Diagnostics name the line: "<stdin>:N:C: error: ..." (assembler) or
    // "<stdin>:N:C: warning: invalid instruction encoding" (disassembler).
    let refused: BTreeSet<usize> = stderr
        .lines()
        .filter(|l| l.contains(": error:") || l.contains("invalid instruction encoding"))
        .filter_map(|l| l.strip_prefix("<stdin>:")?.split(':').next()?.parse().ok())
        .map(|n: usize| if disassemble { n } else { n.div_ceil(3) })
        .collect();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with('\t') && !l.trim_start().starts_with('.'))
        .map(|l| l.trim_start_matches('\t').to_owned())
        .filter(|l| disassemble || !l.starts_with("s_nop 0 "))
        .collect();
    (printed, refused)
}

/// What dsxor said about each input line (stdin mode), and its exit code.
fn dsxor(args: &[&str], input: &[String]) -> (Vec<Option<String>>, Option<i32>) {
    let out = common::dsxor_stdin(args, &(input.join("\n") + "\n"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Option<String>> = stdout
        .lines()
        .map(|l| (!l.starts_with("; refused:")).then(|| l.to_owned()))
        .collect();
    assert_eq!(
        lines.len(),
        input.len(),
        "dsxor answers one line per input line"
    );
    (lines, out.status.code())
}

fn offset_text(rng: &mut ChaCha8Rng, offset: u32) -> String {
    match rng.random_range(0..10) {
        0 => format!("offset:{offset:#x}"),
        1 => format!("offset : {offset}"),
        _ => format!("offset:{offset}"),
    }
}

/// One random XOR-family line for `t` and whether it was made invalid.
fn xor_line(rng: &mut ChaCha8Rng, t: Target) -> (String, bool) {
    let f = t.family;
    let mnemonic = isa::XOR_FAMILY[rng.random_range(0..4)];
    let wide = mnemonic.ends_with("b64");
    let rtn = mnemonic.contains("rtn");
    let dwords = if wide { 2 } else { 1 };
    let agpr = f.has_agprs() && rng.random_bool(0.3);
    let pick = |rng: &mut ChaCha8Rng| -> u32 {
        let hi = 256 - dwords;
        let r = rng.random_range(0..hi);
        if dwords == 2 && f.needs_even_tuples() {
            r & !1
        } else {
            r
        }
    };
    let mut vdst = pick(rng);
    let addr: u32 = rng.random_range(0..256);
    let mut data = pick(rng);
    let mut offset: u32 = match rng.random_range(0..4) {
        0 => 0,
        1 => 65535,
        _ => rng.random_range(0..65536),
    };
    let mut gds = f.has_gds() && rng.random_bool(0.3);
    let (mut vdst_agpr, mut addr_agpr, mut data_agpr) = (agpr, false, agpr);
    let mut overflow = false;
    let mut invalid = false;
    if rng.random_bool(0.15) {
        invalid = true;
        match rng.random_range(0..7) {
            0 => offset = rng.random_range(65536..200_000),
            1 if !f.has_gds() => gds = true,
            2 if f.needs_even_tuples() && wide => data |= 1,
            3 if !f.has_agprs() => {
                vdst_agpr = rtn;
                data_agpr = true;
            }
            4 if f.has_agprs() && rtn => {
                vdst_agpr = !data_agpr;
            }
            5 => overflow = true,
            6 => addr_agpr = true,
            _ => invalid = false,
        }
    }
    let reg = |a: bool, lo: u32, w: u32| {
        let p = if a { 'a' } else { 'v' };
        if w == 1 {
            format!("{p}{lo}")
        } else {
            format!("{p}[{lo}:{}]", lo + w - 1)
        }
    };
    if overflow {
        vdst = if wide {
            255
        } else {
            rng.random_range(256..300)
        };
        if !rtn {
            data = vdst;
        }
    }
    let mut ops = Vec::new();
    if rtn {
        ops.push(reg(vdst_agpr, vdst, dwords));
    }
    ops.push(reg(addr_agpr, addr, 1));
    ops.push(reg(
        data_agpr,
        if overflow && !rtn { vdst } else { data },
        dwords,
    ));
    let mut line = format!("{mnemonic} {}", ops.join(", "));
    if offset != 0 || rng.random_bool(0.1) {
        line.push(' ');
        line.push_str(&offset_text(rng, offset));
    }
    if gds {
        line.push_str(" gds");
    }
    (line, invalid)
}

fn byte_list(word: u64) -> String {
    isa::format_bytes(word)
}

/// A random, valid-by-the-table instance of `info` on `f`.
fn table_word(rng: &mut ChaCha8Rng, f: Family, info: &isa::OpInfo) -> u64 {
    let mut inst = DsInst {
        op: info.op,
        ..DsInst::default()
    };
    for o in info.operands {
        let hi = 256 - u32::from(o.dwords);
        let mut r = rng.random_range(0..=hi);
        if o.dwords >= 2 && f.needs_even_tuples() {
            r &= !1;
        }
        inst.set_field(o.field, u8::try_from(r).unwrap_or(0));
    }
    inst.gds = match info.gds {
        GdsForm::Optional => rng.random_bool(0.3),
        GdsForm::Required => true,
        GdsForm::NotAllowed | GdsForm::Ignored => false,
    };
    inst.acc = matches!(info.acc, isa::AccForm::Fields(_)) && rng.random_bool(0.4);
    let off: u16 = if rng.random_bool(0.2) {
        0
    } else {
        rng.random()
    };
    inst.set_offset(off);
    if info.offset == OffsetForm::Pair && rng.random_bool(0.2) {
        inst.offset0 = 0;
    }
    inst.encode(f).expect("VI acc or no acc")
}

/// A random DS-shaped word near the table: mostly right, sometimes not.
fn fuzz_word(rng: &mut ChaCha8Rng, f: Family) -> u64 {
    let ops = f.ops();
    let mut inst = if rng.random_bool(0.9) {
        let info = &ops[rng.random_range(0..ops.len())];
        let mut i = DsInst::decode(f, table_word(rng, f, info)).expect("decodes");
        for field in [Field::Addr, Field::Data0, Field::Data1, Field::Vdst] {
            if info.operand(field).is_some() {
                if rng.random_bool(0.3) {
                    i.set_field(field, rng.random());
                }
            } else if rng.random_bool(0.05) {
                i.set_field(field, rng.random());
            }
        }
        i
    } else {
        DsInst {
            op: rng.random(),
            ..DsInst::default()
        }
    };
    if rng.random_bool(0.1) {
        inst.gds = !inst.gds;
    }
    if f.layout() == isa::Layout::Vi && rng.random_bool(0.1) {
        inst.acc = !inst.acc;
    }
    let mut w = inst.encode(f).expect("encodes");
    if f.layout() == isa::Layout::Gfx10 && rng.random_bool(0.05) {
        w |= 1 << 16;
    }
    w
}

/// llvm-mc's text of a line it printed, without the encoding comment.
fn text_of(line: &str) -> String {
    line.split(" ;").next().unwrap_or("").trim_end().to_owned()
}

/// Disassemble `words` with both. Where both print, the text must be the
/// same; dsxor may refuse only words llvm-mc also refuses or prints as text
/// its own assembler cannot turn back into the word (round-trip policy).
/// Returns (printed by both, refused by both, round-trip refusals) and
/// llvm-mc's text for each word dsxor printed.
fn compare_disasm(
    mc: &Path,
    name: &str,
    words: &[String],
    what: &str,
) -> ([usize; 3], Vec<String>) {
    let theirs = llvm_mc(mc, name, true, words);
    let (ours, _) = dsxor(&["disasm", "--target", name], words);
    let mut counts = [0usize; 3];
    let mut texts = Vec::new();
    let mut printed_but_refused = Vec::new();
    for ((w, a), o) in words.iter().zip(&theirs).zip(&ours) {
        match (a, o) {
            (Some(a), Some(o)) => {
                assert_eq!(&text_of(a), o, "{name}: {what} {w}");
                texts.push(o.clone());
                counts[0] += 1;
            }
            (None, None) => counts[1] += 1,
            (None, Some(o)) => panic!("{name}: {what}: llvm-mc refuses {w}, dsxor prints `{o}`"),
            (Some(a), None) => printed_but_refused.push((w.clone(), text_of(a))),
        }
    }
    let again: Vec<String> = printed_but_refused.iter().map(|(_, t)| t.clone()).collect();
    let again = llvm_mc(mc, name, false, &again);
    for ((w, text), re) in printed_but_refused.iter().zip(&again) {
        if let Some(re) = re {
            let enc = re.split("; encoding: ").nth(1).unwrap_or("").trim();
            assert_ne!(
                enc, w,
                "{name}: {what}: dsxor refuses {w}; llvm-mc prints `{text}`, which round-trips"
            );
        }
    }
    counts[2] = printed_but_refused.len();
    (counts, texts)
}

/// Assemble `lines` with both: the same verdict and the same output on
/// every line. Returns (accepted, refused) and the accepted outputs.
fn compare_asm(mc: &Path, name: &str, lines: &[String], what: &str) -> ([usize; 2], Vec<String>) {
    let theirs = llvm_mc(mc, name, false, lines);
    let (ours, code) = dsxor(&["asm", "--target", name], lines);
    let mut accepted = Vec::new();
    for ((l, a), b) in lines.iter().zip(&theirs).zip(&ours) {
        assert_eq!(a, b, "{name}: {what} `{l}`: llvm-mc vs dsxor");
        if let Some(out) = a {
            accepted.push(out.clone());
        }
    }
    let refused = lines.len() - accepted.len();
    assert_eq!(
        code,
        Some(if refused > 0 { 2 } else { 0 }),
        "{name}: exit code"
    );
    ([accepted.len(), refused], accepted)
}

#[test]
fn dsxor_agrees_with_llvm_mc_on_every_target() {
    let Some(mc) = common::llvm_mc() else { return };
    // asm xor ok/refused, xor round trips, table words, table asm, fuzz
    // printed/refused/round-trip-refused, swizzle printed/round-trip-refused.
    let mut n = [0usize; 11];
    for (ti, t) in isa::TARGETS.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(0xd5_0000 + ti as u64);
        let (name, f) = (t.name, t.family);

        // 1. Random XOR-family instructions, encoded by both.
        let mut lines = Vec::new();
        let mut invalid = 0;
        while lines.len() < 1200 {
            let (l, bad) = xor_line(&mut rng, *t);
            invalid += usize::from(bad);
            lines.push(l);
        }
        let ([ok, refused], accepted) = compare_asm(&mc, name, &lines, "xor line");
        assert!(ok >= 1000, "{name}: {ok} valid instructions");
        assert!(invalid >= 50, "{name}: {invalid} invalid forms");
        n[0] += ok;
        n[1] += refused;

        // 2. The encodings, decoded back by both: all printed.
        let bytes: Vec<String> = accepted
            .iter()
            .map(|l| {
                l.split("; encoding: ")
                    .nth(1)
                    .expect("has an encoding")
                    .to_owned()
            })
            .collect();
        let (c, _) = compare_disasm(&mc, name, &bytes, "round trip");
        assert_eq!(c[0], bytes.len(), "{name}: every XOR encoding disassembles");
        n[2] += c[0];

        // 4. Every opcode of the table, random operands: disassembled by
        // both, then LLVM's text assembled by both.
        let mut words = Vec::new();
        for info in f.ops() {
            for _ in 0..8 {
                words.push(byte_list(table_word(&mut rng, f, info)));
            }
        }
        let (c, texts) = compare_disasm(&mc, name, &words, "table word");
        // Only swizzle offsets whose text drops bits may be refused.
        assert!(
            c[2] * 50 < words.len(),
            "{name}: {} round-trip refusals",
            c[2]
        );
        n[3] += c[0];
        let ([ok, refused], _) = compare_asm(&mc, name, &texts, "table text");
        assert_eq!(refused, 0, "{name}: LLVM's own table texts assemble");
        n[4] += ok;

        // 5. Fuzzed words.
        let words: Vec<String> = (0..2000)
            .map(|_| byte_list(fuzz_word(&mut rng, f)))
            .collect();
        let (c, _) = compare_disasm(&mc, name, &words, "fuzz word");
        n[5] += c[0];
        n[6] += c[1];
        n[7] += c[2];

        // 6. Swizzle offsets.
        let swz = isa::op_by_name(f, "ds_swizzle_b32").expect("every family has ds_swizzle_b32");
        let offsets: Vec<u16> = if name == "gfx1100" {
            (0..=u16::MAX).collect()
        } else {
            (0..2000).map(|_| rng.random()).collect()
        };
        let words: Vec<String> = offsets
            .iter()
            .map(|&off| {
                let mut i = DsInst {
                    op: swz.op,
                    addr: 2,
                    vdst: 8,
                    ..DsInst::default()
                };
                i.set_offset(off);
                byte_list(i.encode(f).expect("encodes"))
            })
            .collect();
        let (c, _) = compare_disasm(&mc, name, &words, "swizzle");
        assert_eq!(c[1], 0, "{name}: llvm-mc decodes every swizzle offset");
        n[8] += c[0];
        n[9] += c[2];
        n[10] += words.len();
    }
    eprintln!(
        "isa_llvm_mc: {} targets. asm XOR family: {} accepted + {} refused, identical; \
         their {} encodings disassembled identically. Table: {} random words of every opcode \
         printed identically, {} of LLVM's texts assembled identically. Fuzz: {} printed \
         identically, {} refused by both, {} refused by dsxor where llvm-mc's text does not \
         reassemble. Swizzle: {} of {} offsets printed identically, {} refused (lossy text).",
        isa::TARGETS.len(),
        n[0],
        n[1],
        n[2],
        n[3],
        n[4],
        n[5],
        n[6],
        n[7],
        n[8],
        n[10],
        n[9]
    );
}

/// Step 3: the invalid forms the issue lists, each on every target where it is
/// invalid: both refuse, and dsxor names the rule.
#[test]
fn every_invalid_form_is_refused_by_both() {
    let Some(mc) = common::llvm_mc() else { return };
    let mut checked = 0;
    for t in isa::TARGETS {
        let f = t.family;
        let mut cases: Vec<(String, &str)> = vec![
            (
                "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:65536".into(),
                "offset-range",
            ),
            ("ds_xor_b32 v1, v2 offset:1000000".into(), "offset-range"),
            ("ds_xor_rtn_b32 v256, v1, v2".into(), "register-range"),
            ("ds_xor_b32 v300, v2".into(), "register-range"),
            // gfx1250 tuples may end past v255, so there the odd start is the fault.
            (
                "ds_xor_rtn_b64 v[4:5], v1, v[255:256]".into(),
                if f.tuples_may_end_past_v255() {
                    "even-tuples"
                } else {
                    "register-range"
                },
            ),
            ("ds_xor_rtn_b32 a256, v1, a2".into(), "register-range"),
            ("ds_xor_rtn_b32 v5, a1, v2".into(), "addr-vgpr"),
        ];
        if !f.has_gds() {
            cases.push((
                "ds_xor_rtn_b64 v[4:5], v1, v[2:3] offset:4 gds".into(),
                "no-gds",
            ));
            cases.push(("ds_xor_b32 v1, v2 gds".into(), "no-gds"));
        }
        if f.needs_even_tuples() {
            cases.push(("ds_xor_rtn_b64 v[5:6], v1, v[2:3]".into(), "even-tuples"));
            cases.push(("ds_xor_b64 v1, v[3:4]".into(), "even-tuples"));
        }
        if f.has_agprs() {
            cases.push((
                "ds_xor_rtn_b64 a[4:5], v1, v[2:3]".into(),
                "mixed-agpr-vgpr",
            ));
            cases.push((
                "ds_xor_rtn_b64 v[4:5], v1, a[2:3]".into(),
                "mixed-agpr-vgpr",
            ));
            cases.push(("ds_xor_rtn_b32 a5, v1, v2".into(), "mixed-agpr-vgpr"));
            cases.push(("ds_xor_rtn_b64 a[5:6], v1, a[2:3]".into(), "even-tuples"));
        } else {
            cases.push(("ds_xor_rtn_b64 a[4:5], v1, a[2:3]".into(), "no-agprs"));
            cases.push(("ds_xor_b64 v1, a[2:3]".into(), "no-agprs"));
            cases.push(("ds_xor_b32 v1, a2".into(), "no-agprs"));
        }
        let lines: Vec<String> = cases.iter().map(|(l, _)| l.clone()).collect();
        let theirs = llvm_mc(&mc, t.name, false, &lines);
        let (ours, code) = dsxor(&["asm", "--target", t.name], &lines);
        for (((l, rule), a), o) in cases.iter().zip(&theirs).zip(&ours) {
            assert_eq!(a, &None, "{}: llvm-mc refuses `{l}`", t.name);
            assert_eq!(o, &None, "{}: dsxor refuses `{l}`", t.name);
            let e = isa::assemble_line(*t, l).expect_err("refused");
            assert_eq!(e.rule(), *rule, "{}: `{l}`: {e}", t.name);
            assert!(
                e.to_string().contains(rule),
                "the message names the rule: {e}"
            );
            checked += 1;
        }
        assert_eq!(code, Some(2), "{}: refusals exit 2", t.name);
    }
    eprintln!("isa_llvm_mc: {checked} invalid forms refused by both llvm-mc and dsxor");
}

/// The family rules dsxor states (gds, AGPR forms, even tuples, tuples past
/// v255) are llvm-mc's, probed directly on every target.
#[test]
fn family_rules_are_llvm_mcs() {
    let Some(mc) = common::llvm_mc() else { return };
    for t in isa::TARGETS {
        let f = t.family;
        // A 4-dword load of the table, whichever name the family uses.
        let b128 = f
            .ops()
            .iter()
            .find(|i| i.name == "ds_read_b128" || i.name == "ds_load_b128")
            .expect("every family has a 128-bit load");
        let probes = [
            ("ds_xor_b32 v1, v2 gds".to_owned(), f.has_gds()),
            ("ds_xor_b32 v1, a2".to_owned(), f.has_agprs()),
            ("ds_xor_b64 v1, v[3:4]".to_owned(), !f.needs_even_tuples()),
            (
                format!("{} v[254:257], v1", b128.name),
                f.tuples_may_end_past_v255(),
            ),
        ];
        let lines: Vec<String> = probes.iter().map(|(l, _)| l.clone()).collect();
        let theirs = llvm_mc(&mc, t.name, false, &lines);
        for ((l, expected), a) in probes.iter().zip(&theirs) {
            assert_eq!(a.is_some(), *expected, "{}: llvm-mc on `{l}`", t.name);
        }
    }
}

/// The syntax-subset claim (src/isa/text.rs): every line dsxor accepts,
/// llvm-mc accepts with the same output. Lines are valid instructions (XOR
/// family and random table opcodes) mangled at random (characters dropped, duplicated, swapped
/// for syntax-significant ones, case flipped, spaces added).
#[test]
fn whatever_dsxor_accepts_llvm_mc_accepts_identically() {
    let Some(mc) = common::llvm_mc() else { return };
    const NOISE: &[char] = &[
        ' ', '\t', ',', ':', '[', ']', 'v', 'a', '0', '1', '9', 'x', 'o', ';', '/', '-', '+', 'g',
    ];
    let mut accepted_total = 0;
    for (ti, t) in isa::TARGETS.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5e_0000 + ti as u64);
        let ops = t.family.ops();
        let lines: Vec<String> = (0..1500)
            .map(|i| {
                // Half XOR-family lines, half texts of random table opcodes
                // (dsxor's print is only the input here; llvm-mc judges).
                let line = if i % 2 == 0 {
                    xor_line(&mut rng, *t).0
                } else {
                    let info = &ops[rng.random_range(0..ops.len())];
                    let w = table_word(&mut rng, t.family, info);
                    isa::disassemble(t.family, w).unwrap_or_else(|_| xor_line(&mut rng, *t).0)
                };
                let mut chars: Vec<char> = line.chars().collect();
                for _ in 0..rng.random_range(1..4) {
                    if chars.is_empty() {
                        break;
                    }
                    let i = rng.random_range(0..chars.len());
                    match rng.random_range(0..5) {
                        0 => {
                            chars.remove(i);
                        }
                        1 => chars.insert(i, chars[i]),
                        2 => chars[i] = NOISE[rng.random_range(0..NOISE.len())],
                        3 => chars[i] = chars[i].to_ascii_uppercase(),
                        _ => chars.insert(i, ' '),
                    }
                }
                chars.into_iter().collect()
            })
            .collect();
        let theirs = llvm_mc(&mc, t.name, false, &lines);
        let (ours, _) = dsxor(&["asm", "--target", t.name], &lines);
        for ((l, a), o) in lines.iter().zip(&theirs).zip(&ours) {
            if let Some(o) = o {
                assert_eq!(a.as_ref(), Some(o), "{}: dsxor accepts `{l}`", t.name);
                accepted_total += 1;
            }
        }
    }
    eprintln!(
        "isa_llvm_mc: {accepted_total} mangled lines accepted by dsxor, all identical in llvm-mc"
    );
}

/// The split waitcnts' SGPR field: llvm-mc-22 takes `null` there and
/// refuses an SGPR ("src0 must be null"); `isa::alu` encodes the one and
/// refuses the other (the bytes of the `null` form are checked in
/// `alu_encodings_are_llvm_mcs`).
#[test]
fn split_waitcnts_take_null_alone_as_llvm_mc_does() {
    use dsxor::isa::alu::{AluInst, Opnd, ProgramInst};
    let Some(mc) = common::llvm_mc() else { return };
    let accepts = |line: &str| {
        let out = common::llvm_mc_stdin(
            &mc,
            &["-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"],
            &format!("{line}\n"),
        );
        String::from_utf8_lossy(&out.stdout).contains("encoding:")
    };
    for name in [
        "s_waitcnt_vscnt",
        "s_waitcnt_vmcnt",
        "s_waitcnt_expcnt",
        "s_waitcnt_lgkmcnt",
    ] {
        for (reg, dsxor) in [(Opnd::Null, true), (Opnd::S(1), false)] {
            let i = AluInst::new(name, None, None, vec![reg, Opnd::Lit(5)]).unwrap();
            let line = ProgramInst::One(i.clone()).text(false);
            assert_eq!(accepts(&line), dsxor, "llvm-mc on `{line}`");
            assert_eq!(i.encode(false).is_ok(), dsxor, "isa::alu on `{line}`");
        }
    }
}

/// `isa::alu` (the encoders of `dsxor qualify`'s ALU corpus) against
/// llvm-mc: every program of the corpus (every instruction and chain, 12
/// programs each, both wave sizes; VOPD in wave32), and as many of every
/// row of `isa::alu::ALU_OPS` the corpus leaves out (program flow, hints,
/// the M0-relative moves, the split waitcnts with `null` in their SGPR
/// field), assembled from its LLVM text by llvm-mc, must be the words
/// dsxor's encoder gives; every row's mnemonic is assembled.
#[test]
fn alu_encodings_are_llvm_mcs() {
    use dsxor::isa::alu::{AluInst, Mods, Opnd, ProgramInst, ALU_OPS};
    use dsxor::qualify::alu::{corpus_names, program_for, wave32_only, wave64_only};
    let Some(mc) = common::llvm_mc() else { return };
    for wave64 in [false, true] {
        // A row only the other wave size has.
        let other_wave_size = |n: &str| (wave64 && wave32_only(n)) || (!wave64 && wave64_only(n));
        let mut lines = Vec::new();
        let mut words = Vec::new();
        // The WMMA form beyond the corpus's wave64 programs: both wave
        // sizes (C/D 8 VGPRs in wave32, 4 in wave64), C a VGPR range or an
        // inline constant, D apart from C, every neg_lo and clamp.
        for (k, name) in ["v_wmma_i32_16x16x16_iu8", "v_wmma_i32_16x16x16_iu4"]
            .into_iter()
            .cycle()
            .take(16)
            .enumerate()
        {
            let c = match k % 4 {
                0 => Opnd::V(40),
                1 => Opnd::Int(-16),
                2 => Opnd::Int(64),
                _ => Opnd::V(200),
            };
            let d = if k % 4 == 3 {
                200
            } else {
                24 + 8 * (k as u8 % 3)
            };
            let i = AluInst::new(
                name,
                Some(Opnd::V(d)),
                None,
                vec![Opnd::V(0), Opnd::V(8), c],
            )
            .unwrap()
            .with_mods(Mods {
                neg_lo: (k % 4) as u8,
                clamp: k % 3 == 0,
                ..Default::default()
            });
            lines.push(ProgramInst::One(i.clone()).text(wave64));
            words.push(ProgramInst::One(i).encode(wave64).unwrap());
        }
        let corpus = corpus_names();
        let left_out = ALU_OPS
            .iter()
            .map(|r| r.name)
            .filter(|n| !corpus.contains(n));
        for name in corpus.iter().copied().chain(left_out) {
            if other_wave_size(name) {
                continue;
            }
            for k in 0..12 {
                for inst in program_for(name, wave64, 3, k).unwrap() {
                    lines.push(inst.text(wave64));
                    words.push(inst.encode(wave64).unwrap());
                }
            }
        }
        let attr = if wave64 {
            "+wavefrontsize64"
        } else {
            "+wavefrontsize32"
        };
        let out = common::llvm_mc_stdin(
            &mc,
            &[
                "-arch=amdgcn",
                "-mcpu=gfx1100",
                // +real-true16: the 16-bit forms name `.l`/`.h` halves.
                &format!("-mattr={attr},+real-true16"),
                "-show-encoding",
            ],
            &(lines.join("\n") + "\n"),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let refused: Vec<&String> = stderr
            .lines()
            .filter(|l| l.contains(": error:"))
            .filter_map(|l| l.strip_prefix("<stdin>:")?.split(':').next()?.parse().ok())
            .filter_map(|n: usize| lines.get(n - 1))
            .collect();
        assert!(
            refused.is_empty(),
            "wave64 {wave64}: llvm-mc refuses {refused:#?}\n{stderr}"
        );
        let got: Vec<Vec<u32>> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split("encoding: [").nth(1))
            .map(|b| {
                let bytes: Vec<u8> = b
                    .trim_end_matches(']')
                    .split(',')
                    .map(|x| u8::from_str_radix(x.trim().trim_start_matches("0x"), 16).unwrap())
                    .collect();
                bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect()
            })
            .collect();
        assert_eq!(got.len(), lines.len(), "wave64 {wave64}");
        let mut seen = BTreeSet::new();
        for ((l, w), g) in lines.iter().zip(&words).zip(&got) {
            assert_eq!(
                w, g,
                "wave64 {wave64}: `{l}`: dsxor {w:08x?}, llvm-mc {g:08x?}"
            );
            seen.insert(l.split_whitespace().next().unwrap().to_string());
        }
        // Every mnemonic of the table was exercised.
        let missed: Vec<&str> = ALU_OPS
            .iter()
            .map(|r| r.name)
            .filter(|n| !seen.contains(*n))
            .filter(|n| !other_wave_size(n))
            .collect();
        assert!(
            missed.is_empty(),
            "wave64 {wave64}: never assembled: {missed:?}"
        );
    }
}
