#![no_main]
//! `dsxor asm` and `dsxor disasm` lines, for a gfx11 and a gfx9 target.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    for name in ["gfx1100", "gfx90a"] {
        let t = dsxor::isa::target(name).unwrap();
        let _ = dsxor::isa::assemble_line(t, &line);
        let _ = dsxor::isa::disassemble_line(t, &line);
    }
});
