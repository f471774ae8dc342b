#![no_main]
//! `dsxor report`'s bench-record reader.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = dsxor::report::bench_record::BenchRecord::from_json(
            text,
            std::path::Path::new("fuzz.json"),
        );
    }
});
