#![no_main]
//! `dsxor check FILE`'s reader.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = dsxor::check::file::ObservationFile::parse(text, "fuzz");
    }
});
