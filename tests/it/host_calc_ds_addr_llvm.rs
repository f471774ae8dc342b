//! CalcDsAddr against llvm-mc (the oracle): for random `offset:N`, LLVM's
//! gfx1100 encoding of `ds_xor_rtn_b64` puts OFFSET0 in byte 0 and OFFSET1 in
//! byte 1; the model's `calc_ds_addr(addr, offset0, offset1)` must add
//! exactly N.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use dsxor::model::calc_ds_addr;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn offset_fields_from_llvm_mc_add_the_written_offset() {
    let Some(mc) = common::llvm_mc() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(0xca1c_d5ad);
    let mut offsets: Vec<u16> = vec![1, 8, 255, 256, 264, 4096, 65528, 65535];
    offsets.extend((0..200).map(|_| rng.random::<u16>()));
    let text: String = offsets
        .iter()
        .map(|o| format!("ds_xor_rtn_b64 v[5:6], v1, v[2:3] offset:{o}\n"))
        .collect();
    let mut child = Command::new(&mc)
        .args([
            "-triple=amdgcn-amd-amdhsa",
            "-mcpu=gfx1100",
            "-show-encoding",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc starts");
    child
        .stdin
        .take()
        .expect("stdin piped")
        .write_all(text.as_bytes())
        .expect("write to llvm-mc");
    let out = child.wait_with_output().expect("llvm-mc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let encodings: Vec<Vec<u8>> = stdout
        .lines()
        .filter_map(|l| l.split("encoding: [").nth(1))
        .map(|e| {
            e.trim_end_matches(']')
                .split(',')
                .map(|b| {
                    u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex byte")
                })
                .collect()
        })
        .collect();
    assert_eq!(encodings.len(), offsets.len(), "{stdout}");
    for (o, enc) in offsets.iter().zip(&encodings) {
        let addr: u32 = rng.random_range(0..1 << 20);
        assert_eq!(
            calc_ds_addr(addr, enc[0], enc[1]),
            u64::from(addr) + u64::from(*o),
            "offset:{o} encodes {enc:02x?}"
        );
    }
}
