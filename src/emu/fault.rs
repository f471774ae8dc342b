//! Fault injection: the named ways the software device can misbehave on DS
//! atomics, each with an optional rate and trigger conditions
//! (`--fault NAME[:RATE][@COND[,COND]]`, also `DSXOR_HIPSIM_FAULT`).
//!
//! The hook is one call per DS atomic instruction, [`atomic`], given the
//! lanes, their ADDR and DATA values and the instruction's offsets; the
//! workgroup-level state a condition or class needs (which wave is running,
//! the last update of each address) lives in [`State`], carried by the
//! workgroup's LDS. Every other instruction runs as the ISA says.
//!
//! Randomness: a rate below 1 decides per eligible lane with a hash of
//! (launch identity, workgroup, wave, the wave's DS-atomic ordinal, lane),
//! never a global stream, so a case gets the same faults whichever host
//! thread or `--jobs` worker runs it, and on replay. The launch identity is
//! a hash of the launch's global memory and dimensions ([`launch_identity`]),
//! that is of the case.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::decode::AtomicOp;
use super::ds::{atomic_new, Lds, Part};

/// One named misbehaviour of the DS atomic instructions (the family under
/// test), as real hardware or a compiler could show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// The read-modify-write is not atomic across the lanes of one
    /// instruction: every lane reads the old value before any lane writes,
    /// so lanes sharing an address lose all updates but the last.
    LostUpdate,
    /// The returning forms give back the new value instead of the old one.
    ReturnNew,
    /// Lanes whose EXEC bit is clear execute the atomic anyway.
    IgnoreExec,
    /// The high offset byte (offset1) is ignored: the address is ADDR + offset0.
    DropOffset1,
    /// The returned 64-bit value has its two dwords swapped.
    SwapDwords,
    /// 64-bit atomics update only the low dword of memory; the high dword keeps its old value.
    LowDwordOnly,
    /// An update is lost only between waves: a lane whose address was last
    /// updated by another wave of the workgroup reads the value from before
    /// that update, and its write overwrites it.
    CrossWaveLostUpdate,
    /// The return is stale by one update: a lane gets the value from before
    /// the previous update of its address; memory is updated correctly.
    ReturnStale,
    /// The atomic tears: of the value it reads (and returns and updates),
    /// the high dword is from before the previous update of the address,
    /// the low dword from after it.
    Torn,
    /// The write is dropped while the return is right: memory keeps the old value.
    DropWrite,
    /// The write also lands on the next qword (or dword): the lane's DATA
    /// is XORed into the address + size as well, a qword no lane of the
    /// instruction named. Return and the addressed memory stay right.
    StrayWrite,
}

impl Fault {
    pub const ALL: [Fault; 11] = [
        Fault::LostUpdate,
        Fault::ReturnNew,
        Fault::IgnoreExec,
        Fault::DropOffset1,
        Fault::SwapDwords,
        Fault::LowDwordOnly,
        Fault::CrossWaveLostUpdate,
        Fault::ReturnStale,
        Fault::Torn,
        Fault::DropWrite,
        Fault::StrayWrite,
    ];

    /// The name used on the command line (`--fault NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Fault::LostUpdate => "lost-update",
            Fault::ReturnNew => "return-new",
            Fault::IgnoreExec => "ignore-exec",
            Fault::DropOffset1 => "drop-offset1",
            Fault::SwapDwords => "swap-dwords",
            Fault::LowDwordOnly => "low-dword-only",
            Fault::CrossWaveLostUpdate => "cross-wave-lost-update",
            Fault::ReturnStale => "return-stale",
            Fault::Torn => "torn",
            Fault::DropWrite => "drop-write",
            Fault::StrayWrite => "stray-write",
        }
    }

    /// One-line description (for `--help` and reports).
    pub fn doc(self) -> &'static str {
        match self {
            Fault::LostUpdate => "read-modify-write not atomic across contending lanes: all lanes read, then all write",
            Fault::ReturnNew => "returning atomics give back the new value instead of the old one",
            Fault::IgnoreExec => "lanes with EXEC clear execute the atomic too",
            Fault::DropOffset1 => "the high offset byte (offset1) is ignored",
            Fault::SwapDwords => "the returned qword has its two dwords swapped",
            Fault::LowDwordOnly => "64-bit atomics update only the low 32 bits of memory",
            Fault::CrossWaveLostUpdate => "an update by another wave of the workgroup is lost (read before it, write over it)",
            Fault::ReturnStale => "the return is stale by one update (the value before the address's previous update)",
            Fault::Torn => "the read tears: high dword from before the address's previous update, low dword from after",
            Fault::DropWrite => "the write is dropped; the return is still right",
            Fault::StrayWrite => "the write also XORs DATA into the next qword (address + size); return and the addressed memory stay right",
        }
    }

    /// Classes that act only where the address has an earlier update in
    /// the workgroup (they need [`State`]'s history).
    fn needs_history(self) -> bool {
        matches!(
            self,
            Fault::CrossWaveLostUpdate | Fault::ReturnStale | Fault::Torn
        )
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What triggers a fault: every condition given must hold for a lane to be
/// eligible (each eligible lane then faults with the rate's probability).
/// Contention is judged on the lanes of the instruction (and, for
/// `cross-wave`, on the workgroup's earlier atomics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Conditions {
    /// `within-wave`: another active lane of the same instruction has the address.
    pub within_wave: bool,
    /// `cross-wave`: another wave of the workgroup has already updated the address.
    pub cross_wave: bool,
    /// `same-address=K`: at least K active lanes of the instruction have the address.
    pub same_address: Option<u8>,
    /// `bank-conflict`: another active lane of the instruction reaches one
    /// of the lane's LDS banks at a different address.
    pub bank_conflict: bool,
    /// `high-dword`: the fault reaches only the high dword (of the return
    /// and of the memory update); the low dword is right.
    pub high_dword: bool,
    /// `offset=N`: the instruction's offset ({offset1, offset0}) is N.
    pub offset: Option<u16>,
    /// `wave64`: the wave runs in wave64 mode.
    pub wave64: bool,
    /// `exec-partial`: EXEC is neither empty nor all the wave's lanes.
    pub exec_partial: bool,
}

/// LDS banks: RDNA3 has 64 DWORD-wide banks per WGP's LDS (AMD RDNA3 ISA
/// guide, "Local Data Share"; docs/src/internals/facts.md); a dword at byte address
/// `a` is in bank `(a / 4) % 64`.
pub const LDS_BANKS: u64 = 64;

/// The condition names, with their help lines.
pub const CONDITIONS: [(&str, &str); 8] = [
    ("within-wave", "another active lane of the same instruction has the address"),
    ("cross-wave", "another wave of the workgroup has already updated the address"),
    ("same-address=K", "at least K (2..=64) active lanes of the instruction have the address"),
    ("bank-conflict", "another active lane of the instruction hits one of the lane's LDS banks (64 dword banks) at another address"),
    ("high-dword", "the fault reaches only the high dword (of the return and the memory update)"),
    ("offset=N", "the instruction's 16-bit offset is N"),
    ("wave64", "the wave runs in wave64 mode"),
    ("exec-partial", "EXEC is neither empty nor all the wave's lanes"),
];

impl Conditions {
    fn is_empty(&self) -> bool {
        *self == Conditions::default()
    }
}

impl fmt::Display for Conditions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if self.within_wave {
            parts.push("within-wave".into());
        }
        if self.cross_wave {
            parts.push("cross-wave".into());
        }
        if let Some(k) = self.same_address {
            parts.push(format!("same-address={k}"));
        }
        if self.bank_conflict {
            parts.push("bank-conflict".into());
        }
        if self.high_dword {
            parts.push("high-dword".into());
        }
        if let Some(o) = self.offset {
            parts.push(format!("offset={o}"));
        }
        if self.wave64 {
            parts.push("wave64".into());
        }
        if self.exec_partial {
            parts.push("exec-partial".into());
        }
        f.write_str(&parts.join(","))
    }
}

/// A fault class with its rate and conditions: what `--fault` names.
/// No rate and no condition is the class as it always was: every lane it
/// can act on, every time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaultSpec {
    pub fault: Fault,
    /// Probability in [0, 1] that an eligible lane faults (None: 1).
    pub rate: Option<f64>,
    pub conditions: Conditions,
}

// The parser refuses NaN, so equality is reflexive.
impl Eq for FaultSpec {}

impl From<Fault> for FaultSpec {
    fn from(fault: Fault) -> FaultSpec {
        FaultSpec {
            fault,
            rate: None,
            conditions: Conditions::default(),
        }
    }
}

impl FaultSpec {
    /// The rate as a probability (1 when none was given).
    pub fn probability(&self) -> f64 {
        self.rate.unwrap_or(1.0)
    }

    /// Whether deciding needs the launch's random stream.
    pub fn is_random(&self) -> bool {
        self.probability() < 1.0
    }

    fn needs_history(&self) -> bool {
        self.fault.needs_history() || self.conditions.cross_wave
    }

    /// The same fault at another rate.
    pub fn with_rate(self, rate: f64) -> FaultSpec {
        FaultSpec {
            rate: Some(rate),
            ..self
        }
    }

    /// The syntax and every class and condition, for `--help` and docs.
    pub fn help() -> String {
        let mut s = String::from(
            "Software device only: inject a fault, NAME[:RATE][@COND[,COND...]]. RATE is the \
             probability (0..=1, e.g. 0.001, 1e-3 or 1/1000) that an eligible lane faults, \
             seeded by the case; every COND must hold for a lane to be eligible. Without RATE \
             or COND the fault hits every lane it can act on.\nNAME:\n",
        );
        for f in Fault::ALL {
            s.push_str(&format!("  {:<24}{}\n", f.name(), f.doc()));
        }
        s.push_str("COND:\n");
        for (c, d) in CONDITIONS {
            s.push_str(&format!("  {c:<24}{d}\n"));
        }
        s
    }
}

impl fmt::Display for FaultSpec {
    /// Canonical text: parses back to an equal spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.fault.name())?;
        if let Some(r) = self.rate {
            // `{}` on f64 prints the shortest text that parses back exactly.
            write!(f, ":{r}")?;
        }
        if !self.conditions.is_empty() {
            write!(f, "@{}", self.conditions)?;
        }
        Ok(())
    }
}

/// Why a `--fault` text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultParseError {
    #[error("unknown fault `{given}`; known faults: {}", Fault::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", "))]
    UnknownFault { given: String },
    #[error("fault `{spec}`: bad rate `{rate}`: expected a probability in 0..=1 (0.001, 1e-3 or 1/1000)")]
    BadRate { spec: String, rate: String },
    #[error("fault `{spec}`: unknown condition `{given}`; known: {}", CONDITIONS.iter().map(|c| c.0).collect::<Vec<_>>().join(", "))]
    UnknownCondition { spec: String, given: String },
    #[error("fault `{spec}`: condition `{given}`: {why}")]
    BadCondition {
        spec: String,
        given: String,
        why: String,
    },
    #[error("fault `{spec}`: condition `{given}` given twice")]
    DuplicateCondition { spec: String, given: String },
}

/// Kept for callers of the first fault parser: an unknown name.
pub type UnknownFault = FaultParseError;

impl FromStr for Fault {
    type Err = FaultParseError;
    fn from_str(s: &str) -> Result<Fault, FaultParseError> {
        Fault::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| FaultParseError::UnknownFault {
                given: s.to_string(),
            })
    }
}

fn parse_rate(spec: &str, text: &str) -> Result<f64, FaultParseError> {
    let bad = || FaultParseError::BadRate {
        spec: spec.to_string(),
        rate: text.to_string(),
    };
    let t = text.trim();
    let r = match t.split_once('/') {
        Some((n, d)) => {
            let n: f64 = n.trim().parse().map_err(|_| bad())?;
            let d: f64 = d.trim().parse().map_err(|_| bad())?;
            if d == 0.0 {
                return Err(bad());
            }
            n / d
        }
        None => t.parse::<f64>().map_err(|_| bad())?,
    };
    if r.is_finite() && (0.0..=1.0).contains(&r) {
        Ok(r)
    } else {
        Err(bad())
    }
}

impl FromStr for FaultSpec {
    type Err = FaultParseError;
    fn from_str(text: &str) -> Result<FaultSpec, FaultParseError> {
        let spec = text.trim();
        let (head, conds) = match spec.split_once('@') {
            Some((h, c)) => (h, Some(c)),
            None => (spec, None),
        };
        let (name, rate) = match head.split_once(':') {
            Some((n, r)) => (n, Some(parse_rate(spec, r)?)),
            None => (head, None),
        };
        let fault: Fault = name.trim().parse()?;
        let mut c = Conditions::default();
        if let Some(list) = conds {
            for given in list.split(',') {
                let given = given.trim();
                let dup = || FaultParseError::DuplicateCondition {
                    spec: spec.to_string(),
                    given: given.to_string(),
                };
                let bad = |why: &str| FaultParseError::BadCondition {
                    spec: spec.to_string(),
                    given: given.to_string(),
                    why: why.to_string(),
                };
                let set = |flag: &mut bool| {
                    if std::mem::replace(flag, true) {
                        Err(dup())
                    } else {
                        Ok(())
                    }
                };
                let (key, value) = match given.split_once('=') {
                    Some((k, v)) => (k.trim(), Some(v.trim())),
                    None => (given, None),
                };
                match (key, value) {
                    ("within-wave", None) => set(&mut c.within_wave)?,
                    ("cross-wave", None) => set(&mut c.cross_wave)?,
                    ("bank-conflict", None) => set(&mut c.bank_conflict)?,
                    ("high-dword", None) => set(&mut c.high_dword)?,
                    ("wave64", None) => set(&mut c.wave64)?,
                    ("exec-partial", None) => set(&mut c.exec_partial)?,
                    ("same-address", Some(v)) => {
                        let k: u8 = v
                            .parse()
                            .ok()
                            .filter(|k| (2..=64).contains(k))
                            .ok_or_else(|| bad("expected K in 2..=64"))?;
                        if c.same_address.replace(k).is_some() {
                            return Err(dup());
                        }
                    }
                    ("offset", Some(v)) => {
                        let o: u16 = v
                            .parse()
                            .map_err(|_| bad("expected an offset in 0..=65535"))?;
                        if c.offset.replace(o).is_some() {
                            return Err(dup());
                        }
                    }
                    (
                        "within-wave" | "cross-wave" | "bank-conflict" | "high-dword" | "wave64"
                        | "exec-partial",
                        Some(_),
                    ) => return Err(bad("takes no value")),
                    ("same-address" | "offset", None) => return Err(bad("needs a value (=N)")),
                    _ => {
                        return Err(FaultParseError::UnknownCondition {
                            spec: spec.to_string(),
                            given: given.to_string(),
                        })
                    }
                }
            }
        }
        Ok(FaultSpec {
            fault,
            rate,
            conditions: c,
        })
    }
}

/// The last atomic update of one LDS address in the workgroup.
#[derive(Clone, Copy, Debug)]
struct Update {
    /// Memory before the update.
    before: u64,
    /// Waves of the workgroup that have updated the address (bit per wave;
    /// waves 64 and up share bit 63).
    waves: u64,
}

/// Per-workgroup state of the fault injector, kept in the workgroup's LDS.
#[derive(Clone, Debug, Default)]
pub struct State {
    launch: u64,
    group: u32,
    /// The wave now running (set by the scheduler before it runs a wave).
    pub wave: u32,
    /// DS atomics each wave has executed so far in this launch.
    seq: Vec<u32>,
    history: HashMap<u64, Update>,
}

impl State {
    /// A new workgroup `group` of the launch with identity `launch`.
    pub fn reset(&mut self, group: u32, launch: u64) {
        self.launch = launch;
        self.group = group;
        self.wave = 0;
        self.seq.clear();
        self.history.clear();
    }

    /// The fault ordinal of the running wave's DS atomic: a new one for a
    /// whole instruction or its low half, the low half's again for the high
    /// half of a split one (the wave issued nothing between them), so a
    /// split instruction faults where the unsplit one would.
    fn seq_for(&mut self, part: Part) -> u32 {
        if part == Part::High {
            let w = self.wave as usize;
            return self.seq.get(w).map_or(0, |s| s.wrapping_sub(1));
        }
        self.next_seq()
    }

    fn next_seq(&mut self) -> u32 {
        let w = self.wave as usize;
        if self.seq.len() <= w {
            self.seq.resize(w + 1, 0);
        }
        let s = self.seq[w];
        self.seq[w] = s.wrapping_add(1);
        s
    }
}

/// SplitMix64's finalizer: a well-mixed 64-bit hash step.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The identity of a launch for the fault stream: a hash of its global
/// memory (the case's inputs) and dimensions. Same case, same faults.
pub fn launch_identity(regions: impl Iterator<Item = Vec<u8>>, groups: u32, block: u32) -> u64 {
    let mut h = mix(u64::from(groups) << 32 | u64::from(block));
    for r in regions {
        h = mix(h ^ r.len() as u64);
        for c in r.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            h = mix(h ^ u64::from_le_bytes(b));
        }
    }
    h
}

/// One DS atomic instruction's inputs, per lane (index = lane).
pub struct AtomicIn<'a> {
    pub op: AtomicOp,
    /// 64-bit (B64) form.
    pub wide: bool,
    /// Lanes of the wave (32 or 64).
    pub lanes: u32,
    /// The instruction's EXEC (conditions are judged on all of it).
    pub exec: u64,
    /// The lanes this call performs (a half of a split wave64 instruction,
    /// policy `wave64-split-halves`, or the whole).
    pub part: Part,
    /// The ADDR register.
    pub addr: &'a [u32; 64],
    /// DATA (data0) and DATA2 (data1).
    pub data: &'a [u64; 64],
    pub data2: &'a [u64; 64],
    pub offset0: u8,
    pub offset1: u8,
    /// The wave's MODE register (DS_ADD_F32's denormal mode).
    pub mode: u32,
}

/// What the instruction did.
pub struct AtomicOut {
    /// Lanes that performed the atomic (EXEC, or more under `ignore-exec`).
    pub mask: u64,
    /// The return value of each lane of `mask`.
    pub ret: [u64; 64],
}

/// A lane whose effective address is not naturally aligned (MEMVIOL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Misaligned {
    pub lane: u32,
    pub addr: u64,
}

const HI: u64 = 0xffff_ffff_0000_0000;

/// Which lanes of one instruction a fault's conditions let it reach: the
/// instruction-wide conditions decided once, the lane ones judged on the
/// instruction's lanes (EXEC plus the lane asked about).
struct Eligible<'a> {
    i: &'a AtomicIn<'a>,
    cond: Conditions,
    lanes: usize,
    offset16: u64,
    bytes: u64,
    instruction_ok: bool,
}

impl<'a> Eligible<'a> {
    fn new(i: &'a AtomicIn<'a>, cond: Conditions, lanes: usize, full: u64) -> Eligible<'a> {
        let offset16 = (u64::from(i.offset1) << 8) | u64::from(i.offset0);
        let instruction_ok = (cond.offset.is_none_or(|o| u64::from(o) == offset16))
            && (!cond.wave64 || lanes == 64)
            && (!cond.exec_partial || (i.exec & full != 0 && i.exec & full != full));
        Eligible {
            i,
            cond,
            lanes,
            offset16,
            bytes: if i.wide { 8 } else { 4 },
            instruction_ok,
        }
    }

    /// Lane `l`'s effective address: ADDR + {offset1, offset0}.
    fn address(&self, l: usize) -> u64 {
        u64::from(self.i.addr[l]) + self.offset16
    }

    /// Whether the conditions hold for lane `l`.
    fn lane(&self, l: usize) -> bool {
        let cond = &self.cond;
        if !self.instruction_ok {
            return false;
        }
        let needs_peers = cond.within_wave || cond.same_address.is_some() || cond.bank_conflict;
        if !needs_peers {
            return true;
        }
        let a = self.address(l);
        let banks = |a: u64| {
            let b = (a / 4) % LDS_BANKS;
            (
                b,
                if self.bytes == 8 {
                    (b + 1) % LDS_BANKS
                } else {
                    b
                },
            )
        };
        let (b0, b1) = banks(a);
        let (mut same, mut conflict) = (1u32, false);
        for m in 0..self.lanes {
            if m == l || (self.i.exec | 1 << l) >> m & 1 == 0 {
                continue;
            }
            let am = self.address(m);
            if am == a {
                same += 1;
            } else {
                let (c0, c1) = banks(am);
                conflict |= c0 == b0 || c0 == b1 || c1 == b0 || c1 == b1;
            }
        }
        (!cond.within_wave || same >= 2)
            && cond.same_address.is_none_or(|k| same >= u32::from(k))
            && (!cond.bank_conflict || conflict)
    }
}

/// The values a faulting lane sees: the qword now (`cur`) and the right
/// update of it (`new`), the qword before the instruction (`start`, read
/// only under `lost-update`), and before the last update of another wave
/// or instruction (`before`, or `cur` without that history).
#[derive(Clone, Copy)]
struct Now {
    cur: u64,
    new: u64,
    start: u64,
    before: u64,
}

/// (return, memory after) as a device with fault `class` has them for one
/// lane whose fault fires.
fn fault_values(
    class: Fault,
    i: &AtomicIn<'_>,
    v: Now,
    data: u64,
    data2: u64,
    bits: u32,
) -> (u64, u64) {
    let new_from = |t: u64| atomic_new(i.op, t, data, data2, bits, i.mode);
    match class {
        Fault::LostUpdate => (v.start, new_from(v.start)),
        Fault::ReturnNew => (v.new, v.new),
        Fault::SwapDwords => (v.cur.rotate_left(32), v.new),
        Fault::LowDwordOnly => (v.cur, (v.cur & HI) | (v.new & !HI)),
        Fault::CrossWaveLostUpdate => (v.before, new_from(v.before)),
        Fault::ReturnStale => (v.before, v.new),
        Fault::Torn => {
            let t = (v.before & HI) | (v.cur & !HI);
            (t, new_from(t))
        }
        Fault::DropWrite => (v.cur, v.cur),
        Fault::StrayWrite | Fault::IgnoreExec | Fault::DropOffset1 => (v.cur, v.new),
    }
}

/// Whether lane `l` faults, given it is eligible: the rate's coin, from
/// the launch's stream (`salt` separates decisions of one lane).
struct Coin {
    p: f64,
    launch: u64,
    group: u32,
    wave: u32,
    seq: u32,
}

impl Coin {
    fn flip(&self, l: usize, salt: u64) -> bool {
        if self.p >= 1.0 {
            return true;
        }
        let h = mix(self.launch
            ^ mix(u64::from(self.group) << 32 | u64::from(self.wave))
            ^ mix(u64::from(self.seq) << 16 | (l as u64) << 8 | salt));
        ((h >> 11) as f64 / (1u64 << 53) as f64) < self.p
    }
}

/// Each performing lane's address (ADDR + offset0 alone where
/// `drops_offset1` says the fault fires), every one checked for alignment
/// before any lane writes.
fn addresses(
    i: &AtomicIn<'_>,
    order: &[usize],
    eligible: &Eligible<'_>,
    drops_offset1: impl Fn(usize) -> bool,
) -> Result<[u64; 64], Misaligned> {
    let mut addrs = [0u64; 64];
    for &l in order {
        let a = if drops_offset1(l) {
            u64::from(i.addr[l]) + u64::from(i.offset0)
        } else {
            eligible.address(l)
        };
        // DS_CONDXCHG32_RTN_B64 aligns its address down (ds.rs,
        // POLICY_DS_CONDXCHG_ALIGNS_DOWN); the others must be aligned.
        let condxchg = i.op == AtomicOp::CondXchg32;
        let a = if condxchg { a & 0xfff8 } else { a };
        if !condxchg && a % eligible.bytes != 0 {
            return Err(Misaligned {
                lane: l as u32,
                addr: a,
            });
        }
        addrs[l] = a;
    }
    Ok(addrs)
}

/// A fault class applied lane by lane, with the history of updates that
/// the cross-wave, stale and torn classes read.
struct Injected<H: Fn(usize) -> bool> {
    class: Fault,
    cond: Conditions,
    /// Whether the class reads the history (kept per address).
    track: bool,
    /// This wave's bit in the history.
    me: u64,
    /// The lane conditions and the coin, for lane `l`.
    hits: H,
}

impl<H: Fn(usize) -> bool> Injected<H> {
    /// Lane `l`'s (return, memory after, a stray write to the next qword)
    /// at address `a`, `now.before` unset (the history gives it).
    fn lane(
        &self,
        i: &AtomicIn<'_>,
        lds: &mut Lds,
        l: usize,
        a: u64,
        now: Now,
        bits: u32,
    ) -> (u64, u64, bool) {
        let (class, cond) = (self.class, self.cond);
        let (cur, new_c) = (now.cur, now.new);
        let (mut ret, mut write, mut stray) = (cur, new_c, false);
        let prev = if self.track {
            lds.fault.history.get(&a).copied()
        } else {
            None
        };
        let cross = prev.is_some_and(|u| u.waves & !self.me != 0);
        // The class's own precondition, then the conditions, then the coin.
        let can = match class {
            Fault::SwapDwords | Fault::LowDwordOnly => i.wide,
            Fault::CrossWaveLostUpdate => cross,
            Fault::ReturnStale | Fault::Torn => prev.is_some(),
            _ => true,
        };
        let hits = can
            && (!cond.cross_wave || cross)
            && class != Fault::IgnoreExec
            && class != Fault::DropOffset1
            && (self.hits)(l);
        if hits {
            stray = class == Fault::StrayWrite;
            let now = Now {
                before: prev.map_or(cur, |u| u.before),
                ..now
            };
            let (ret_f, write_f) = fault_values(class, i, now, i.data[l], i.data2[l], bits);
            if cond.high_dword {
                ret = (ret_f & HI) | (cur & !HI);
                write = (write_f & HI) | (new_c & !HI);
            } else {
                ret = ret_f;
                write = write_f;
            }
        }
        if self.track && a < lds.size() {
            let waves = prev.map_or(0, |u| u.waves) | self.me;
            lds.fault.history.insert(a, Update { before: cur, waves });
        }
        (ret, write, stray)
    }
}

/// Perform one DS atomic for its lanes, one lane at a time (ascending, or
/// shuffled by `rng`), each read-modify-write atomic (ISA pseudocode, as in
/// `ds`), with `spec`'s fault where it applies. The alignment of every lane
/// is checked before any lane writes.
pub fn atomic(
    i: &AtomicIn<'_>,
    lds: &mut Lds,
    spec: Option<&FaultSpec>,
    rng: Option<&mut ChaCha8Rng>,
) -> Result<AtomicOut, Misaligned> {
    let lanes = i.lanes.min(64) as usize;
    let full = if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    };
    let bytes: u64 = if i.wide { 8 } else { 4 };
    let bits = if i.wide { 64 } else { 32 };
    let size = lds.size();
    let class = spec.map(|s| s.fault);
    let cond = spec.map(|s| s.conditions).unwrap_or_default();
    let seq = if spec.is_some() {
        lds.fault.seq_for(i.part)
    } else {
        0
    };
    let wave = lds.fault.wave;
    let coin = Coin {
        p: spec.map_or(1.0, FaultSpec::probability),
        launch: lds.fault.launch,
        group: lds.fault.group,
        wave,
        seq,
    };
    let coin = |l: usize, salt: u64| coin.flip(l, salt);
    let eligible = Eligible::new(i, cond, lanes, full);
    let lane_ok = |l: usize| eligible.lane(l);

    let part = i.part.mask() & full;
    let mut mask = i.exec & part;
    if class == Some(Fault::IgnoreExec) {
        for l in 0..lanes {
            if part >> l & 1 != 0 && mask >> l & 1 == 0 && lane_ok(l) && coin(l, 1) {
                mask |= 1 << l;
            }
        }
    }
    let mut order: Vec<usize> = (0..lanes).filter(|l| mask >> l & 1 != 0).collect();
    if let Some(r) = rng {
        order.shuffle(r);
    }
    let drops_offset1 = |l: usize| class == Some(Fault::DropOffset1) && lane_ok(l) && coin(l, 2);
    let addrs = addresses(i, &order, &eligible, drops_offset1)?;
    let read = |lds: &Lds, a: u64| {
        if a < size {
            lds.read(a, bytes as usize)
        } else {
            0
        }
    };
    // lost-update: each lane may read the value from before the instruction.
    let mut starts = [0u64; 64];
    if class == Some(Fault::LostUpdate) {
        for &l in &order {
            starts[l] = read(lds, addrs[l]);
        }
    }
    let track = spec.is_some_and(|s| s.needs_history());
    let me = 1u64 << wave.min(63);
    let injected = class.map(|class| Injected {
        class,
        cond,
        track,
        me,
        hits: |l: usize| lane_ok(l) && coin(l, 3),
    });
    let mut out = AtomicOut { mask, ret: [0; 64] };
    for &l in &order {
        let a = addrs[l];
        let in_range = a < size;
        let cur = read(lds, a);
        let data = i.data[l];
        let data2 = i.data2[l];
        let new_c = atomic_new(i.op, cur, data, data2, bits, i.mode);
        let (ret, write, stray) = match &injected {
            Some(f) => {
                let now = Now {
                    cur,
                    new: new_c,
                    start: starts[l],
                    before: cur,
                };
                f.lane(i, lds, l, a, now, bits)
            }
            None => (cur, new_c, false),
        };
        if in_range {
            lds.write(a, bytes as usize, write);
        }
        let next = a + bytes;
        if stray && next + bytes <= size {
            let v = read(lds, next);
            lds.write(next, bytes as usize, v ^ data);
        }
        out.ret[l] = ret;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_text_round_trips() {
        for text in [
            "lost-update",
            "torn:0.001",
            "return-stale:0.5@cross-wave",
            "drop-write@same-address=4,high-dword",
            "ignore-exec:1@exec-partial,wave64",
            "cross-wave-lost-update:0.00001@bank-conflict,offset=4096,within-wave",
        ] {
            let s: FaultSpec = text.parse().unwrap();
            let again: FaultSpec = s.to_string().parse().unwrap();
            assert_eq!(s, again, "{text} -> {s}");
        }
        let s: FaultSpec = "torn:1/1000@offset=8".parse().unwrap();
        assert_eq!(s.rate, Some(0.001));
        assert_eq!(s.conditions.offset, Some(8));
        assert_eq!(s.to_string(), "torn:0.001@offset=8");
        let e: FaultSpec = "lost-update:1e-5".parse().unwrap();
        assert_eq!(e.to_string(), "lost-update:0.00001");
        assert_eq!(
            "lost-update".parse::<FaultSpec>().unwrap(),
            Fault::LostUpdate.into()
        );
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        use FaultParseError::*;
        let err = |t: &str| t.parse::<FaultSpec>().unwrap_err();
        assert!(matches!(err("lost"), UnknownFault { .. }));
        assert!(matches!(err("torn:2"), BadRate { .. }));
        assert!(matches!(err("torn:-0.1"), BadRate { .. }));
        assert!(matches!(err("torn:NaN"), BadRate { .. }));
        assert!(matches!(err("torn:1/0"), BadRate { .. }));
        assert!(matches!(err("torn:"), BadRate { .. }));
        assert!(matches!(err("torn@sometimes"), UnknownCondition { .. }));
        assert!(matches!(err("torn@"), UnknownCondition { .. }));
        assert!(matches!(
            err("torn@wave64,wave64"),
            DuplicateCondition { .. }
        ));
        assert!(matches!(err("torn@same-address=1"), BadCondition { .. }));
        assert!(matches!(err("torn@same-address"), BadCondition { .. }));
        assert!(matches!(err("torn@offset=70000"), BadCondition { .. }));
        assert!(matches!(err("torn@wave64=1"), BadCondition { .. }));
        assert!(err("torn@x").to_string().contains("cross-wave"));
    }

    #[test]
    fn every_class_and_condition_is_in_the_help() {
        let h = FaultSpec::help();
        for f in Fault::ALL {
            assert!(h.contains(f.name()), "{f}");
        }
        for (c, _) in CONDITIONS {
            assert!(h.contains(c), "{c}");
        }
    }

    #[test]
    fn launch_identity_depends_on_the_inputs() {
        let a = launch_identity([vec![1u8, 2, 3]].into_iter(), 1, 32);
        assert_eq!(a, launch_identity([vec![1u8, 2, 3]].into_iter(), 1, 32));
        assert_ne!(a, launch_identity([vec![1u8, 2, 4]].into_iter(), 1, 32));
        assert_ne!(a, launch_identity([vec![1u8, 2, 3]].into_iter(), 2, 32));
    }

    const LDS_INIT: u64 = 0x0123_4567_89ab_cdef;

    fn data(l: usize) -> u64 {
        0x1111_1111_0000_0001u64.wrapping_mul(l as u64 + 1) | 0x8000_0000_8000_0000
    }

    /// One ds_xor_rtn_b64 with `spec` on `lds` (every qword LDS_INIT at
    /// first) by wave `wave`; lanes beyond `addrs` are inactive.
    fn xor(
        spec: &str,
        lds: &mut Lds,
        wave: u32,
        lanes: u32,
        addrs: &[u32],
        offset: u16,
    ) -> AtomicOut {
        let spec: Option<FaultSpec> = (!spec.is_empty()).then(|| spec.parse().unwrap());
        let mut addr = [0u32; 64];
        let mut d = [0u64; 64];
        let mut exec = 0u64;
        for (l, &a) in addrs.iter().enumerate() {
            addr[l] = a;
            d[l] = data(l);
            exec |= 1 << l;
        }
        lds.fault.wave = wave;
        let input = AtomicIn {
            op: AtomicOp::Xor,
            wide: true,
            lanes,
            exec,
            part: Part::Whole,
            addr: &addr,
            data: &d,
            data2: &[0; 64],
            offset0: offset as u8,
            offset1: (offset >> 8) as u8,
            mode: 0,
        };
        atomic(&input, lds, spec.as_ref(), None).unwrap()
    }

    fn fresh() -> Lds {
        let mut l = Lds::new(1024);
        for q in 0..128 {
            l.write(q * 8, 8, LDS_INIT);
        }
        l.fault.reset(0, 42);
        l
    }

    /// Lanes whose return is not what a correct, lane-ascending device
    /// returns for the same instruction.
    fn wrong_lanes(spec: &str, lanes: u32, addrs: &[u32], offset: u16) -> Vec<usize> {
        let good = xor("", &mut fresh(), 0, lanes, addrs, offset);
        let bad = xor(spec, &mut fresh(), 0, lanes, addrs, offset);
        (0..addrs.len())
            .filter(|&l| good.ret[l] != bad.ret[l])
            .collect()
    }

    #[test]
    fn conditions_select_the_lanes_they_name() {
        // Lanes 0, 1 share address 0; lanes 2, 3, 4 share 8; lane 5 is alone at 16.
        let addrs = [0, 0, 8, 8, 8, 16];
        assert_eq!(
            wrong_lanes("return-new", 32, &addrs, 0),
            vec![0, 1, 2, 3, 4, 5]
        );
        assert_eq!(
            wrong_lanes("return-new@within-wave", 32, &addrs, 0),
            vec![0, 1, 2, 3, 4]
        );
        assert_eq!(
            wrong_lanes("return-new@same-address=3", 32, &addrs, 0),
            vec![2, 3, 4]
        );
        assert_eq!(
            wrong_lanes("return-new@offset=8", 32, &addrs, 0),
            Vec::<usize>::new()
        );
        assert_eq!(wrong_lanes("return-new@offset=8", 32, &addrs, 8).len(), 6);
        assert_eq!(
            wrong_lanes("return-new@wave64", 32, &addrs, 0),
            Vec::<usize>::new()
        );
        assert_eq!(wrong_lanes("return-new@wave64", 64, &addrs, 0).len(), 6);
        // EXEC holds 6 of 32 lanes: partial. All 32 lanes: not.
        assert_eq!(
            wrong_lanes("return-new@exec-partial", 32, &addrs, 0).len(),
            6
        );
        let all: Vec<u32> = (0..32).map(|l| 8 * l).collect();
        assert_eq!(
            wrong_lanes("return-new@exec-partial", 32, &all, 0),
            Vec::<usize>::new()
        );
        // Banks: 0 and 256 are both in banks 0-1 (a conflict); 8 is in banks 2-3.
        assert_eq!(
            wrong_lanes("return-new@bank-conflict", 32, &[0, 256, 8], 0),
            vec![0, 1]
        );
        // high-dword: the low dword of the return stays right.
        let good = xor("", &mut fresh(), 0, 32, &[0], 0);
        let bad = xor("return-new@high-dword", &mut fresh(), 0, 32, &[0], 0);
        assert_eq!(bad.ret[0] & !HI, good.ret[0] & !HI);
        assert_eq!(bad.ret[0] & HI, (LDS_INIT ^ data(0)) & HI);
    }

    #[test]
    fn cross_wave_classes_act_only_on_another_waves_update() {
        let d1 = data(0);
        // Wave 0 updates qword 0; then wave 1 (lane 0, same data) updates it.
        let two_waves = |spec: &str| {
            let mut lds = fresh();
            let first = xor(spec, &mut lds, 0, 32, &[0], 0);
            let second = xor(spec, &mut lds, 1, 32, &[0], 0);
            (first.ret[0], second.ret[0], lds.read(0, 8))
        };
        let after_first = LDS_INIT ^ d1;
        assert_eq!(two_waves(""), (LDS_INIT, after_first, LDS_INIT));
        // The second update overwrites the first: memory holds init ^ d1.
        assert_eq!(
            two_waves("cross-wave-lost-update"),
            (LDS_INIT, LDS_INIT, LDS_INIT ^ d1)
        );
        // Stale by one update: the value before wave 0's update.
        assert_eq!(two_waves("return-stale"), (LDS_INIT, LDS_INIT, LDS_INIT));
        // Torn: high dword from before wave 0's update, low from after.
        let torn = (LDS_INIT & HI) | (after_first & !HI);
        assert_eq!(two_waves("torn"), (LDS_INIT, torn, torn ^ d1));
        // Dropped writes, right returns: memory never changes.
        assert_eq!(two_waves("drop-write"), (LDS_INIT, LDS_INIT, LDS_INIT));
        // One wave twice: no cross-wave update, no fault.
        let mut lds = fresh();
        xor("return-new@cross-wave", &mut lds, 3, 32, &[0], 0);
        let again = xor("return-new@cross-wave", &mut lds, 3, 32, &[0], 0);
        assert_eq!(again.ret[0], after_first);
        let other = xor("return-new@cross-wave", &mut lds, 4, 32, &[0], 0);
        assert_eq!(other.ret[0], LDS_INIT ^ d1);
    }

    #[test]
    fn a_rate_hits_about_that_fraction_of_lanes_and_zero_hits_none() {
        let addrs: Vec<u32> = (0..64).map(|l| 8 * l).collect();
        let (mut hit, mut total) = (0usize, 0usize);
        let mut lds = fresh();
        for round in 0..200u32 {
            lds.fault.reset(round, 7);
            let good = xor("", &mut fresh(), 0, 64, &addrs, 0);
            let bad = xor("return-new:0.25", &mut fresh_like(&lds), 0, 64, &addrs, 0);
            hit += (0..64).filter(|&l| good.ret[l] != bad.ret[l]).count();
            total += 64;
        }
        // 12800 draws at p = 0.25: sd 49; allow 5 sd.
        let expect = total / 4;
        assert!(hit.abs_diff(expect) < 245, "{hit} of {total}");
        assert_eq!(
            wrong_lanes("return-new:0", 64, &addrs, 0),
            Vec::<usize>::new()
        );
        assert_eq!(wrong_lanes("return-new:1", 64, &addrs, 0).len(), 64);
    }

    /// A fresh LDS image with `like`'s launch and group (the coin's stream).
    fn fresh_like(like: &Lds) -> Lds {
        let mut l = fresh();
        l.fault.reset(like.fault.group, like.fault.launch);
        l
    }
}
