#![no_main]
//! The results-file reader of `dsxor merge` and `dsxor report`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    std::fs::write(&path, data).unwrap();
    let _ = dsxor::report::results::Results::read(&path);
});
