//! Text ⇄ bits in LLVM's AMDGPU assembly syntax.
//!
//! Printing and parsing cover every opcode of every family's table. Both
//! follow llvm-mc-22 (checked in `tests/it/host_isa_llvm.rs`).
//!
//! Named policies, where dsxor deliberately differs from llvm-mc:
//!
//! * **Round-trip policy (disassembly).** dsxor prints a word only when the
//!   text it prints assembles back to exactly that word. llvm-mc's
//!   disassembler also prints words its own assembler refuses or re-encodes
//!   differently: an odd register tuple where tuples must be even
//!   (`v[5:6]/*Invalid register, operand has 'VReg_64_Align2' ...*/`), a
//!   tuple past register 255 (`v[255:256]`), the gds bit on gfx90a/gfx942/
//!   gfx950 (silently dropped), bit 16 on gfx10+ (ignored), AGPR forms of
//!   the GWS ops on gfx9, and `ds_swizzle_b32` offsets whose
//!   `swizzle(...)` text drops bits (`0xffff` prints as `swizzle(FFT,31)`,
//!   which is `0xe01f`). dsxor refuses those words and names the rule, so a
//!   disassembly never hides a set bit.
//! * **Syntax subset (assembly).** dsxor reads LLVM's syntax as LLVM
//!   prints it: case-insensitive mnemonic (LLVM 22's names, not the old
//!   aliases such as gfx11's `ds_write_b32`); registers `v5`, `v[5]`,
//!   `v[5:5]`, `v[4:5]` (and `a…` forms); `offset:N`, or `offset0:N
//!   offset1:M` for the two-address ops, or for `ds_swizzle_b32` also
//!   `offset:swizzle(MODE,…)` in the forms LLVM prints; integers decimal,
//!   `0x` hex, `0b` binary or leading-`0` octal (as LLVM's lexer reads
//!   them); then `gds`; comments after `;` or `//`. Expressions
//!   (`offset:1+2`), register lists (`[v4,v5]`), symbols and aliases, which
//!   llvm-mc also accepts, are refused: everything dsxor accepts, llvm-mc
//!   accepts with the same encoding (tested on mangled lines).

use super::{
    op_by_name, op_info, AccForm, DsInst, Family, Field, GdsForm, IsaError, OffsetForm, OpInfo,
    Target,
};

/// The XOR family of DSInstructions.td, the instructions dsxor exists for
/// (`parse` reads every mnemonic of the target's table).
pub const XOR_FAMILY: [&str; 4] = [
    "ds_xor_b32",
    "ds_xor_rtn_b32",
    "ds_xor_b64",
    "ds_xor_rtn_b64",
];

/// LLVM's comment column for `-show-encoding` (MCAsmInfo::CommentColumn).
const COMMENT_COLUMN: usize = 40;

/// A register operand as written: `v5`, `a[4:5]`.
fn reg_text(agpr: bool, reg: u8, dwords: u8) -> String {
    let prefix = if agpr { 'a' } else { 'v' };
    if dwords <= 1 {
        format!("{prefix}{reg}")
    } else {
        let hi = u32::from(reg) + u32::from(dwords) - 1;
        format!("{prefix}[{reg}:{hi}]")
    }
}

/// The canonical LLVM text of a decoded DS instruction, or why it has none
/// (round-trip policy, module docs).
pub fn print(family: Family, inst: &DsInst) -> Result<String, IsaError> {
    render(family, inst, true)
}

/// LLVM's text of `inst`; with `round_trip`, refuse a swizzle offset whose
/// text does not assemble back to it. The assembler prints without that
/// check, as llvm-mc does (`offset:0xFFFF` is echoed as `swizzle(FFT,31)`).
fn render(family: Family, inst: &DsInst, round_trip: bool) -> Result<String, IsaError> {
    let word = inst.encode(family)?;
    let invalid = |why: String| IsaError::InvalidEncoding { word, why };
    let info = op_info(family, inst.op).ok_or(IsaError::UnknownOpcode {
        family,
        op: inst.op,
    })?;
    for field in [Field::Addr, Field::Data0, Field::Data1, Field::Vdst] {
        if info.operand(field).is_none() && inst.field(field) != 0 {
            return Err(invalid(format!(
                "{} has no {} operand but the field holds {}",
                info.name,
                field.name(),
                inst.field(field)
            )));
        }
    }
    match (info.gds, inst.gds) {
        (GdsForm::Required, false) => {
            return Err(invalid(format!("{} requires the gds bit", info.name)))
        }
        (GdsForm::NotAllowed, true) => {
            return Err(invalid(format!("{} on {family} cannot set gds", info.name)))
        }
        (GdsForm::Ignored, true) => {
            return Err(invalid(format!(
                "the gds bit is set but {family} has no GDS (llvm-mc drops the bit)"
            )))
        }
        _ => {}
    }
    let acc_mask = match (info.acc, inst.acc) {
        (_, false) => 0,
        // gfx9's decoder takes acc on the GWS ops (`ds_gws_init a10 gds`),
        // its assembler does not: round-trip policy.
        (AccForm::Fields(_), true) if !family.has_agprs() => {
            return Err(IsaError::NoAgprs {
                family,
                what: format!("the acc bit of {}", info.name),
            })
        }
        (AccForm::Fields(mask), true) => mask,
        (AccForm::None, true) => {
            return Err(invalid(format!(
                "the acc bit is set but {} has no AGPR form on {family}",
                info.name
            )))
        }
    };
    let mut operands = Vec::with_capacity(info.operands.len());
    for o in info.operands {
        let reg = inst.field(o.field);
        let agpr = acc_mask & o.field.mask_bit() != 0;
        let text = reg_text(agpr, reg, o.dwords);
        if u32::from(reg) + u32::from(o.dwords) > 256 && !family.tuples_may_end_past_v255() {
            return Err(IsaError::RegisterRange {
                operand: o.field.name(),
                reg: text,
            });
        }
        if o.even && reg % 2 == 1 {
            return Err(IsaError::OddTuple {
                family,
                operand: o.field.name(),
                reg: text,
            });
        }
        operands.push(text);
    }
    let mut out = String::from(info.name);
    if !operands.is_empty() {
        out.push(' ');
        out.push_str(&operands.join(", "));
    }
    match info.offset {
        OffsetForm::NoOffset => {
            if inst.offset() != 0 {
                return Err(invalid(format!(
                    "{} has no offset but the offset bits are set",
                    info.name
                )));
            }
        }
        OffsetForm::Single => {
            if inst.offset() != 0 {
                out.push_str(&format!(" offset:{}", inst.offset()));
            }
        }
        OffsetForm::Pair => {
            if inst.offset0 != 0 {
                out.push_str(&format!(" offset0:{}", inst.offset0));
            }
            if inst.offset1 != 0 {
                out.push_str(&format!(" offset1:{}", inst.offset1));
            }
        }
        OffsetForm::Swizzle => {
            if inst.offset() != 0 {
                let text = swizzle_text(inst.offset());
                // printSwizzle drops bits (FFT and ROTATE ignore most of
                // them, BITMASK_PERM strings merge and/or/xor combinations):
                // round-trip policy.
                let back = swizzle_value(&text);
                if round_trip && back != Some(inst.offset()) {
                    return Err(invalid(format!(
                        "llvm-mc prints swizzle offset {:#06x} as `{text}`, which assembles to {}",
                        inst.offset(),
                        back.map_or("nothing".to_owned(), |v| format!("{v:#06x}"))
                    )));
                }
                out.push_str(" offset:");
                out.push_str(&text);
            }
        }
    }
    if inst.gds && info.gds != GdsForm::Ignored {
        out.push_str(" gds");
    }
    Ok(out)
}

/// The `ds_swizzle_b32` offset as LLVM prints it: a transcription of
/// AMDGPUInstPrinter::printSwizzle and printSwizzleBitmask
/// (llvm/lib/Target/AMDGPU/MCTargetDesc/AMDGPUInstPrinter.cpp), with the
/// constants of `llvm::AMDGPU::Swizzle` (SIDefines.h). Every family here is
/// gfx9+, so the FFT and ROTATE modes always apply.
fn swizzle_text(imm: u16) -> String {
    const QUAD_PERM_ENC: u16 = 0x8000;
    const QUAD_PERM_ENC_MASK: u16 = 0xff00;
    const BITMASK_PERM_ENC: u16 = 0x0000;
    const BITMASK_PERM_ENC_MASK: u16 = 0x8000;
    const ROTATE_MODE_LO: u16 = 0xc000;
    const FFT_MODE_LO: u16 = 0xe000;
    const FFT_SWIZZLE_MASK: u16 = 0x1f;
    const ROTATE_DIR_SHIFT: u16 = 10;
    const ROTATE_DIR_MASK: u16 = 0x1;
    const ROTATE_SIZE_SHIFT: u16 = 5;
    const ROTATE_SIZE_MASK: u16 = 0x1f;
    const LANE_MASK: u16 = 0x3;
    const LANE_SHIFT: u16 = 2;
    const BITMASK_MASK: u16 = 0x1f;
    const BITMASK_MAX: u16 = BITMASK_MASK;
    const BITMASK_WIDTH: u16 = 5;
    const BITMASK_AND_SHIFT: u16 = 0;
    const BITMASK_OR_SHIFT: u16 = 5;
    const BITMASK_XOR_SHIFT: u16 = 10;

    if imm >= ROTATE_MODE_LO {
        return if imm >= FFT_MODE_LO {
            format!("swizzle(FFT,{})", imm & FFT_SWIZZLE_MASK)
        } else {
            format!(
                "swizzle(ROTATE,{},{})",
                (imm >> ROTATE_DIR_SHIFT) & ROTATE_DIR_MASK,
                (imm >> ROTATE_SIZE_SHIFT) & ROTATE_SIZE_MASK
            )
        };
    }
    if imm & QUAD_PERM_ENC_MASK == QUAD_PERM_ENC {
        let lanes: Vec<String> = (0..4)
            .map(|i| ((imm >> (LANE_SHIFT * i)) & LANE_MASK).to_string())
            .collect();
        return format!("swizzle(QUAD_PERM,{})", lanes.join(","));
    }
    if imm & BITMASK_PERM_ENC_MASK == BITMASK_PERM_ENC {
        let and_mask = (imm >> BITMASK_AND_SHIFT) & BITMASK_MASK;
        let or_mask = (imm >> BITMASK_OR_SHIFT) & BITMASK_MASK;
        let xor_mask = (imm >> BITMASK_XOR_SHIFT) & BITMASK_MASK;
        if and_mask == BITMASK_MAX && or_mask == 0 && xor_mask.count_ones() == 1 {
            return format!("swizzle(SWAP,{xor_mask})");
        }
        if and_mask == BITMASK_MAX
            && or_mask == 0
            && xor_mask > 0
            && (xor_mask + 1).is_power_of_two()
        {
            return format!("swizzle(REVERSE,{})", xor_mask + 1);
        }
        let group_size = BITMASK_MAX - and_mask + 1;
        if group_size > 1 && group_size.is_power_of_two() && or_mask < group_size && xor_mask == 0 {
            return format!("swizzle(BROADCAST,{group_size},{or_mask})");
        }
        let probe0 = (or_mask) ^ xor_mask;
        let probe1 = ((BITMASK_MASK & and_mask) | or_mask) ^ xor_mask;
        let mut bits = String::with_capacity(BITMASK_WIDTH as usize);
        for i in (0..BITMASK_WIDTH).rev() {
            let mask = 1 << i;
            let (p0, p1) = (probe0 & mask, probe1 & mask);
            bits.push(match (p0 == p1, p0 == 0) {
                (true, true) => '0',
                (true, false) => '1',
                (false, true) => 'p',
                (false, false) => 'i',
            });
        }
        return format!("swizzle(BITMASK_PERM,\"{bits}\")");
    }
    // 0x8100..=0xbfff: neither mode; LLVM prints the plain decimal value.
    imm.to_string()
}

/// The offset a printed swizzle operand (`swizzle(...)` or a number)
/// assembles to, as `parse_swizzle` reads it.
fn swizzle_value(text: &str) -> Option<u16> {
    let mut c = Cursor { text, pos: 0 };
    if c.eat("swizzle") {
        parse_swizzle(&mut c, text).ok()
    } else {
        parse_int(text).and_then(|v| u16::try_from(v).ok())
    }
}

/// A cursor over one line of assembly.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }
    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn at_end(&self) -> bool {
        self.rest().is_empty()
    }
    /// A run of ASCII alphanumerics (a number as the lexer sees it).
    fn word(&mut self) -> &'a str {
        let rest = self.rest();
        let n = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.pos += n;
        rest.get(..n).unwrap_or("")
    }
}

/// An integer as LLVM's assembler lexer reads it: `0x` hex, `0b` binary,
/// leading-`0` octal, else decimal. `None` if it is not one.
fn parse_int(s: &str) -> Option<u64> {
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// A register as written: kind (AGPR?), first and last register
/// (`lo <= hi`; both as typed, so up to `u32::MAX` before the range checks).
#[derive(Clone, Copy, Debug)]
struct Reg {
    agpr: bool,
    lo: u32,
    hi: u32,
}

impl Reg {
    /// Width in dwords; u64 so that `v[0:4294967295]` cannot overflow.
    fn dwords(&self) -> u64 {
        u64::from(self.hi) - u64::from(self.lo) + 1
    }
    fn text(&self) -> String {
        let p = if self.agpr { 'a' } else { 'v' };
        if self.lo == self.hi {
            format!("{p}{}", self.lo)
        } else {
            format!("{p}[{}:{}]", self.lo, self.hi)
        }
    }
}

fn syntax(line: &str, why: impl Into<String>) -> IsaError {
    IsaError::Syntax {
        text: line.trim().to_owned(),
        why: why.into(),
    }
}

fn parse_reg(
    c: &mut Cursor<'_>,
    line: &str,
    operand: &'static str,
    family: Family,
) -> Result<Reg, IsaError> {
    let agpr = match c.peek() {
        Some('v') => false,
        Some('a') => true,
        _ => return Err(syntax(line, format!("expected a register for {operand}"))),
    };
    c.pos += 1;
    let number = |c: &mut Cursor<'_>| -> Result<u32, IsaError> {
        let w = c.word();
        if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax(
                line,
                format!("expected a register number for {operand}"),
            ));
        }
        // Register numbers are decimal (v010 is v10 for LLVM).
        w.parse::<u32>()
            .map_err(|_| syntax(line, format!("register number too long for {operand}")))
    };
    let (lo, hi) = if c.eat("[") {
        let lo = number(c)?;
        let hi = if c.eat(":") { number(c)? } else { lo };
        if !c.eat("]") {
            return Err(syntax(line, format!("expected `]` in {operand}")));
        }
        if hi < lo {
            return Err(syntax(
                line,
                format!("register range {lo}:{hi} is reversed in {operand}"),
            ));
        }
        (lo, hi)
    } else {
        let lo = number(c)?;
        (lo, lo)
    };
    let reg = Reg { agpr, lo, hi };
    let past = if lo < hi && family.tuples_may_end_past_v255() {
        lo
    } else {
        hi
    };
    if past > 255 {
        return Err(IsaError::RegisterRange {
            operand,
            reg: reg.text(),
        });
    }
    Ok(reg)
}

/// Strip a trailing `;` or `//` comment.
fn strip_comment(line: &str) -> &str {
    let cut = [line.find(';'), line.find("//")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    line.get(..cut).unwrap_or(line)
}

/// Parse one DS instruction of `target`'s table, applying llvm-mc's
/// verdicts (offset ranges, gds, AGPRs, tuple alignment, register range).
pub fn parse(target: Target, line: &str) -> Result<DsInst, IsaError> {
    let family = target.family;
    let body = strip_comment(line);
    let mut c = Cursor { text: body, pos: 0 };
    c.skip_ws();
    let mnemonic = c.word().to_ascii_lowercase();
    if mnemonic.is_empty() {
        return Err(syntax(line, "expected a mnemonic"));
    }
    let info: &OpInfo = op_by_name(family, &mnemonic).ok_or_else(|| IsaError::UnknownMnemonic {
        mnemonic: mnemonic.clone(),
        target: target.name,
    })?;
    let mut inst = DsInst {
        op: info.op,
        ..DsInst::default()
    };
    if !c.at_end() && !c.rest().starts_with(char::is_whitespace) {
        return Err(syntax(line, "expected whitespace after the mnemonic"));
    }
    let mut regs = Vec::with_capacity(info.operands.len());
    for (i, o) in info.operands.iter().enumerate() {
        c.skip_ws();
        if i > 0 && !c.eat(",") {
            return Err(syntax(
                line,
                format!("expected `,` before {}", o.field.name()),
            ));
        }
        c.skip_ws();
        let reg = parse_reg(&mut c, line, o.field.name(), family)?;
        if reg.dwords() != u64::from(o.dwords) {
            let expected = if o.dwords == 1 {
                "one register (v5)".to_owned()
            } else {
                format!("a {}-register tuple (v[N:N+{}])", o.dwords, o.dwords - 1)
            };
            return Err(IsaError::OperandWidth {
                mnemonic: info.name,
                operand: o.field.name(),
                expected,
                reg: reg.text(),
            });
        }
        regs.push((o.field, reg));
    }
    parse_modifiers(&mut c, line, target, info, &mut inst)?;

    // AGPRs: only in the fields the opcode's AGPR form covers (data and
    // vdst; never addr), all of them or none, on a family with DS AGPRs.
    let acc_mask = match info.acc {
        AccForm::Fields(mask) => mask,
        AccForm::None => 0,
    };
    for (field, reg) in &regs {
        if !reg.agpr {
            continue;
        }
        // An AGPR in the addr field only where the AGPR form covers it (the
        // GWS ops on gfx90a+: `ds_gws_init a42 gds`).
        if *field == Field::Addr && acc_mask & field.mask_bit() == 0 {
            return Err(IsaError::AddrNotVgpr { reg: reg.text() });
        }
        if !family.has_agprs() {
            return Err(IsaError::NoAgprs {
                family,
                what: reg.text(),
            });
        }
        if acc_mask == 0 {
            return Err(IsaError::NoAgprs {
                family,
                what: format!("{} ({} has no AGPR form)", reg.text(), info.name),
            });
        }
    }
    let in_mask: Vec<&(Field, Reg)> = regs
        .iter()
        .filter(|(f, _)| acc_mask & f.mask_bit() != 0)
        .collect();
    let any_agpr = regs.iter().any(|(_, r)| r.agpr);
    let all_mask_agpr = !in_mask.is_empty() && in_mask.iter().all(|(_, r)| r.agpr);
    let stray = regs
        .iter()
        .any(|(f, r)| r.agpr && acc_mask & f.mask_bit() == 0);
    if any_agpr && (!all_mask_agpr || stray) {
        let all: Vec<String> = regs
            .iter()
            .filter(|(f, _)| *f != Field::Addr || acc_mask & f.mask_bit() != 0)
            .map(|(f, r)| format!("{} {}", f.name(), r.text()))
            .collect();
        return Err(IsaError::MixedAgprVgpr {
            what: all.join(", "),
        });
    }
    inst.acc = any_agpr;
    for (field, reg) in &regs {
        let even = info.operand(*field).is_some_and(|o| o.even);
        if even && reg.lo % 2 == 1 {
            return Err(IsaError::OddTuple {
                family,
                operand: field.name(),
                reg: reg.text(),
            });
        }
        // `parse_reg` checked lo <= 255, so it fits a byte.
        inst.set_field(*field, u8::try_from(reg.lo).unwrap_or(u8::MAX));
    }
    Ok(inst)
}

/// An unsigned integer operand value (`offset:N`), `max` inclusive.
fn parse_value(c: &mut Cursor<'_>, line: &str, max: u64) -> Result<u64, IsaError> {
    c.skip_ws();
    if c.eat("-") {
        let v = c.word();
        return Err(IsaError::OffsetRange {
            offset: format!("-{v}"),
            max,
        });
    }
    let v = c.word();
    let n = parse_int(v).ok_or_else(|| syntax(line, format!("`{v}` is not an integer")))?;
    if n > max {
        return Err(IsaError::OffsetRange {
            offset: v.to_owned(),
            max,
        });
    }
    Ok(n)
}

/// `NAME` `:` after a modifier keyword.
fn expect_colon(c: &mut Cursor<'_>, line: &str, name: &str) -> Result<(), IsaError> {
    c.skip_ws();
    if c.eat(":") {
        Ok(())
    } else {
        Err(syntax(line, format!("expected `:` after {name}")))
    }
}

/// The modifiers after the operands: the offset in the opcode's form, then
/// `gds`, each at most once and in that order (llvm-mc refuses
/// `gds offset:4` and repeats).
fn parse_modifiers(
    c: &mut Cursor<'_>,
    line: &str,
    target: Target,
    info: &OpInfo,
    inst: &mut DsInst,
) -> Result<(), IsaError> {
    let (mut offset, mut offset0, mut offset1) = (false, false, false);
    loop {
        let before = c.pos;
        c.skip_ws();
        if c.at_end() {
            break;
        }
        if c.pos == before {
            return Err(syntax(line, format!("unexpected `{}`", c.rest().trim())));
        }
        let word = c.word();
        let repeated = || {
            syntax(
                line,
                format!("`{word}` repeated or out of order (LLVM takes the offset, then `gds`, once each)"),
            )
        };
        match (word, info.offset) {
            ("offset", OffsetForm::Single | OffsetForm::Swizzle) => {
                if offset || inst.gds {
                    return Err(repeated());
                }
                expect_colon(c, line, "offset")?;
                c.skip_ws();
                let n = if info.offset == OffsetForm::Swizzle && c.rest().starts_with("swizzle") {
                    c.word();
                    parse_swizzle(c, line)?
                } else {
                    // Checked against u16::MAX, so the cast cannot truncate.
                    parse_value(c, line, u64::from(u16::MAX))? as u16
                };
                inst.set_offset(n);
                offset = true;
            }
            ("offset0", OffsetForm::Pair) => {
                if offset0 || offset1 || inst.gds {
                    return Err(repeated());
                }
                expect_colon(c, line, "offset0")?;
                inst.offset0 = parse_value(c, line, u64::from(u8::MAX))? as u8;
                offset0 = true;
            }
            ("offset1", OffsetForm::Pair) => {
                if offset1 || inst.gds {
                    return Err(repeated());
                }
                expect_colon(c, line, "offset1")?;
                inst.offset1 = parse_value(c, line, u64::from(u8::MAX))? as u8;
                offset1 = true;
            }
            ("offset" | "offset0" | "offset1", _) => {
                return Err(syntax(
                    line,
                    format!(
                        "{} takes no `{word}` (its offset form is {:?})",
                        info.name, info.offset
                    ),
                ))
            }
            ("gds", _) => {
                if inst.gds {
                    return Err(repeated());
                }
                match info.gds {
                    // The GWS ops keep their gds bit even on gfx90a+ CDNA
                    // (llvm-mc-22: `ds_gws_init v1 gds` assembles on gfx90a).
                    GdsForm::Required => inst.gds = true,
                    GdsForm::Optional if target.family.has_gds() => inst.gds = true,
                    GdsForm::NotAllowed if target.family.has_gds() => {
                        return Err(syntax(line, format!("{} takes no `gds`", info.name)))
                    }
                    _ => {
                        return Err(IsaError::NoGds {
                            target: target.name,
                        })
                    }
                }
            }
            ("", _) => return Err(syntax(line, format!("unexpected `{}`", c.rest().trim()))),
            (other, _) => return Err(syntax(line, format!("unknown modifier `{other}`"))),
        }
    }
    if info.gds == GdsForm::Required && !inst.gds {
        return Err(syntax(line, format!("{} requires `gds`", info.name)));
    }
    Ok(())
}

/// The `swizzle(...)` macro of `ds_swizzle_b32`, in the forms LLVM prints
/// (AMDGPUAsmParser::parseSwizzleMacro is the inverse of printSwizzle, see
/// `swizzle_text`): QUAD_PERM,l0,l1,l2,l3 · BITMASK_PERM,"ppppp" · SWAP,m ·
/// REVERSE,g · BROADCAST,g,l · FFT,n · ROTATE,dir,size.
fn parse_swizzle(c: &mut Cursor<'_>, line: &str) -> Result<u16, IsaError> {
    let bad = |why: &str| syntax(line, format!("swizzle: {why}"));
    c.skip_ws();
    if !c.eat("(") {
        return Err(bad("expected `(`"));
    }
    c.skip_ws();
    let mode = c.word().to_owned();
    let mut args: Vec<u64> = Vec::new();
    let mut mask: Option<String> = None;
    loop {
        c.skip_ws();
        if c.eat(")") {
            break;
        }
        if !c.eat(",") {
            return Err(bad("expected `,` or `)`"));
        }
        c.skip_ws();
        if c.eat("\"") {
            let rest = c.rest();
            let end = rest.find('"').ok_or_else(|| bad("unterminated string"))?;
            mask = Some(rest.get(..end).unwrap_or("").to_owned());
            c.pos += end + 1;
        } else {
            let v = c.word();
            args.push(parse_int(v).ok_or_else(|| bad("expected an integer"))?);
        }
    }
    let pow2 = |v: u64, lo: u64, hi: u64| v.is_power_of_two() && (lo..=hi).contains(&v);
    let imm: u64 = match (mode.as_str(), args.as_slice(), &mask) {
        ("QUAD_PERM", [a, b, cc, d], None) if [a, b, cc, d].iter().all(|&&l| l <= 3) => {
            0x8000 | a | b << 2 | cc << 4 | d << 6
        }
        ("SWAP", [m], None) if pow2(*m, 1, 16) => 0x1f | m << 10,
        ("REVERSE", [g], None) if pow2(*g, 2, 32) => 0x1f | (g - 1) << 10,
        ("BROADCAST", [g, l], None) if pow2(*g, 2, 32) && l < g => (32 - g) | l << 5,
        ("FFT", [n], None) if *n <= 31 => 0xe000 | n,
        ("ROTATE", [dir, size], None) if *dir <= 1 && *size <= 31 => 0xc000 | dir << 10 | size << 5,
        ("BITMASK_PERM", [], Some(m)) if m.len() == 5 => {
            let (mut and, mut or, mut xor) = (0u64, 0u64, 0u64);
            for (i, ch) in m.chars().enumerate() {
                let bit = 1 << (4 - i);
                match ch {
                    '0' => {}
                    '1' => or |= bit,
                    'p' => and |= bit,
                    'i' => {
                        and |= bit;
                        xor |= bit
                    }
                    _ => return Err(bad("BITMASK_PERM takes 5 of 0 1 p i")),
                }
            }
            and | or << 5 | xor << 10
        }
        _ => {
            return Err(bad(&format!(
                "`{mode}` with these arguments is not a form dsxor reads"
            )))
        }
    };
    u16::try_from(imm).map_err(|_| bad("value out of range"))
}

/// One assembled line: the instruction, its word, its canonical text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmLine {
    /// The instruction's fields.
    pub inst: DsInst,
    /// Its 64-bit word in the target's layout.
    pub word: u64,
    /// LLVM's canonical text of it (what llvm-mc echoes).
    pub text: String,
}

impl AsmLine {
    /// The line as `llvm-mc -show-encoding` prints it (without its leading
    /// tab): canonical text padded to the comment column, then the bytes.
    pub fn show_encoding(&self) -> String {
        let pad = COMMENT_COLUMN.saturating_sub(self.text.len()).max(1);
        format!(
            "{}{}; encoding: {}",
            self.text,
            " ".repeat(pad),
            format_bytes(self.word)
        )
    }
}

/// `dsxor asm` for one line: parse, validate, encode, print canonically.
pub fn assemble_line(target: Target, line: &str) -> Result<AsmLine, IsaError> {
    let inst = parse(target, line)?;
    let word = inst.encode(target.family)?;
    let text = render(target.family, &inst, false)?;
    Ok(AsmLine { inst, word, text })
}

/// `dsxor disasm` for one line: an llvm-mc byte list to canonical text.
pub fn disassemble_line(target: Target, line: &str) -> Result<String, IsaError> {
    let word = parse_bytes(line)?;
    let inst = DsInst::decode(target.family, word)?;
    print(target.family, &inst)
}

/// llvm-mc's byte list of a 64-bit word: `[0x00,0x00,0xac,0xd9,...]`,
/// least significant byte first.
pub fn format_bytes(word: u64) -> String {
    let bytes: Vec<String> = word
        .to_le_bytes()
        .iter()
        .map(|b| format!("0x{b:02x}"))
        .collect();
    format!("[{}]", bytes.join(","))
}

/// Read an 8-byte llvm-mc byte list (`[0x00,0x00,0xac,0xd9,0x01,0x02,0x00,0x05]`;
/// brackets optional, commas or spaces between bytes, hex `0x..` or decimal).
pub fn parse_bytes(line: &str) -> Result<u64, IsaError> {
    let body = strip_comment(line).trim();
    let err = |why: String| IsaError::ByteList {
        text: body.to_owned(),
        why,
    };
    let inner = body.strip_prefix('[').unwrap_or(body);
    let inner = match inner.strip_suffix(']') {
        Some(i) => i,
        None if body.starts_with('[') => return Err(err("missing `]`".to_owned())),
        None => inner,
    };
    let mut bytes = Vec::with_capacity(8);
    for tok in inner
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
    {
        let v = parse_int(tok).ok_or_else(|| err(format!("`{tok}` is not a byte")))?;
        let b = u8::try_from(v).map_err(|_| err(format!("`{tok}` does not fit a byte")))?;
        bytes.push(b);
    }
    let arr: [u8; 8] = bytes
        .as_slice()
        .try_into()
        .map_err(|_| err(format!("a DS instruction is 8 bytes, got {}", bytes.len())))?;
    Ok(u64::from_le_bytes(arr))
}
