#![no_main]
//! `dsxor inspect` / `run --code-object`: ELF and offload-bundle parsing,
//! the DS scan and the site check.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(co) = dsxor::codeobj::CodeObject::parse(data) {
        for k in &co.kernels {
            let _ = co.ds_instructions(k);
            let _ = dsxor::codeobj::find_ds_xor_site(&co, &k.name);
        }
    }
});
