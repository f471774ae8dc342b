//! Print decoded instructions in LLVM's AMDGPU assembler syntax, so the
//! decoder's every field can be compared with `llvm-objdump -d` and
//! `llvm-mc -show-encoding` (tests/it/emu_decode_llvm.rs). Also used in error
//! messages.

use super::decode::{
    Ds, DsKind, Flat, FlatKind, HwregOp, Inst, P3Inst, P3Kind, Sop1, Sop2, Sopc, Sopk, Src, VEnc,
    VOp, VopdHalf, VopdOp,
};

pub(crate) fn sreg(r: u8, dwords: u32, _wave64: bool) -> String {
    match (r, dwords) {
        (106, 1) => "vcc_lo".into(),
        (106, 2) => "vcc".into(),
        (107, _) => "vcc_hi".into(),
        (124, _) => "null".into(),
        (125, _) => "m0".into(),
        (126, 1) => "exec_lo".into(),
        (126, 2) => "exec".into(),
        (127, _) => "exec_hi".into(),
        (r, 1) => format!("s{r}"),
        (r, n) => format!("s[{}:{}]", r, r as u32 + n - 1),
    }
}

fn vreg(r: u8, dwords: u32) -> String {
    if dwords == 1 {
        format!("v{r}")
    } else {
        format!("v[{}:{}]", r, r as u32 + dwords - 1)
    }
}

fn konst(c: u8) -> String {
    match c {
        128..=192 => format!("{}", c - 128),
        193..=208 => format!("-{}", c - 192),
        240 => "0.5".into(),
        241 => "-0.5".into(),
        242 => "1.0".into(),
        243 => "-1.0".into(),
        244 => "2.0".into(),
        245 => "-2.0".into(),
        246 => "4.0".into(),
        247 => "-4.0".into(),
        _ => "0.15915494".into(),
    }
}

/// An operand of `dwords` 32-bit registers.
pub fn src(s: Src, dwords: u32) -> String {
    match s {
        Src::S(r) => sreg(r, dwords, false),
        Src::V(r) => vreg(r, dwords),
        // 1/(2π) in a 64-bit operand is the f64 constant, which
        // llvm-objdump-22 prints to double precision.
        Src::Const(248) if dwords == 2 => "0.15915494309189532".into(),
        Src::Const(c) => konst(c),
        Src::Lit(v) => format!("0x{v:x}"),
        Src::Scc => "src_scc".into(),
        Src::Vccz => "src_vccz".into(),
        Src::Execz => "src_execz".into(),
    }
}

/// A lane mask operand: one SGPR in wave32, a pair in wave64.
fn mask(r: u8, wave64: bool) -> String {
    sreg(r, if wave64 { 2 } else { 1 }, wave64)
}

fn waitcnt(simm: u16) -> String {
    // gfx11 s_waitcnt: expcnt 2:0, lgkmcnt 9:4, vmcnt 15:10 (SIDefines.h);
    // fields at their maximum are not printed.
    let exp = simm & 7;
    let lgkm = (simm >> 4) & 0x3f;
    let vm = (simm >> 10) & 0x3f;
    let mut parts = Vec::new();
    if vm != 0x3f {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != 7 {
        parts.push(format!("expcnt({exp})"));
    }
    if lgkm != 0x3f {
        parts.push(format!("lgkmcnt({lgkm})"));
    }
    if parts.is_empty() {
        return format!("s_waitcnt vmcnt({vm}) expcnt({exp}) lgkmcnt({lgkm})");
    }
    format!("s_waitcnt {}", parts.join(" "))
}

fn delay_alu(simm: u16) -> String {
    let id = |v: u16| -> String {
        match v {
            0 => "NO_DEP".into(),
            1..=4 => format!("VALU_DEP_{v}"),
            5..=7 => format!("TRANS32_DEP_{}", v - 4),
            8 => "FMA_ACCUM_CYCLE_1".into(),
            9..=11 => format!("SALU_CYCLE_{}", v - 8),
            _ => format!("{v}"),
        }
    };
    let skip = |v: u16| -> String {
        match v {
            0 => "SAME".into(),
            1 => "NEXT".into(),
            2..=5 => format!("SKIP_{}", v - 1),
            _ => format!("{v}"),
        }
    };
    let mut s = format!("s_delay_alu instid0({})", id(simm & 0xf));
    let (sk, id1) = ((simm >> 4) & 7, (simm >> 7) & 0xf);
    if sk != 0 {
        s.push_str(&format!(" | instskip({})", skip(sk)));
    }
    if id1 != 0 {
        s.push_str(&format!(" | instid1({})", id(id1)));
    }
    s
}

fn depctr(simm: u16) -> String {
    // gfx11 fields (SIDefines.h DepCtr): hold_cnt 7, sa_sdst 0, va_vdst 15:12,
    // va_sdst 11:9, va_ssrc 8, va_vcc 1, vm_vsrc 4:2; printed when below max.
    let f = [
        ("depctr_hold_cnt", 7, 1),
        ("depctr_sa_sdst", 0, 1),
        ("depctr_va_vdst", 12, 4),
        ("depctr_va_sdst", 9, 3),
        ("depctr_va_ssrc", 8, 1),
        ("depctr_va_vcc", 1, 1),
        ("depctr_vm_vsrc", 2, 3),
    ];
    // Bits 6:5 belong to no field: LLVM prints such a value as a number.
    if simm & 0x60 != 0 {
        return format!("s_waitcnt_depctr 0x{simm:x}");
    }
    let parts: Vec<String> = f
        .iter()
        .filter_map(|&(n, sh, w)| {
            let v = (simm >> sh) & ((1 << w) - 1);
            (v != (1 << w) - 1).then(|| format!("{n}({v})"))
        })
        .collect();
    if parts.is_empty() {
        format!("s_waitcnt_depctr 0x{simm:x}")
    } else {
        format!("s_waitcnt_depctr {}", parts.join(" "))
    }
}

pub(crate) fn sop2_widths(op: Sop2) -> (u32, u32, u32) {
    use Sop2::*;
    let d = match op {
        LshlB64 | LshrB64 | AshrI64 | AndB64 | OrB64 | XorB64 | NandB64 | NorB64 | XnorB64
        | AndNot1B64 | OrNot1B64 | BfeU64 | BfeI64 | BfmB64 | CselectB64 => 2,
        _ => 1,
    };
    (
        d,
        if op.src0_64() { 2 } else { 1 },
        if op.src1_64() { 2 } else { 1 },
    )
}

pub(crate) fn sop1_widths(op: Sop1) -> (u32, u32) {
    use Sop1::*;
    let s = if op.src0_64() { 2 } else { 1 };
    let d = match op {
        CtzI32B64 | ClzI32U64 | ClsI32I64 | Bcnt0I32B64 | Bcnt1I32B64 => 1,
        Bitset0B64 | Bitset1B64 | GetpcB64 | BitreplicateB64B32 => 2,
        _ => s,
    };
    (d, s)
}

fn valu(inst: &Inst, wave64: bool) -> String {
    use VOp::*;
    let Inst::Valu {
        op,
        vdst,
        sdst,
        src: s,
        op_sel,
        ..
    } = *inst
    else {
        return inst.mnemonic();
    };
    let name = inst.mnemonic();
    let v = |r: u8| vreg(r, 1);
    let a = |i: usize| src(s[i], 1);
    match op {
        Nop => name,
        ReadfirstlaneB32 => format!("{name} {}, {}", sreg(sdst, 1, false), a(0)),
        ReadlaneB32 => format!("{name} {}, {}, {}", sreg(vdst, 1, false), a(0), a(1)),
        // One source (the table's operand count).
        _ if op.arity() == 1 => format!("{name} {}, {}", v(vdst), a(0)),
        CndmaskB32 => {
            let m = match s[2] {
                Src::S(r) => mask(r, wave64),
                other => src(other, 1),
            };
            format!("{name} {}, {}, {}, {m}", v(vdst), a(0), a(1))
        }
        AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => {
            let cin = match s[2] {
                Src::S(r) => mask(r, wave64),
                other => src(other, 1),
            };
            format!(
                "{name} {}, {}, {}, {}, {cin}",
                v(vdst),
                mask(sdst, wave64),
                a(0),
                a(1)
            )
        }
        AddCoU32 | SubCoU32 | SubrevCoU32 => format!(
            "{name} {}, {}, {}, {}",
            v(vdst),
            mask(sdst, wave64),
            a(0),
            a(1)
        ),
        MadU64U32 | MadI64I32 => {
            format!(
                "{name} {}, {}, {}, {}, {}",
                vreg(vdst, 2),
                mask(sdst, wave64),
                a(0),
                a(1),
                src(s[2], 2)
            )
        }
        LshlrevB64 | LshrrevB64 | AshrrevI64 => {
            format!("{name} {}, {}, {}", vreg(vdst, 2), a(0), src(s[1], 2))
        }
        _ => {
            // The table's widths: one dword each but the quad SADs' wide
            // operands.
            let (sw, dw) = op.widths();
            let srcs: Vec<String> = (0..op.arity()).map(|k| src(s[k], sw[k])).collect();
            let mut out = format!("{name} {}, {}", vreg(vdst, dw), srcs.join(", "));
            if op_sel != 0 {
                out += &format!(" op_sel:[{},{}]", op_sel & 1, op_sel >> 1 & 1);
            }
            out
        }
    }
}

/// A 16-bit integer VALU instruction in LLVM's true16 syntax (`v1.l`,
/// `v2.h`; VOP3 forms also print `op_sel:[...]` when a bit is set, as
/// llvm-mc does, except v_cndmask_b16, for which LLVM 22 prints none).
fn valu16(v: &super::decode::V16, wave64: bool) -> String {
    use super::decode::{Op16, W16};
    let half = |s: Src, hi: bool| match s {
        Src::V(r) => format!("v{r}.{}", if hi { 'h' } else { 'l' }),
        other => src(other, 1),
    };
    let mut ops = Vec::new();
    match v.op {
        Op16::Cmp { cmpx: true, .. } => {}
        Op16::Cmp { .. } => ops.push(mask(v.vdst, wave64)),
        op => ops.push(match op.dst() {
            Some(W16::H) => half(Src::V(v.vdst), v.dst_hi()),
            _ => vreg(v.vdst, 1),
        }),
    }
    for (k, kind) in v.op.srcs().iter().enumerate() {
        ops.push(match (kind, v.src[k]) {
            (W16::H, s) => half(s, v.src_hi(k)),
            (W16::Mask, Src::S(r)) => mask(r, wave64),
            (_, s) => src(s, 1),
        });
    }
    let mut out = format!("{} {}", v.mnemonic(), ops.join(", "));
    let opsel = v.hi & 0xf;
    if v.enc == VEnc::E64 && opsel != 0 && v.op != Op16::CndmaskB16 {
        let n = v.op.srcs().len() + !matches!(v.op, Op16::Cmp { cmpx: true, .. }) as usize;
        let bits: Vec<String> = (0..n)
            .map(|k| {
                // The last entry is the destination's bit (op_sel[3]).
                let b = if k + 1 == n && n <= v.op.srcs().len() + 1 && k >= v.op.srcs().len() {
                    3
                } else {
                    k
                };
                (opsel >> b & 1).to_string()
            })
            .collect();
        out.push_str(&format!(" op_sel:[{}]", bits.join(",")));
    }
    if v.clamp {
        out.push_str(" clamp");
    }
    out
}

fn vopd_half(h: &VopdHalf) -> String {
    match h.op {
        VopdOp::MovB32 => format!("{} {}, {}", h.op.name(), vreg(h.vdst, 1), src(h.src0, 1)),
        _ => format!(
            "{} {}, {}, {}",
            h.op.name(),
            vreg(h.vdst, 1),
            src(h.src0, 1),
            vreg(h.vsrc1, 1)
        ),
    }
}

fn ds(d: &Ds) -> String {
    let off16 = ((d.offset1 as u32) << 8) | d.offset0 as u32;
    let single = |s: String| {
        if off16 != 0 {
            format!("{s} offset:{off16}")
        } else {
            s
        }
    };
    let pair = |s: String| {
        let mut s = s;
        if d.offset0 != 0 {
            s.push_str(&format!(" offset0:{}", d.offset0));
        }
        if d.offset1 != 0 {
            s.push_str(&format!(" offset1:{}", d.offset1));
        }
        s
    };
    let a = vreg(d.addr, 1);
    match d.kind {
        DsKind::Nop => d.name.into(),
        DsKind::Atomic { op, wide, rtn } => {
            let w = if wide { 2 } else { 1 };
            let two = op.has_data2();
            let mut s = if rtn {
                format!("{} {}, {a}, {}", d.name, vreg(d.vdst, w), vreg(d.data0, w))
            } else {
                format!("{} {a}, {}", d.name, vreg(d.data0, w))
            };
            if two {
                s.push_str(&format!(", {}", vreg(d.data1, w)));
            }
            single(s)
        }
        DsKind::Store { bytes } => single(format!(
            "{} {a}, {}",
            d.name,
            vreg(d.data0, (bytes as u32).div_ceil(4))
        )),
        DsKind::Store2 { wide, .. } => {
            let w = if wide { 2 } else { 1 };
            pair(format!(
                "{} {a}, {}, {}",
                d.name,
                vreg(d.data0, w),
                vreg(d.data1, w)
            ))
        }
        DsKind::Load { bytes, .. } => single(format!(
            "{} {}, {a}",
            d.name,
            vreg(d.vdst, (bytes as u32).div_ceil(4))
        )),
        DsKind::Load2 { wide, .. } => pair(format!(
            "{} {}, {a}",
            d.name,
            vreg(d.vdst, if wide { 4 } else { 2 })
        )),
        DsKind::Xchg2 { wide, .. } => {
            let w = if wide { 2 } else { 1 };
            pair(format!(
                "{} {}, {a}, {}, {}",
                d.name,
                vreg(d.vdst, 2 * w),
                vreg(d.data0, w),
                vreg(d.data1, w)
            ))
        }
    }
}

fn flat(f: &Flat) -> String {
    let addr = match (f.global, f.saddr) {
        (true, Some(s)) => format!("{}, {}", vreg(f.vaddr, 1), sreg(s, 2, false)),
        (true, None) => format!("{}, off", vreg(f.vaddr, 2)),
        (false, _) => vreg(f.vaddr, 2),
    };
    let mut s = match f.kind {
        FlatKind::Load { bytes, .. } => {
            let (a, rest) = addr
                .split_once(", ")
                .map(|(x, y)| (x.to_string(), format!(", {y}")))
                .unwrap_or((addr.clone(), String::new()));
            format!(
                "{} {}, {a}{rest}",
                f.name,
                vreg(f.vdst, (bytes as u32).div_ceil(4))
            )
        }
        FlatKind::Store { bytes } => {
            let d = vreg(f.vdata, (bytes as u32).div_ceil(4));
            match addr.split_once(", ") {
                Some((a, rest)) => format!("{} {a}, {d}, {rest}", f.name),
                None => format!("{} {addr}, {d}", f.name),
            }
        }
    };
    if f.offset != 0 {
        s.push_str(&format!(" offset:{}", f.offset));
    }
    s
}

/// `inst` in LLVM syntax, formatted for a wave of the given size (lane
/// masks are one SGPR in wave32, a pair in wave64).
pub fn disasm(inst: &Inst, wave64: bool) -> String {
    let name = inst.mnemonic();
    match inst {
        Inst::Sop2 { op, sdst, s0, s1 } => {
            let (d, a, b) = sop2_widths(*op);
            format!(
                "{name} {}, {}, {}",
                sreg(*sdst, d, false),
                src(*s0, a),
                src(*s1, b)
            )
        }
        Inst::Sop1 { op, sdst, s0 } => {
            let (d, a) = sop1_widths(*op);
            match op {
                Sop1::GetpcB64 => format!("{name} {}", sreg(*sdst, 2, false)),
                Sop1::SetpcB64 => format!("{name} {}", src(*s0, 2)),
                _ => format!("{name} {}, {}", sreg(*sdst, d, false), src(*s0, a)),
            }
        }
        Inst::Sopc { op, s0, s1 } => {
            let (a, b) = match op {
                Sopc::Bitcmp0B64 | Sopc::Bitcmp1B64 => (2, 1),
                Sopc::EqU64 | Sopc::LgU64 => (2, 2),
                _ => (1, 1),
            };
            format!("{name} {}, {}", src(*s0, a), src(*s1, b))
        }
        Inst::Sopk { op, sdst, simm16 } => match op {
            Sopk::Version => format!("{name} 0x{simm16:x}"),
            _ => format!("{name} {}, 0x{simm16:x}", sreg(*sdst, 1, false)),
        },
        Inst::Nop { name: n, simm16 } => sopp_text(n, *simm16).unwrap_or_else(|| (*n).to_string()),
        // llvm-objdump prints the branch offset as an unsigned 16-bit number.
        Inst::Branch { simm16, .. } => format!("{name} {}", *simm16 as u16),
        Inst::Barrier | Inst::Endpgm | Inst::EndpgmSaved => name,
        Inst::Hwreg {
            op,
            sreg: r,
            simm16,
            imm32,
        } => match op {
            HwregOp::Get => format!("{name} {}, {}", sreg(*r, 1, false), hwreg_text(*simm16)),
            HwregOp::Set => format!("{name} {}, {}", hwreg_text(*simm16), sreg(*r, 1, false)),
            HwregOp::SetImm32 => format!("{name} {}, 0x{imm32:x}", hwreg_text(*simm16)),
        },
        Inst::Call { sdst, simm16, .. } => {
            format!("{name} {}, {}", sreg(*sdst, 2, false), *simm16 as u16)
        }
        // Both operands as wide as the row's destination (an SGPR or an
        // even pair); a constant or literal source as any SOP1 source's.
        Inst::SMovrel { op, sdst, s0 } => {
            let n = op.dwords() as u32;
            format!("{name} {}, {}", sreg(*sdst, n, false), src(*s0, n))
        }
        Inst::Sendmsg { simm16 } => match simm16 {
            3 => "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)".into(),
            v => format!("s_sendmsg {v}"),
        },
        Inst::Trap { name: n, simm16 } => match *n {
            "s_code_end" | "s_endpgm_ordered_ps_done" => (*n).into(),
            "s_sendmsghalt" => match simm16 {
                3 => "s_sendmsghalt sendmsg(MSG_DEALLOC_VGPRS)".into(),
                v => format!("s_sendmsghalt {v}"),
            },
            _ => format!("{n} {simm16}"),
        },
        Inst::Smem {
            dwords,
            sdata,
            sbase,
            offset,
            soffset,
        } => {
            let base = format!(
                "{name} {}, {}",
                sreg(*sdata, *dwords as u32, false),
                sreg(*sbase, 2, false)
            );
            match (soffset, offset) {
                (None, 0) => format!("{base}, null"),
                (None, o) => format!("{base}, 0x{o:x}"),
                (Some(s), 0) => format!("{base}, {}", sreg(*s, 1, false)),
                (Some(s), o) => format!("{base}, {} offset:0x{o:x}", sreg(*s, 1, false)),
            }
        }
        Inst::Valu { .. } => valu(inst, wave64),
        Inst::Vopc {
            cmp,
            cmpx,
            enc,
            sdst,
            src0,
            src1,
        } => {
            let w = if cmp.wide { 2 } else { 1 };
            let ops = format!("{}, {}", src(*src0, w), src(*src1, w));
            match (cmpx, enc) {
                (true, _) => format!("{name} {ops}"),
                (false, VEnc::E32) => {
                    format!("{name} {}, {ops}", mask(super::decode::VCC_LO, wave64))
                }
                (false, VEnc::E64) => format!("{name} {}, {ops}", mask(*sdst, wave64)),
            }
        }
        Inst::Vopd { x, y } => format!("{} :: {}", vopd_half(x), vopd_half(y)),
        Inst::Valu16(v) => valu16(v, wave64),
        Inst::Ds(d) => ds(d),
        Inst::Flat(f) => flat(f),
        Inst::Vop3p(p) => vop3p(p, wave64),
        Inst::Unsupported(u) => format!("<unsupported: {u}>"),
    }
}

/// Special SOPP forms whose operand syntax is printed by name.
/// A `hwreg` operand as llvm-mc prints it: the register's name where
/// llvm-mc has one, the offset and size only when they are not the whole
/// register.
fn hwreg_text(simm16: u16) -> String {
    let (id, offset, size) = super::hwreg::fields(simm16);
    let name = super::hwreg::name(id);
    let reg = if name.starts_with("HW_REG_") {
        name
    } else {
        id.to_string()
    };
    if offset == 0 && size == 32 {
        format!("hwreg({reg})")
    } else {
        format!("hwreg({reg}, {offset}, {size})")
    }
}

pub fn sopp_text(name: &str, simm16: u16) -> Option<String> {
    match name {
        "s_waitcnt" => Some(waitcnt(simm16)),
        "s_delay_alu" => Some(delay_alu(simm16)),
        "s_waitcnt_depctr" => Some(depctr(simm16)),
        "s_clause"
        | "s_set_inst_prefetch_distance"
        | "s_round_mode"
        | "s_ttracedata_imm"
        | "s_wait_event" => Some(format!("{name} 0x{simm16:x}")),
        "s_nop" | "s_sleep" | "s_setprio" | "s_denorm_mode" | "s_incperflevel"
        | "s_decperflevel" => Some(format!("{name} {simm16}")),
        _ => None,
    }
}

/// The instruction in LLVM's syntax (as `llvm-objdump -d` prints it).
fn vop3p(x: &P3Inst, wave64: bool) -> String {
    let (sw, dw) = x.op.widths_in(wave64);
    let n = x.op.arity();
    let srcs: Vec<String> = (0..n).map(|k| src(x.src[k], sw[k])).collect();
    let mut out = format!("{} {}, {}", x.op.name(), vreg(x.vdst, dw), srcs.join(", "));
    let bits = |v: u8| {
        (0..n)
            .map(|k| (v >> k & 1).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let used = (1u8 << n) - 1;
    // The dot products and WMMAs take whole dwords: no op_sel printed.
    let whole = x.op.kind() != P3Kind::Packed;
    if !whole && x.op_sel & used != 0 {
        out += &format!(" op_sel:[{}]", bits(x.op_sel));
    }
    if !whole && x.op_sel_hi & used != used {
        out += &format!(" op_sel_hi:[{}]", bits(x.op_sel_hi));
    }
    if x.neg_lo & used != 0 {
        out += &format!(" neg_lo:[{}]", bits(x.neg_lo));
    }
    if x.neg_hi & used != 0 {
        out += &format!(" neg_hi:[{}]", bits(x.neg_hi));
    }
    if x.clamp {
        out += " clamp";
    }
    out
}
