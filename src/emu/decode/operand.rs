//! The operands every encoding shares: a source operand as its 8/9-bit
//! field encodes it ([`Src`]), the register codes, the inline constants'
//! values, and the reading of scalar source and destination fields.

/// A scalar or vector source operand, as the 8/9-bit source field encodes it
/// (RDNA3 ISA guide §"Scalar/vector operand encoding"; LLVM SIDefines.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// SGPR file index: 0–105 SGPRs, 106/107 vcc_lo/hi, 124 null (reads 0),
    /// 125 m0, 126/127 exec_lo/hi.
    S(u8),
    /// VGPR number (source field 256–511).
    V(u8),
    /// Inline constant, raw code 128–208 (integers) or 240–248 (floats).
    Const(u8),
    /// 32-bit literal (code 255) that follows the instruction.
    Lit(u32),
    /// src_vccz (251), src_execz (252), src_scc (253).
    Vccz,
    Execz,
    Scc,
}

impl Src {
    /// The 9-bit source field this operand was decoded from (VGPRs from
    /// 256; a literal's is 255), the inverse of the decoder's mapping. An
    /// instruction whose pseudocode reads a "raw value from instruction"
    /// reads this.
    pub fn code(self) -> u16 {
        match self {
            Src::S(r) => r as u16,
            Src::V(r) => 256 + r as u16,
            Src::Const(c) => c as u16,
            Src::Lit(_) => 255,
            Src::Vccz => 251,
            Src::Execz => 252,
            Src::Scc => 253,
        }
    }
}

pub const VCC_LO: u8 = 106;
pub const NULL: u8 = 124;
pub const M0: u8 = 125;
pub const EXEC_LO: u8 = 126;

/// The 32-bit value of an inline constant (code 128–208, 240–248).
pub fn inline_const32(code: u8) -> u32 {
    match code {
        128..=192 => (code - 128) as u32,
        193..=208 => (-((code - 192) as i32)) as u32,
        // f32 bit patterns of 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2π).
        240 => 0x3f00_0000,
        241 => 0xbf00_0000,
        242 => 0x3f80_0000,
        243 => 0xbf80_0000,
        244 => 0x4000_0000,
        245 => 0xc000_0000,
        246 => 0x4080_0000,
        247 => 0xc080_0000,
        248 => 0x3e22_f983,
        _ => 0,
    }
}

/// The 64-bit value of an inline constant for a 64-bit operand: integers
/// sign-extend, floats are the f64 bit patterns (RDNA3 ISA guide
/// §"Inline constants").
pub fn inline_const64(code: u8) -> u64 {
    match code {
        128..=208 => inline_const32(code) as i32 as i64 as u64,
        240 => 0x3fe0_0000_0000_0000,
        241 => 0xbfe0_0000_0000_0000,
        242 => 0x3ff0_0000_0000_0000,
        243 => 0xbff0_0000_0000_0000,
        244 => 0x4000_0000_0000_0000,
        245 => 0xc000_0000_0000_0000,
        246 => 0x4010_0000_0000_0000,
        247 => 0xc010_0000_0000_0000,
        248 => 0x3fc4_5f30_6dc9_c882,
        _ => 0,
    }
}

pub(super) fn src_scalar(
    code: u32,
    lit: &mut Option<u32>,
    next: Option<u32>,
) -> Result<Src, String> {
    let c = code as u8;
    Ok(match code {
        0..=105 | 106 | 107 | 124 | 125 | 126 | 127 => Src::S(c),
        128..=208 | 240..=248 => Src::Const(c),
        251 => Src::Vccz,
        252 => Src::Execz,
        253 => Src::Scc,
        255 => {
            let v = next.ok_or_else(|| "literal operand past the end of .text".to_string())?;
            *lit = Some(v);
            Src::Lit(v)
        }
        256..=511 => Src::V((code - 256) as u8),
        108..=123 => {
            return Err(format!(
                "operand ttmp{} (trap temporaries) is not modelled",
                code - 108
            ))
        }
        235..=238 => return Err(format!("aperture operand (code {code}) is not modelled")),
        233 | 234 | 250 => return Err("DPP operand is not modelled".to_string()),
        254 => return Err("lds_direct operand is not modelled".to_string()),
        _ => return Err(format!("reserved operand code {code}")),
    })
}

pub(super) fn sdst_ok(code: u32) -> Result<u8, String> {
    match code {
        0..=107 | 124..=127 => Ok(code as u8),
        _ => Err(format!("scalar destination code {code} is not modelled")),
    }
}

/// Read ssrc fields that may use a literal.
pub(super) fn scalar_srcs(w: &[u32], codes: &[u32]) -> Result<(Vec<Src>, usize), String> {
    let mut lit = None;
    let next = w.get(1).copied();
    let mut v = Vec::with_capacity(codes.len());
    for &c in codes {
        if c >= 256 {
            return Err("VGPR in a scalar operand".into());
        }
        v.push(src_scalar(c, &mut lit, next)?);
    }
    Ok((v, if lit.is_some() { 2 } else { 1 }))
}
