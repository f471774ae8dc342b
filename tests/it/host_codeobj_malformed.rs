//! Malformed input gets an error, never a panic: truncations, a foreign
//! e_machine, broken notes and metadata, hostile bundles, and thousands of
//! seeded byte mutations of the shipped objects, each pushed through every
//! codeobj entry point; `dsxor inspect` on garbage exits 2 with a message.

use crate::common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use dsxor::backend::ArgValue;
use dsxor::codeobj::describe::describe;
use dsxor::codeobj::metadata::Metadata;
use dsxor::codeobj::{
    build_kernarg, bundle, embedded, patch_ds_offset, CodeObject, CodeObjectError, LaunchDims,
    TargetId,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn gfx1100() -> &'static [u8] {
    embedded()
        .iter()
        .find(|o| o.target == "gfx1100")
        .expect("gfx1100 object")
        .bytes
}

/// Everything a caller can do with bytes; Ok or Err, never a panic.
fn exercise(data: &[u8]) {
    let _ = bundle::parse_entries(data);
    let _ = CodeObject::parse_for_target(data, &TargetId::parse("gfx1100").unwrap());
    let _ = patch_ds_offset(data, "dsxor_conformance_off0", 0x1234);
    let Ok(co) = CodeObject::parse(data) else {
        return;
    };
    let _ = describe(&co, true);
    let _ = co.text();
    for k in &co.kernels {
        let _ = co.kernel_code(k);
        let _ = co.ds_instructions(k);
        let _ = co.wave_size(k);
        if let Some(m) = &k.metadata {
            let args: Vec<ArgValue> = m
                .explicit_args()
                .enumerate()
                .map(|(i, a)| match a.size {
                    4 => ArgValue::U32(i as u32),
                    8 if a.value_kind.as_str() == "by_value" => ArgValue::U64(i as u64),
                    _ => ArgValue::Buffer(i),
                })
                .collect();
            let addrs: Vec<u64> = (0..args.len() as u64).map(|i| 0x1000 * (i + 1)).collect();
            let _ = build_kernarg(m, &args, &addrs, &LaunchDims::linear(3, 64, 256));
        }
    }
}

fn no_panic(what: &str, data: &[u8]) {
    if catch_unwind(AssertUnwindSafe(|| exercise(data))).is_err() {
        panic!("codeobj panicked on {what}");
    }
}

#[test]
fn every_truncation_is_an_error() {
    let data = gfx1100();
    // The section header table is at the end, so every proper prefix lacks it.
    for len in (0..data.len())
        .step_by(13)
        .chain([1, 4, 15, 16, 63, 64, data.len() - 1])
    {
        let cut = &data[..len];
        no_panic(&format!("a {len}-byte prefix"), cut);
        assert!(
            CodeObject::parse(cut).is_err(),
            "a {len}-byte prefix parsed"
        );
    }
}

#[test]
fn a_foreign_machine_is_refused_by_name() {
    let mut data = gfx1100().to_vec();
    data[18..20].copy_from_slice(&62u16.to_le_bytes()); // EM_X86_64
    match CodeObject::parse(&data) {
        Err(CodeObjectError::WrongMachine { e_machine: 62 }) => {}
        other => panic!("{other:?}"),
    }
    // A real host ELF: this test binary.
    let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    assert!(matches!(
        CodeObject::parse(&me),
        Err(CodeObjectError::WrongMachine { .. })
    ));
    // ELFCLASS32 / big-endian.
    let mut c32 = gfx1100().to_vec();
    c32[4] = 1;
    assert!(matches!(
        CodeObject::parse(&c32),
        Err(CodeObjectError::Unsupported(_))
    ));
    let mut be = gfx1100().to_vec();
    be[5] = 2;
    assert!(matches!(
        CodeObject::parse(&be),
        Err(CodeObjectError::Unsupported(_))
    ));
    // An unknown processor.
    let mut mach = gfx1100().to_vec();
    mach[48] = 0xfe;
    assert!(matches!(
        CodeObject::parse(&mach),
        Err(CodeObjectError::UnknownMach { mach: 0xfe, .. })
    ));
}

/// File offset of the metadata note's desc in the gfx1100 object.
fn note_desc_offset(co: &CodeObject) -> usize {
    let note = co
        .sections
        .iter()
        .find(|s| s.name == ".note")
        .expect(".note");
    // namesz 7 ("AMDGPU\0") padded to 8 after the 12-byte header.
    note.sh_offset as usize + 12 + 8
}

#[test]
fn broken_notes_and_metadata_are_errors() {
    let data = gfx1100();
    let co = CodeObject::parse(data).unwrap();
    let note = co
        .sections
        .iter()
        .find(|s| s.name == ".note")
        .unwrap()
        .sh_offset as usize;
    let desc = note_desc_offset(&co);

    // descsz far beyond the section.
    let mut d = data.to_vec();
    d[note + 4..note + 8].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    assert!(
        matches!(
            CodeObject::parse(&d),
            Err(CodeObjectError::Truncated { .. })
        ),
        "{:?}",
        CodeObject::parse(&d)
    );
    // namesz beyond the section.
    let mut d = data.to_vec();
    d[note..note + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(CodeObject::parse(&d).is_err());
    // Not MessagePack (0xc1 is never used).
    let mut d = data.to_vec();
    d[desc] = 0xc1;
    assert!(matches!(
        CodeObject::parse(&d),
        Err(CodeObjectError::BadMetadata(_))
    ));
    // MessagePack, but not a map.
    let mut d = data.to_vec();
    d[desc] = 0x01;
    assert!(matches!(
        CodeObject::parse(&d),
        Err(CodeObjectError::BadMetadata(_))
    ));

    // Straight to the metadata decoder: nesting bombs and lying lengths.
    assert!(Metadata::parse(&vec![0x91; 100_000]).is_err());
    assert!(Metadata::parse(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err());
    assert!(Metadata::parse(&[0xdf, 0xff, 0xff, 0xff, 0xff]).is_err());
    assert!(Metadata::parse(&[]).is_err());
    // A kernel missing required keys, with the key named.
    let mut buf = Vec::new();
    let v = rmpv::Value::Map(vec![(
        "amdhsa.kernels".into(),
        rmpv::Value::Array(vec![rmpv::Value::Map(vec![(".name".into(), "k".into())])]),
    )]);
    rmpv::encode::write_value(&mut buf, &v).unwrap();
    let e = Metadata::parse(&buf).unwrap_err();
    assert!(
        e.to_string().contains(".symbol") || e.to_string().contains("missing"),
        "{e}"
    );
}

#[test]
fn hostile_bundles_are_errors() {
    let mut b = bundle::BUNDLE_MAGIC.to_vec();
    b.extend_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        CodeObject::parse(&b),
        Err(CodeObjectError::Bundle(_))
    ));
    // One entry pointing past the end.
    let mut b = bundle::BUNDLE_MAGIC.to_vec();
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&4096u64.to_le_bytes());
    b.extend_from_slice(&100u64.to_le_bytes());
    let id = b"hipv4-amdgcn-amd-amdhsa--gfx1100";
    b.extend_from_slice(&(id.len() as u64).to_le_bytes());
    b.extend_from_slice(id);
    assert!(matches!(
        CodeObject::parse(&b),
        Err(CodeObjectError::Truncated { .. })
    ));
    // An id length beyond the data.
    let mut b = bundle::BUNDLE_MAGIC.to_vec();
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&[0; 16]);
    b.extend_from_slice(&u64::MAX.to_le_bytes());
    assert!(CodeObject::parse(&b).is_err());
    // Compressed bundles: named, not misread.
    assert!(matches!(
        CodeObject::parse(b"CCOB\x02\x00rest"),
        Err(CodeObjectError::Unsupported(_))
    ));
    // A host-only bundle has no AMDGPU entry.
    let host = bundle::write_bundle(&[("host-x86_64-unknown-linux-gnu", b"x")]);
    match CodeObject::parse(&host) {
        Err(e @ CodeObjectError::NoAmdgpuEntry { .. }) => assert!(
            e.to_string().contains("host-x86_64-unknown-linux-gnu"),
            "the error lists the entries: {e}"
        ),
        other => panic!("a host-only bundle gave {other:?}"),
    }
    // A bundle whose entry is garbage.
    let junk = bundle::write_bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx1100", b"\x7fELF junk")]);
    assert!(CodeObject::parse(&junk).is_err());
}

/// Seeded mutations of every shipped object: 1–8 bytes overwritten per
/// mutant, half of them aimed at the structures a parser trusts (ELF
/// header, section headers, the note, the kernel descriptors).
#[test]
fn thousands_of_seeded_mutations_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xd5_0e_11);
    let mut parsed = 0usize;
    let mut total = 0usize;
    for o in embedded() {
        let co = CodeObject::parse(o.bytes).unwrap();
        let shoff = co.header.e_shoff as usize;
        let note = co.sections.iter().find(|s| s.name == ".note").unwrap();
        let rodata = co.sections.iter().find(|s| s.name == ".rodata").unwrap();
        let hot: Vec<(usize, usize)> = vec![
            (0, 64),
            (shoff, o.bytes.len() - shoff),
            (note.sh_offset as usize, note.sh_size as usize),
            (rodata.sh_offset as usize, rodata.sh_size as usize),
        ];
        for i in 0..1000 {
            let mut m = o.bytes.to_vec();
            for _ in 0..rng.random_range(1..=8) {
                let pos = if rng.random_bool(0.5) {
                    let (start, len) = hot[rng.random_range(0..hot.len())];
                    start + rng.random_range(0..len.max(1))
                } else {
                    rng.random_range(0..m.len())
                };
                if let Some(b) = m.get_mut(pos) {
                    *b = match rng.random_range(0..4) {
                        0 => rng.random(),
                        1 => 0xff,
                        2 => 0,
                        _ => *b ^ (1 << rng.random_range(0..8)),
                    };
                }
            }
            no_panic(&format!("mutant {i} of {}", o.file_name), &m);
            total += 1;
            parsed += usize::from(CodeObject::parse(&m).is_ok());
        }
    }
    // A two-entry offload bundle: mutations of its header (entry count,
    // offsets, sizes, id lengths) and of the entries, read with and
    // without a target (`exercise` asks for gfx1100).
    let g90a = embedded()
        .iter()
        .find(|o| o.target == "gfx90a")
        .expect("gfx90a object")
        .bytes;
    let b = bundle::write_bundle(&[
        ("hipv4-amdgcn-amd-amdhsa--gfx1100", gfx1100()),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a", g90a),
    ]);
    let header_len = 24 + 8 + 2 * (24 + "hipv4-amdgcn-amd-amdhsa--gfx1100".len());
    let mut bundle_parsed = 0usize;
    for i in 0..1000 {
        let mut m = b.clone();
        for _ in 0..rng.random_range(1..=4) {
            let pos = if rng.random_bool(0.7) {
                rng.random_range(0..header_len)
            } else {
                rng.random_range(0..m.len())
            };
            if let Some(x) = m.get_mut(pos) {
                *x = match rng.random_range(0..3) {
                    0 => rng.random(),
                    1 => 0xff,
                    _ => *x ^ (1 << rng.random_range(0..8)),
                };
            }
        }
        no_panic(&format!("bundle mutant {i}"), &m);
        total += 1;
        bundle_parsed += usize::from(
            CodeObject::parse_for_target(&m, &TargetId::parse("gfx90a").unwrap()).is_ok(),
        );
    }
    eprintln!(
        "{total} mutants, {parsed} ELF mutants still parse, {bundle_parsed} bundle mutants \
         still give a gfx90a entry (the rest are errors)"
    );
    // 1,000 per embedded object, and 1,000 of the bundle.
    assert_eq!(total, 1000 * (embedded().len() + 1));
}

#[test]
fn inspect_on_garbage_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "garbage",
            b"this is not a code object\n".to_vec(),
            "not an ELF",
        ),
        ("empty", Vec::new(), "not an ELF"),
        ("truncated", gfx1100()[..5000].to_vec(), "truncated"),
        (
            "host",
            std::fs::read(std::env::current_exe().unwrap()).unwrap(),
            "e_machine",
        ),
    ];
    for (name, bytes, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = common::dsxor(&["inspect", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(want), "{name}: {stderr}");
        assert!(
            stderr.contains(name),
            "{name}: the message names the file: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
    let out = common::dsxor(&["inspect", "/nonexistent/dsxor-file"]);
    assert_eq!(out.status.code(), Some(2));
    let out = common::dsxor(&["inspect", "--target", "sm_80", "/nonexistent/dsxor-file"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A code object over `MAX_CODE_OBJECT_BYTES` is refused by name, before
/// it is read, by every command that reads one: the shipped object padded
/// (sparsely) past the limit would otherwise parse, since trailing bytes
/// after an ELF's sections are legal.
#[test]
fn a_code_object_over_the_size_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.co");
    std::fs::write(&path, gfx1100()).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(dsxor::codeobj::MAX_CODE_OBJECT_BYTES + 1)
        .unwrap();
    drop(file);
    let p = path.to_str().unwrap();
    let out_dir = dir.path().join("out");
    for args in [
        vec!["inspect", p],
        vec![
            "run",
            "--backend",
            "emu",
            "--code-object",
            p,
            "--cases",
            "2",
            "--seed",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    ] {
        let out = common::dsxor(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("256 MiB limit for a code object") && stderr.contains("huge.co"),
            "{args:?}: the message names the limit and the file: {stderr}"
        );
    }
}
