//! The software device's integer WMMA (`v_wmma_i32_16x16x16_iu8` /
//! `_iu4`, `emu::wmma`) against a matrix product computed here, in both
//! wave sizes. Programs are assembled by llvm-mc (the oracle for the
//! encoding); registers are filled from matrices and D is read back
//! through the RDNA3 ISA guide's §7.9 VGPR layout, written here from the
//! register side (register and lane → matrix element), the other direction
//! from the emulator's (element → register and lane):
//!
//! - "A Matrix: VGPR View for Wave32 – Column Major": lane m holds row m of
//!   A, its K elements packed from bit 0 of the first VGPR up (8 bits each
//!   for iu8, 4 for iu4); "B Matrix ... Row Major": lane n holds column n
//!   of B the same way; "Lanes 16-31 replicate lanes 0-15 / Wave64: lanes
//!   32-63 replicate lanes 0-31".
//! - "C & D Matrix: VGPR View for Wave32 – Row Major": "one VGPR holds 2
//!   rows" (lanes 0-15 the first, 16-31 the second); "Wave64: Uses 4 VGPRs,
//!   V0 holds rows 0-3; V1 holds rows 4-7; ...".
//! - NEG[0] / NEG[1] (neg_lo) select signed A / B ("0=unsigned, 1=signed").
//!
//! Each case also checks that its expected matrix differs from the product
//! with B transposed and from the product with the other signedness, so a
//! layout or sign slip in the emulator cannot pass unseen.

use crate::common;
use crate::emu_support::{self, Setup};

use dsxor::emu::decode::{decode_text, Inst};
use dsxor::emu::disasm::disasm;
use dsxor::emu::ds::Lds;
use dsxor::emu::mem::GlobalMem;
use dsxor::emu::wave::{Env, Status, Wave};
use dsxor::emu::WaveError;

type Mat = [[i64; 16]; 16];

/// A small deterministic generator (xorshift64*), so cases need no seed file.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    Iu8,
    Iu4,
}

impl Ty {
    fn bits(self) -> u32 {
        match self {
            Ty::Iu8 => 8,
            Ty::Iu4 => 4,
        }
    }
    /// VGPRs of A and of B.
    fn ab_regs(self) -> usize {
        16 * self.bits() as usize / 32
    }
    fn mnemonic(self) -> &'static str {
        match self {
            Ty::Iu8 => "v_wmma_i32_16x16x16_iu8",
            Ty::Iu4 => "v_wmma_i32_16x16x16_iu4",
        }
    }
}

/// The value of a raw element under a signedness select.
fn value(raw: u32, bits: u32, signed: bool) -> i64 {
    if signed && raw >> (bits - 1) & 1 == 1 {
        raw as i64 - (1i64 << bits)
    } else {
        raw as i64
    }
}

/// A case: raw A[m][k] and B[k][n] fields, C[m][n].
struct Case {
    ty: Ty,
    a: [[u32; 16]; 16],
    b: [[u32; 16]; 16],
    c: [[i32; 16]; 16],
}

impl Case {
    fn random(ty: Ty, rng: &mut Rng) -> Case {
        let mask = (1u64 << ty.bits()) - 1;
        let mut a = [[0u32; 16]; 16];
        let mut b = [[0u32; 16]; 16];
        let mut c = [[0i32; 16]; 16];
        for m in 0..16 {
            for k in 0..16 {
                a[m][k] = (rng.next() & mask) as u32;
                b[k][m] = (rng.next() & mask) as u32;
                c[m][k] = rng.next() as i32;
            }
        }
        Case { ty, a, b, c }
    }

    /// D = A * B + C with the given signedness; `clamp` saturates to i32,
    /// else the sum wraps to 32 bits.
    fn product(&self, sa: bool, sb: bool, clamp: bool, b_transposed: bool) -> Mat {
        let bits = self.ty.bits();
        let mut d = [[0i64; 16]; 16];
        for (m, row) in d.iter_mut().enumerate() {
            for (n, out) in row.iter_mut().enumerate() {
                let mut sum = self.c[m][n] as i64;
                for k in 0..16 {
                    let bv = if b_transposed {
                        self.b[n][k]
                    } else {
                        self.b[k][n]
                    };
                    sum += value(self.a[m][k], bits, sa) * value(bv, bits, sb);
                }
                *out = if clamp {
                    sum.clamp(i32::MIN as i64, i32::MAX as i64)
                } else {
                    sum as i32 as i64
                };
            }
        }
        d
    }

    /// Lane `lane`'s word `r` of A (`of_b` false) or B: lane m (mod 16)
    /// holds row m of A / column m of B, element k at bit `bits * k` of
    /// the packed K elements.
    fn ab_word(&self, of_b: bool, r: usize, lane: usize) -> u32 {
        let bits = self.ty.bits() as usize;
        let per = 32 / bits;
        let mn = lane % 16;
        (0..per).fold(0u32, |w, e| {
            let k = r * per + e;
            let raw = if of_b { self.b[k][mn] } else { self.a[mn][k] };
            w | raw << (bits * e)
        })
    }
}

/// The (row, column) of C/D held by VGPR `v` of the block, lane `lane`.
fn cd_element(v: usize, lane: usize, lanes: usize) -> (usize, usize) {
    let rows_per_vgpr = lanes / 16;
    (v * rows_per_vgpr + lane / 16, lane % 16)
}

/// Registers of a program: A at v0, B right after it, C at v16, D at v32
/// (or `d` when given).
struct Regs {
    a: usize,
    b: usize,
    c: usize,
    d: usize,
}

const REGS: Regs = Regs {
    a: 0,
    b: 8,
    c: 16,
    d: 32,
};

fn range(first: usize, n: usize) -> String {
    format!("v[{first}:{}]", first + n - 1)
}

fn program(ty: Ty, wave64: bool, regs: &Regs, c_operand: Option<&str>, mods: &str) -> String {
    let cd = if wave64 { 4 } else { 8 };
    let n = ty.ab_regs();
    let c = c_operand
        .map(str::to_string)
        .unwrap_or_else(|| range(regs.c, cd));
    format!(
        "{} {}, {}, {}, {c}{mods}\ns_endpgm\n",
        ty.mnemonic(),
        range(regs.d, cd),
        range(regs.a, n),
        range(regs.b, n)
    )
}

fn run_result(
    src: &str,
    wave64: bool,
    exec: Option<u64>,
    init: impl FnOnce(&mut Wave),
) -> Option<(Wave, Result<Status, WaveError>)> {
    let setup = Setup {
        wave64,
        exec,
        quantum: 100,
        ..Setup::default()
    };
    let r = emu_support::run(src, setup, |_| {}, init)?;
    Some((r.wave, r.result))
}

fn load(w: &mut Wave, case: &Case, regs: &Regs, lanes: usize, cd: usize) {
    for lane in 0..lanes {
        for r in 0..case.ty.ab_regs() {
            w.set_vgpr(regs.a + r, lane, case.ab_word(false, r, lane));
            w.set_vgpr(regs.b + r, lane, case.ab_word(true, r, lane));
        }
        for v in 0..cd {
            let (m, n) = cd_element(v, lane, lanes);
            w.set_vgpr(regs.c + v, lane, case.c[m][n] as u32);
        }
    }
}

fn read_d(w: &Wave, d: usize, lanes: usize) -> Mat {
    let cd = 16 * 16 / lanes;
    let mut out = [[i64::MAX; 16]; 16];
    for v in 0..cd {
        for lane in 0..lanes {
            let (m, n) = cd_element(v, lane, lanes);
            out[m][n] = w.vgpr(d + v, lane) as i32 as i64;
        }
    }
    out
}

/// Run one WMMA of `case` with neg_lo signedness `(sa, sb)` and `clamp`
/// under `exec`, and compare D with the product.
fn check(case: &Case, wave64: bool, sa: bool, sb: bool, clamp: bool, exec: Option<u64>) {
    let lanes = if wave64 { 64 } else { 32 };
    let cd = if wave64 { 4 } else { 8 };
    let mut mods = String::new();
    if sa || sb {
        mods += &format!(" neg_lo:[{},{},0]", sa as u8, sb as u8);
    }
    if clamp {
        mods += " clamp";
    }
    let src = program(case.ty, wave64, &REGS, None, &mods);
    let Some((w, r)) = run_result(&src, wave64, exec, |w| load(w, case, &REGS, lanes, cd)) else {
        return;
    };
    assert_eq!(r, Ok(Status::Ended), "{src}");
    let want = case.product(sa, sb, clamp, false);
    // The case can tell a transposed B and the other signedness apart.
    assert_ne!(
        want,
        case.product(sa, sb, clamp, true),
        "{src}: B symmetric"
    );
    assert_ne!(want, case.product(!sa, sb, clamp, false), "{src}");
    assert_ne!(want, case.product(sa, !sb, clamp, false), "{src}");
    let got = read_d(&w, REGS.d, lanes);
    for m in 0..16 {
        for n in 0..16 {
            assert_eq!(got[m][n], want[m][n], "{src} (exec {exec:?}): D[{m}][{n}]");
        }
    }
    // A, B and C are left as they were.
    for lane in 0..lanes {
        for r in 0..case.ty.ab_regs() {
            assert_eq!(w.vgpr(REGS.a + r, lane), case.ab_word(false, r, lane));
        }
    }
}

#[test]
fn iu8_and_iu4_products_in_every_signedness_wave32_and_wave64() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for ty in [Ty::Iu8, Ty::Iu4] {
        for wave64 in [false, true] {
            let case = Case::random(ty, &mut rng);
            for (sa, sb) in [(false, false), (true, true), (true, false), (false, true)] {
                check(&case, wave64, sa, sb, false, None);
            }
        }
    }
}

#[test]
fn exec_does_not_mask_a_wmma() {
    // Policy wmma-exec-all-lanes (the guide's "EXEC = 64'B(-1)"): lanes
    // EXEC leaves off are computed and written too, even with EXEC = 0
    // (§3.2.3: "Does not skip WMMA").
    let mut rng = Rng(7);
    for wave64 in [false, true] {
        let case = Case::random(Ty::Iu8, &mut rng);
        for exec in [0x0000_ffff_u64, 0x8000_0001, 0] {
            check(&case, wave64, true, false, false, Some(exec));
        }
    }
}

#[test]
fn clamp_saturates_at_both_ends_and_wraps_without_it() {
    // Policy wmma-clamp-saturates. Rows 0..8: C just below i32::MAX, A all
    // ones (unsigned: the largest value), B near its largest: with unsigned
    // A every product is positive and the sum passes i32::MAX. Rows 8..16:
    // C just above i32::MIN, A only its sign bit (signed: the most negative
    // value): with signed A every product is negative and the sum passes
    // i32::MIN. Both are checked with and without clamp.
    for ty in [Ty::Iu8, Ty::Iu4] {
        let top = (1u32 << ty.bits()) - 1;
        let mut rng = Rng(42);
        let mut case = Case::random(ty, &mut rng);
        for m in 0..16 {
            for k in 0..16 {
                case.a[m][k] = if m < 8 { top } else { 1 << (ty.bits() - 1) };
                case.b[k][m] = top - (rng.next() % 2) as u32;
                case.c[m][k] = if m < 8 {
                    i32::MAX - k as i32
                } else {
                    i32::MIN + k as i32
                };
            }
        }
        for wave64 in [false, true] {
            for clamp in [true, false] {
                check(&case, wave64, false, false, clamp, None);
                check(&case, wave64, true, false, clamp, None);
            }
        }
        // The clamped results really are at the ends, and differ from the
        // wrapped ones.
        let (sat, wrap) = (
            case.product(false, false, true, false),
            case.product(false, false, false, false),
        );
        assert_eq!(sat[0][0], i32::MAX as i64);
        assert_ne!(sat[0][0], wrap[0][0]);
        let (sat, wrap) = (
            case.product(true, false, true, false),
            case.product(true, false, false, false),
        );
        assert_eq!(sat[15][15], i32::MIN as i64);
        assert_ne!(sat[15][15], wrap[15][15]);
    }
}

#[test]
fn c_as_an_integer_inline_constant_and_d_in_place_of_c() {
    let mut rng = Rng(99);
    for wave64 in [false, true] {
        let lanes = if wave64 { 64 } else { 32 };
        let cd = if wave64 { 4 } else { 8 };
        for (ty, konst) in [(Ty::Iu8, -16i32), (Ty::Iu4, 64)] {
            let mut case = Case::random(ty, &mut rng);
            case.c = [[konst; 16]; 16];
            let src = program(
                ty,
                wave64,
                &REGS,
                Some(&konst.to_string()),
                " neg_lo:[0,1,0]",
            );
            let Some((w, r)) = run_result(&src, wave64, None, |w| load(w, &case, &REGS, lanes, cd))
            else {
                return;
            };
            assert_eq!(r, Ok(Status::Ended), "{src}");
            assert_eq!(
                read_d(&w, REGS.d, lanes),
                case.product(false, true, false, false),
                "{src}"
            );
        }
        // C = D (the typical case): v_wmma ... v[16:..], A, B, v[16:..].
        let case = Case::random(Ty::Iu8, &mut rng);
        let regs = Regs { d: REGS.c, ..REGS };
        let src = program(Ty::Iu8, wave64, &regs, None, " neg_lo:[1,1,0]");
        let Some((w, r)) = run_result(&src, wave64, None, |w| load(w, &case, &regs, lanes, cd))
        else {
            return;
        };
        assert_eq!(r, Ok(Status::Ended), "{src}");
        assert_eq!(
            read_d(&w, regs.d, lanes),
            case.product(true, true, false, false),
            "{src}"
        );
    }
}

fn expect_error(src: &str, wave64: bool, init: impl FnOnce(&mut Wave), needle: &str) {
    let Some((_, r)) = run_result(src, wave64, None, init) else {
        return;
    };
    match r {
        Err(WaveError::Unsupported { pc, detail }) => {
            assert_eq!(pc, 0x1000, "{src}: the error names the instruction's pc");
            assert!(detail.contains(needle), "{src}: {detail}");
        }
        other => panic!("{src}: expected an error naming {needle}, got {other:?}"),
    }
}

#[test]
fn unreplicated_inputs_overlaps_and_unmodelled_fields_are_errors() {
    let mut rng = Rng(5);
    let case = Case::random(Ty::Iu8, &mut rng);
    for wave64 in [false, true] {
        let lanes = if wave64 { 64 } else { 32 };
        let cd = if wave64 { 4 } else { 8 };
        let src = program(Ty::Iu8, wave64, &REGS, None, "");
        // Lane 16 (or, in wave64, lane 48) of B differs from lane 0.
        let bad = if wave64 { 48 } else { 16 };
        expect_error(
            &src,
            wave64,
            |w| {
                load(w, &case, &REGS, lanes, cd);
                w.set_vgpr(REGS.b + 1, bad, !w.vgpr(REGS.b + 1, bad));
            },
            "wmma-unreplicated-error",
        );
        // D overlapping B; D overlapping C without being C.
        for regs in [
            Regs {
                d: REGS.b + 2,
                c: 40,
                ..REGS
            },
            Regs {
                d: REGS.c + 1,
                ..REGS
            },
        ] {
            let src = program(Ty::Iu8, wave64, &regs, None, "");
            expect_error(
                &src,
                wave64,
                |w| load(w, &case, &regs, lanes, cd),
                "wmma-overlap-error",
            );
        }
    }
    // Fields the guide says must be zero, and a float inline constant as C
    // (llvm-mc assembles all of them): not modelled, an error if executed.
    for src in [
        "v_wmma_i32_16x16x16_iu8 v[8:15], v[0:3], v[4:7], v[8:15] neg_hi:[1,0,0]\ns_endpgm\n",
        "v_wmma_i32_16x16x16_iu8 v[8:15], v[0:3], v[4:7], v[8:15] neg_lo:[0,0,1]\ns_endpgm\n",
        "v_wmma_i32_16x16x16_iu8 v[8:15], v[0:3], v[4:7], 1.0\ns_endpgm\n",
    ] {
        expect_error(src, false, |_| {}, "v_wmma_i32_16x16x16_iu8");
    }
    // v[252:255] is a whole D in wave64; run in wave32 (8 VGPRs) it would
    // run past v255: an error, not a write past the register file.
    let Some(bytes) = common::assemble_gfx1100(
        "v_wmma_i32_16x16x16_iu4 v[252:255], v[0:1], v[2:3], v[252:255]\ns_endpgm\n",
        true,
    ) else {
        return;
    };
    let prog = decode_text(&bytes, 0x1000);
    let mem = GlobalMem::new();
    let env = Env {
        prog: &prog,
        mem: &mem,
        fault: None,
    };
    let mut wave = Wave::new(false);
    wave.set_exec(wave.full_mask());
    match wave.run(&env, &mut Lds::new(0), None, 100) {
        Err(WaveError::Unsupported { detail, .. }) => {
            assert!(detail.contains("past v255"), "{detail}")
        }
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn disassembly_agrees_with_llvm_objdump_in_both_wave_sizes() {
    // The corpus test (emu_decode_llvm.rs) compares wave32 text with llvm-mc's;
    // here llvm-objdump disassembles an object in each wave size, where C
    // and D are 8 or 4 VGPRs.
    let (Some(mc), Some(objdump)) = (common::llvm_mc(), common::llvm_objdump()) else {
        return;
    };
    let w32 = "v_wmma_i32_16x16x16_iu8 v[8:15], v[0:3], v[4:7], v[8:15]
v_wmma_i32_16x16x16_iu8 v[16:23], v[0:3], v[4:7], v[8:15] neg_lo:[1,1,0] clamp
v_wmma_i32_16x16x16_iu8 v[8:15], v[0:3], v[4:7], -1 neg_lo:[1,0,0]
v_wmma_i32_16x16x16_iu4 v[8:15], v[0:1], v[2:3], v[8:15] neg_lo:[0,1,0]
v_wmma_i32_16x16x16_iu4 v[248:255], v[0:1], v[0:1], 64 clamp
";
    let w64 = "v_wmma_i32_16x16x16_iu8 v[8:11], v[0:3], v[4:7], v[8:11]
v_wmma_i32_16x16x16_iu8 v[16:19], v[0:3], v[4:7], v[8:11] neg_lo:[1,1,0] clamp
v_wmma_i32_16x16x16_iu8 v[8:11], v[0:3], v[4:7], -1 neg_lo:[1,0,0]
v_wmma_i32_16x16x16_iu4 v[8:11], v[0:1], v[2:3], v[8:11] neg_lo:[0,1,0]
v_wmma_i32_16x16x16_iu4 v[252:255], v[0:1], v[0:1], 64 clamp
";
    for (src, wave64) in [(w32, false), (w64, true)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (s, o) = (dir.path().join("t.s"), dir.path().join("t.o"));
        std::fs::write(&s, src).expect("write");
        let attr = if wave64 {
            "-wavefrontsize32,+wavefrontsize64"
        } else {
            "+wavefrontsize32"
        };
        let out = std::process::Command::new(&mc)
            .args(["-triple=amdgcn", "-mcpu=gfx1100", &format!("-mattr={attr}")])
            .args(["-filetype=obj", "-o"])
            .arg(&o)
            .arg(&s)
            .output()
            .expect("llvm-mc");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = std::process::Command::new(&objdump)
            .args([
                "-d",
                "--no-leading-addr",
                "--mcpu=gfx1100",
                &format!("--mattr={attr}"),
            ])
            .arg(&o)
            .output()
            .expect("llvm-objdump");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let mut n = 0;
        for line in text.lines().filter(|l| l.contains("v_wmma")) {
            // `\tv_wmma... clamp// 000000000010: CC44C008 7C220900`
            let (asm, tail) = line.split_once("//").expect("objdump comment");
            let words: Vec<u32> = tail
                .split_once(':')
                .expect("address")
                .1
                .split_whitespace()
                .map(|w| u32::from_str_radix(w, 16).expect("hex word"))
                .collect();
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let dec = decode_text(&bytes, 0);
            assert_eq!(dec.insts.len(), 1, "{asm}");
            assert!(
                !matches!(dec.insts[0], Inst::Unsupported(_)),
                "{asm}: {:?}",
                dec.insts[0]
            );
            let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(
                norm(&disasm(&dec.insts[0], wave64)),
                norm(asm),
                "wave64 {wave64}"
            );
            n += 1;
        }
        assert_eq!(n, 5, "llvm-objdump printed {n} WMMAs:\n{text}");
    }
}
