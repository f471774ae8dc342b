#![no_main]
//! A killed run's case stream, as `dsxor merge`/`report` recover it.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.cases.jsonl");
    std::fs::write(&path, data).unwrap();
    let _ = dsxor::report::results::Results::recover(&path);
});
