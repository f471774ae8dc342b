#!/usr/bin/env python3
"""Regenerate src/isa/table.rs from llvm-mc (LLVM 22).

How the table is made: for each family's representative target, every
opcode 0..255 is disassembled with each register field set to a distinct
value (addr=10, data0=20, data1=30, vdst=40) or zero (all 16 subsets), with
offset0=1/offset1=2, with and without gds, with and without acc (VI layout).
LLVM's decoder rejects a nonzero field the opcode does not have, so the
accepted subsets give the operand fields; the printed text gives the
mnemonic, operand order, widths, offset syntax, gds and AGPR behaviour.

Usage: python3 src/isa/tablegen.py   (rewrites src/isa/table.rs)
Needs llvm-mc-22 on PATH (or LLVM_MC=path).
tests/it/host_isa_llvm.rs re-checks every row against llvm-mc on each run.
"""
import json, os, re, subprocess, sys

LLVM_MC = os.environ.get("LLVM_MC", "llvm-mc-22")
TARGETS = {'gfx900': 'old', 'gfx90a': 'old', 'gfx942': 'old', 'gfx950': 'old',
           'gfx1030': 'new', 'gfx1100': 'new', 'gfx1200': 'new', 'gfx1250': 'new'}
FAM = {'gfx900': 'GFX9', 'gfx90a': 'GFX90A', 'gfx942': 'GFX942', 'gfx950': 'GFX950',
       'gfx1030': 'GFX10', 'gfx1100': 'GFX11', 'gfx1200': 'GFX12', 'gfx1250': 'GFX1250'}
FIELD = {10: 'Addr', 20: 'Data0', 30: 'Data1', 40: 'Vdst'}
BIT = {'Addr': 1, 'Data0': 2, 'Data1': 4, 'Vdst': 8}
def word(layout, op, a, d0, d1, vd, off0=0, off1=0, gds=0, acc=0, b16=0):
    if layout=='new':
        w = (0b110110<<26) | (op<<18) | (gds<<17) | (b16<<16)
    else:
        w = (0b110110<<26) | (op<<17) | (gds<<16) | (acc<<25)
    w |= off0 | (off1<<8)
    b=[w&0xff,(w>>8)&0xff,(w>>16)&0xff,(w>>24)&0xff,a,d0,d1,vd]
    return '['+','.join('0x%02x'%x for x in b)+']'
def dis(cpu, lines):
    r = subprocess.run([LLVM_MC,'-arch=amdgcn','-mcpu='+cpu,'--disassemble','-show-encoding'],input='\n'.join(lines)+'\n',capture_output=True,text=True)
    bad={int(m.group(1)) for m in re.finditer(r'<stdin>:(\d+):\d+: warning: invalid instruction encoding', r.stderr)}
    outs=[l.strip() for l in r.stdout.splitlines() if l.strip() and not l.strip().startswith('.text')]
    res=[]; it=iter(outs)
    for i in range(1,len(lines)+1):
        if i in bad: res.append(None)
        else:
            t,_,enc=next(it).partition('; encoding: ')
            res.append((t.strip(),enc.strip()))
    assert next(it,None) is None
    return res

def sweep(cpu, layout):
    """{op: [[mask, gds, acc, offsets, input, text, encoding], ...]} of every
    word llvm-mc decodes. offsets is 'both' (offset0=1, offset1=2), 'lo'
    (1, 0), 'hi' (0, 2) or 'none' (0, 0)."""
    offs = {'both': (1, 2), 'lo': (1, 0), 'hi': (0, 2), 'none': (0, 0)}
    lines = []; keys = []
    for op in range(256):
        for m in range(16):
            for g in (0, 1):
                for acc in ((0, 1) if layout == 'old' else (0,)):
                    for oname, (o0, o1) in offs.items():
                        a = 10 if m & 1 else 0; d0 = 20 if m & 2 else 0
                        d1 = 30 if m & 4 else 0; vd = 40 if m & 8 else 0
                        lines.append(word(layout, op, a, d0, d1, vd, o0, o1, g, acc))
                        keys.append((op, m, g, acc, oname, lines[-1]))
    t = {}
    for k, r in zip(keys, dis(cpu, lines)):
        if r:
            t.setdefault(k[0], []).append(list(k[1:]) + list(r))
    return t

def parse_ops(rest):
    ops = []
    for tok in re.finditer(r'\b([va])(\d+)\b|\b([va])\[(\d+):(\d+)\]', rest):
        if tok.group(1): k = tok.group(1); lo = int(tok.group(2)); w = 1
        else: k = tok.group(3); lo = int(tok.group(4)); w = int(tok.group(5)) - lo + 1
        ops.append((FIELD[lo], w, k))
    return ops

def rows_of(t):
    out = []
    for op in sorted(t):
        allrows = t[op]
        offsets = {r[3] for r in allrows}
        if 'both' in offsets: ok = 'both'
        elif offsets == {'none'}: ok = 'none'
        else: raise SystemExit(f'op {op}: partial offset support {offsets}')
        rows = [r for r in allrows if r[3] == ok]
        g0 = [r for r in rows if r[1] == 0 and r[2] == 0]
        gsel = 0 if g0 else 1
        base = [r for r in rows if r[1] == gsel and r[2] == 0]
        mx = max(r[0] for r in base)
        masks = sorted({r[0] for r in base})
        assert masks == [m for m in range(16) if m & mx == m], (op, masks)
        txt = [r for r in base if r[0] == mx][0][5]
        assert 'Invalid' not in txt, txt
        name, _, rest = txt.partition(' ')
        ops = parse_ops(rest)
        assert sum(BIT[f] for f, _, _ in ops) == mx, (op, txt)
        if ok == 'none': off = 'NoOffset'
        elif 'offset0:1 offset1:2' in rest: off = 'Pair'
        elif 'offset:swizzle' in rest: off = 'Swizzle'
        elif 'offset:513' in rest: off = 'Single'
        else: raise SystemExit('unknown offset form: ' + txt)
        if not g0: gds = 'Required'
        else:
            g1 = [r for r in rows if r[1] == 1 and r[2] == 0 and r[0] == mx]
            gds = 'NotAllowed' if not g1 else ('Optional' if ' gds' in g1[0][5] else 'Ignored')
        accok = [r for r in rows if r[2] == 1 and r[1] == gsel and 'Invalid' not in r[5]]
        if accok:
            at = [r for r in accok if r[0] == mx][0][5]
            mask = sum(BIT[f] for f, _, k in parse_ops(at.partition(' ')[2]) if k == 'a')
            acc = f'AccForm::Fields({mask:#06b})'
        else:
            acc = 'AccForm::None'
        out.append((op, name, [(f, w) for f, w, _ in ops], off, gds, acc))
    return out

def asm(cpu, lines):
    """llvm-mc's assembler on each line: its encoding string, or None."""
    r = subprocess.run([LLVM_MC, '-arch=amdgcn', '-mcpu=' + cpu, '-show-encoding'],
                       input='\n'.join(lines) + '\n', capture_output=True, text=True)
    bad = {int(m.group(1)) for m in re.finditer(r'<stdin>:(\d+):\d+: error:', r.stderr)}
    outs = [l for l in r.stdout.splitlines() if l.startswith('\t') and not l.strip().startswith('.')]
    it = iter(outs); res = []
    for i in range(1, len(lines) + 1):
        res.append(None if i in bad else next(it).partition('; encoding: ')[2].strip())
    assert next(it, None) is None
    return res

def alignment(cpu, layout, rows):
    """For each (op, field): whether the register there must be even, by
    LLVM's round trip: the word with that one operand odd must disassemble
    to text that llvm-mc assembles back to the same word. Probed for every
    operand: the GWS ops' single register is even-only on gfx90a+."""
    base = {'Addr': 10, 'Data0': 20, 'Data1': 30, 'Vdst': 40}
    probes = []
    for op, name, ops, off, gds, acc in rows:
        accmask = int(acc.split('(')[1].rstrip(')'), 2) if 'Fields' in acc else 0
        for f, w in ops:
            for a in ((0, 1) if accmask & BIT[f] else (0,)):
                regs = {k: (base[k] if any(k == g for g, _ in ops) else 0) for k in base}
                regs[f] += 1
                wd = word(layout, op, regs['Addr'], regs['Data0'], regs['Data1'], regs['Vdst'],
                          0, 0, 1 if gds == 'Required' else 0, a if accmask else 0)
                probes.append((op, f, a, wd))
    texts = dis(cpu, [p[3] for p in probes])
    plain = [re.sub(r'/\*.*?\*/', '', t[0]) if t else 'ds_nop_invalid' for t in texts]
    again = asm(cpu, plain)
    # Decided by the VGPR form; the AGPR form (where the assembler takes one
    # at all) must agree.
    need, agpr = {}, {}
    for (op, f, a, wd), t, enc in zip(probes, texts, again):
        bad = t is None or enc != wd
        (agpr if a else need)[(op, f)] = bad
    for k, bad in agpr.items():
        if layout == 'old' and cpu != 'gfx900' and bad != need[k]:
            print(f'warning: {cpu} {k}: AGPR alignment differs from VGPR', file=sys.stderr)
    return need

HEADER = r'''//! DS opcode tables, one per encoding family, as LLVM 22 names and prints
//! them.
//!
//! Source: LLVM's `llvm/lib/Target/AMDGPU/DSInstructions.td` (the `DS_Real_*`
//! definitions per generation) and its MC tests (`llvm/test/MC/AMDGPU/ds.s`,
//! `gfx90a_ldst_acc.s`, `gfx10_asm_ds.s`, `gfx11_asm_ds.s`, `gfx12_asm_ds.s`,
//! `llvm/test/MC/Disassembler/AMDGPU/gfx11_dasm_ds.txt`). The rows were
//! transcribed by disassembling every opcode of every family with
//! `llvm-mc-22 --disassemble` (each field set to a distinct register, with and
//! without gds/acc; each tuple operand also probed at an odd register and
//! kept even-only when llvm-mc cannot reassemble what it printed), and
//! `tests/it/host_isa_llvm.rs` re-checks every row against
//! llvm-mc on each run, so a table that drifts from LLVM fails CI.
//!
//! Generated; edit the generator (see `src/isa/tablegen.py`), not the rows.

use super::table_types::{AccForm, Field, Field::*, GdsForm::*, OffsetForm::*, OpInfo, Operand};

/// An operand whose tuple may start at any register.
const fn o(field: Field, dwords: u8) -> Operand {
    Operand {
        field,
        dwords,
        even: false,
    }
}

/// An operand whose tuple must start at an even register (LLVM's `*_Align2`
/// register classes): found per operand, because a few gfx950/gfx1250 loads
/// (`ds_read_b96_tr_b6`, `ds_load_tr6_b96`) take unaligned tuples.
const fn o2(field: Field, dwords: u8) -> Operand {
    Operand {
        field,
        dwords,
        even: true,
    }
}

'''

def main():
    out = [HEADER]
    for cpu, layout in TARGETS.items():
        rows = rows_of(sweep(cpu, layout))
        need = alignment(cpu, layout, rows)
        fam = FAM[cpu]
        out.append(f'/// {fam.capitalize()}: {len(rows)} opcodes.\n')
        out.append('#[rustfmt::skip]\n')
        out.append(f'pub(crate) static {fam}: &[OpInfo] = &[\n')
        for op, name, ops, off, gds, acc in rows:
            o = ', '.join(f'o2({f}, {w})' if need.get((op, f)) else f'o({f}, {w})' for f, w in ops)
            out.append(f'    OpInfo {{ op: {op}, name: "{name}", operands: &[{o}], offset: {off}, gds: {gds}, acc: {acc} }},\n')
        out.append('];\n\n')
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table.rs')
    with open(path, 'w') as f:
        f.write(''.join(out).rstrip('\n') + '\n')
    print(f'wrote {path}', file=sys.stderr)


if __name__ == '__main__':
    main()
