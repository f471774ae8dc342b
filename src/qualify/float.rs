//! The pseudocode's answer for gfx11's float DS atomics, written here from
//! the RDNA3 guide's DS descriptions independently of `emu` (which computes
//! in f32 and by bit masks; this side sums in f64 and rounds once more,
//! which for binary32 addition is exact: 53 ≥ 2·24 + 2, Figueroa's
//! double-rounding bound, and a sum in the subnormal range is exact in f64):
//!
//! - `DS_ADD_F32`: "tmp = MEM[ADDR].f32; MEM[ADDR].f32 += DATA.f32;
//!   RETURN_DATA.f32 = tmp";
//! - `DS_MIN_F32`: "tmp = MEM[ADDR].f32; src = DATA.f32; MEM[ADDR].f32 =
//!   src < tmp ? src : tmp"; `DS_MAX_F32`: "src > tmp ? src : tmp"; the
//!   `_F64` forms the same on `.f64`;
//! - `DS_CMPSTORE_F32`: "tmp = MEM[ADDR].f32; src = DATA.f32; cmp =
//!   DATA2.f32; MEM[ADDR].f32 = tmp == cmp ? src : tmp".
//!
//! Where the guide is silent the answer restates a named policy (the
//! software device's, `emu::ds::POLICY_DS_*`, written down again here and
//! listed in docs/src/reference/policies.md), so a GPU that differs there
//! shows up as a disagreement: the corpus's values ([`F32_EDGES`],
//! [`F64_EDGES`]) hit every one of those edges.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// DS_ADD_F32 and denormals.
pub const POLICY_FADD_DENORM: &str = "fadd-denorm: ds_add_f32 follows the kernel's \
FLOAT_DENORM_MODE_32 (0 flush inputs and result, 1 flush the result, 2 flush inputs, 3 \
none), a flushed value becoming the zero of its sign (LLVM pull request #89468: 'DS atomic \
fadd F32 does respect the denormal mode'). The shipped kernels are built with 3.";

/// DS_ADD_F32's rounding.
pub const POLICY_FADD_RNE: &str = "fadd-rne: ds_add_f32 rounds to nearest, ties to even \
(LLVM pull request #89468: DS fadd 'doesn't respect the rounding mode'; the mode it uses \
instead is assumed to be round-to-nearest-even).";

/// DS_ADD_F32 and NaNs.
pub const POLICY_FADD_NAN: &str = "fadd-nan: a NaN operand of ds_add_f32 gives that NaN with \
its quiet bit set (MEM's when both are NaN); inf + -inf gives 0x7fc00000.";

/// DS_MIN/MAX_F32/F64 and NaNs.
pub const POLICY_FMINMAX_NAN: &str = "fminmax-nan: ds_min/max_f32/f64 return a number over a \
NaN (minNum/maxNum, as LLVM selects atomicrmw fmin/fmax to them), the NaN's bits unchanged \
when both are NaN (MEM keeps its value); the guide's `src < tmp ? src : tmp`, read \
literally, would keep a NaN already in MEM.";

/// DS_MIN/MAX_F32/F64 and signed zeros.
pub const POLICY_FMINMAX_ZERO: &str = "fminmax-zero: -0 and +0 are equal to ds_min/max, so MEM \
keeps its zero (the pseudocode's strict compares).";

/// The float compares.
pub const POLICY_FLOAT_COMPARE: &str = "float-compare: ds_min/max and ds_cmpstore_f32/f64 \
compare float values as stored (denormals never flushed, -0 == +0, a NaN equal to nothing, \
itself included).";

/// f32 values the float corpus draws from (as bits): zeros, the denormal
/// range's ends, the normal range's, ±1, 2^-24 and 1 + 2^-23 (their sums
/// with 1 are round-to-even ties), ±2, the largest finite values,
/// infinities, quiet NaNs (with a payload, negative) and signalling NaNs.
pub const F32_EDGES: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x3380_0000,
    0x3f80_0001,
    0x4000_0000,
    0xc000_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7fc0_0123,
    0x7f80_0001,
    0xffa0_0000,
];

/// f64 values the float corpus draws from, as [`F32_EDGES`].
pub const F64_EDGES: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0xc000_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff8_0000_0000_0123,
    0x7ff0_0000_0000_0001,
    0xfff4_0000_0000_0000,
    // An f64 whose low dword alone is a small integer: the f32 reading of
    // the same qword would differ.
    0x3ff0_0000_0000_0001,
];

/// The f32 values the policies turn on, drawn more often than the other
/// edges so that pairs of them (-0 against +0, a NaN against a number,
/// 1 + 2^-24) meet within a few programs.
const F32_HOT: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0x3380_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0x0000_0001,
    0x7f80_0000,
];

/// The f64 values the policies turn on, as [`F32_HOT`].
const F64_HOT: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0x0000_0000_0000_0001,
    0x7ff0_0000_0000_0000,
];

/// An f32 corpus value: a hot value, an edge or random bits, a third each.
pub fn f32_value(rng: &mut ChaCha8Rng) -> u32 {
    match rng.random_range(0..3u32) {
        0 => F32_HOT[rng.random_range(0..F32_HOT.len())],
        1 => F32_EDGES[rng.random_range(0..F32_EDGES.len())],
        _ => rng.random(),
    }
}

/// An f64 corpus value, as [`f32_value`].
pub fn f64_value(rng: &mut ChaCha8Rng) -> u64 {
    match rng.random_range(0..3u32) {
        0 => F64_HOT[rng.random_range(0..F64_HOT.len())],
        1 => F64_EDGES[rng.random_range(0..F64_EDGES.len())],
        _ => rng.random(),
    }
}

/// The new memory value of float atomic `name` (`_f32` forms on the low
/// dwords), None for a name that is not one of gfx11's float DS atomics.
/// Values are compared as Rust's IEEE floats on the stored bits
/// ([`POLICY_FLOAT_COMPARE`]).
pub fn pseudocode(name: &str, tmp: u64, data: u64, data2: u64, denorm32: u32) -> Option<u64> {
    let wide = name.ends_with("_f64");
    if !wide && !name.ends_with("_f32") {
        return None;
    }
    let op = name.trim_start_matches("ds_").split('_').next()?;
    if wide {
        let (t, s, c) = (
            f64::from_bits(tmp),
            f64::from_bits(data),
            f64::from_bits(data2),
        );
        let r = match op {
            "min" => min_max(t, s, true),
            "max" => min_max(t, s, false),
            "cmpstore" => {
                if t == c {
                    s
                } else {
                    t
                }
            }
            _ => return None,
        };
        return Some(r.to_bits());
    }
    let (t, s, c) = (
        f32::from_bits(tmp as u32),
        f32::from_bits(data as u32),
        f32::from_bits(data2 as u32),
    );
    let r = match op {
        "add" => add_f32(t, s, denorm32),
        "min" => min_max(t, s, true),
        "max" => min_max(t, s, false),
        "cmpstore" => {
            if t == c {
                s
            } else {
                t
            }
        }
        _ => return None,
    };
    Some(u64::from(r.to_bits()))
}

/// A float type's view for [`min_max`].
trait Float: Copy + PartialOrd {
    fn is_nan(self) -> bool;
}
impl Float for f32 {
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}
impl Float for f64 {
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}

/// `src < tmp ? src : tmp` (min) or `src > tmp ? src : tmp` (max), a NaN
/// losing to a number ([`POLICY_FMINMAX_NAN`]); equal values (±0 included)
/// keep `tmp` ([`POLICY_FMINMAX_ZERO`]). The answer is always one of the
/// two operands, bit for bit.
fn min_max<F: Float>(tmp: F, src: F, min: bool) -> F {
    if tmp.is_nan() && !src.is_nan() {
        return src;
    }
    if src.is_nan() {
        return tmp;
    }
    let take = if min { src < tmp } else { src > tmp };
    if take {
        src
    } else {
        tmp
    }
}

fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `MEM.f32 += DATA.f32` under FLOAT_DENORM_MODE_32 `denorm32`
/// ([`POLICY_FADD_DENORM`], [`POLICY_FADD_RNE`], [`POLICY_FADD_NAN`]).
fn add_f32(tmp: f32, src: f32, denorm32: u32) -> f32 {
    // 0: flush in and out; 1: flush out; 2: flush in; 3: none.
    let (flush_in, flush_out) = match denorm32 {
        0 => (true, true),
        1 => (false, true),
        2 => (true, false),
        _ => (false, false),
    };
    let (a, b) = if flush_in {
        (flush(tmp), flush(src))
    } else {
        (tmp, src)
    };
    let quiet = |x: f32| f32::from_bits(x.to_bits() | 0x0040_0000);
    if a.is_nan() {
        return quiet(a);
    }
    if b.is_nan() {
        return quiet(b);
    }
    let sum = (f64::from(a) + f64::from(b)) as f32;
    if sum.is_nan() {
        return f32::from_bits(0x7fc0_0000);
    }
    if flush_out {
        flush(sum)
    } else {
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(t: u32, d: u32, mode: u32) -> u32 {
        pseudocode("ds_add_rtn_f32", u64::from(t), u64::from(d), 0, mode).unwrap() as u32
    }

    #[test]
    fn fadd_ties_go_to_even_and_denormals_follow_the_mode() {
        assert_eq!(add(0x3f80_0000, 0x3380_0000, 3), 0x3f80_0000);
        assert_eq!(add(0x3f80_0001, 0x3380_0000, 3), 0x3f80_0002);
        assert_eq!(add(1, 1, 3), 2);
        assert_eq!(add(1, 1, 0), 0);
        assert_eq!(add(0x0080_0001, 0x8080_0000, 2), 1);
        assert_eq!(add(0x0080_0001, 0x8080_0000, 1), 0);
        assert_eq!(add(0x8000_0000, 0x8000_0000, 3), 0x8000_0000);
        assert_eq!(add(0x7f80_0000, 0xff80_0000, 3), 0x7fc0_0000);
        assert_eq!(add(0x7f80_0001, 0x3f80_0000, 3), 0x7fc0_0001);
        assert_eq!(add(0x3f80_0000, 0xffc0_1234, 3), 0xffc0_1234);
        assert_eq!(add(0x7f7f_ffff, 0x7f7f_ffff, 3), 0x7f80_0000);
    }

    #[test]
    fn min_max_keep_memory_on_ties_and_lose_nans() {
        let p = |n, t: u32, d: u32| pseudocode(n, u64::from(t), u64::from(d), 0, 3).unwrap();
        assert_eq!(p("ds_min_f32", 0x7fc0_0000, 0x3f80_0000), 0x3f80_0000);
        assert_eq!(p("ds_max_f32", 0x3f80_0000, 0x7f80_0001), 0x3f80_0000);
        assert_eq!(p("ds_min_f32", 0x7fc0_0000, 0xffc0_0000), 0x7fc0_0000);
        assert_eq!(p("ds_min_f32", 0, 0x8000_0000), 0);
        assert_eq!(p("ds_max_rtn_f32", 0x8000_0000, 0), 0x8000_0000);
        assert_eq!(p("ds_max_f32", 1, 0), 1);
        let q = |n, t: f64, d: f64| pseudocode(n, t.to_bits(), d.to_bits(), 0, 3).unwrap();
        assert_eq!(q("ds_min_rtn_f64", f64::NAN, 2.0), 2.0f64.to_bits());
        assert_eq!(q("ds_max_f64", -1.0, -2.0), (-1.0f64).to_bits());
        assert_eq!(pseudocode("ds_add_f64", 0, 0, 0, 3), None);
    }

    #[test]
    fn cmpstore_compares_floats() {
        let p = |t: u32, s: u32, c: u32| {
            pseudocode(
                "ds_cmpstore_f32",
                u64::from(t),
                u64::from(s),
                u64::from(c),
                0,
            )
            .unwrap()
        };
        assert_eq!(p(0, 7, 0x8000_0000), 7);
        assert_eq!(p(0x7fc0_0000, 7, 0x7fc0_0000), 0x7fc0_0000);
        assert_eq!(p(1, 7, 1), 7);
        assert_eq!(p(1, 7, 0), 1);
        let nan = 0x7ff8_0000_0000_0000u64;
        assert_eq!(pseudocode("ds_cmpstore_rtn_f64", nan, 9, nan, 3), Some(nan));
    }
}
