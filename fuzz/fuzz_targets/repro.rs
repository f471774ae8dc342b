#![no_main]
//! `dsxor repro FILE`'s reader (it takes a path).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.repro.json");
    std::fs::write(&path, data).unwrap();
    let _ = dsxor::suite::repro::Repro::read(&path);
});
