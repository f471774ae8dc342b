//! Bit-field arithmetic the scalar and vector ALU semantics share.

#[inline]
pub(super) fn mask32(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1u32 << w) - 1
    }
}

#[inline]
pub(super) fn mask64(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Unsigned bit-field extract (S_BFE_U32/U64, V_BFE_U32):
/// `(S0 >> offset) & ((1 << width) - 1)`; a width of the operand's size or
/// more keeps every bit shifted down.
pub(super) fn bfe_u(x: u64, off: u32, width: u32) -> u64 {
    (x >> off) & mask64(width)
}

/// Signed bit-field extract (S_BFE_I32/I64, V_BFE_I32), from the RDNA3 ISA
/// guide's pseudocode:
/// `tmp = (S0.i >> offset) & ((1 << width) - 1); D0 = signext_from_bit(tmp, width)`.
/// The shift is arithmetic, so a field that runs past the top of the
/// register reads copies of the sign bit: the result is sign-extended from
/// where the field ends. `x` is the source already sign-extended to 64 bits;
/// width 0 gives 0.
pub(super) fn bfe_i(x: i64, off: u32, width: u32) -> i64 {
    if width == 0 {
        return 0;
    }
    let shifted = x >> off;
    if width >= 64 {
        return shifted;
    }
    let t = shifted as u64 & mask64(width);
    if t >> (width - 1) & 1 == 1 {
        (t | !mask64(width)) as i64
    } else {
        t as i64
    }
}
