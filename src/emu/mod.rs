//! `emu`: the software device — an RDNA3 (gfx11) wave interpreter that runs
//! the same compiled code object a GPU would.
//!
//! - `decode`: `.text` → a compact instruction form, decoded once; the
//!   ALU opcodes come from `isa::alu`'s table, the DS ones from `isa`'s.
//! - `disasm`: the decoded form printed as llvm-objdump prints it.
//! - `wave`: one wave's registers and the scalar/vector/memory interpreter.
//! - `valu16`: the 16-bit integer VALU (true16 halves) from the pseudocode.
//! - `vext`: the VOP1/VOP3 lane-permute, M0-relative and quad-SAD VALU
//!   instructions, from the ISA pseudocode.
//! - `vop3p`: the VOP3P packed 16-bit integer ops and dot products, from
//!   the ISA pseudocode.
//! - `wmma`: the integer WMMAs (VOP3P; `vop3p` hands them over).
//! - `ds`: LDS instructions from the ISA pseudocode (never `model`).
//! - `fault`: fault injection into DS atomics (classes, rates, conditions).
//! - `hazard`: reads of memory results before their `s_waitcnt`.
//! - `late`: memory results held until their wait (or a bounded
//!   number of instructions), so an early read sees the old register.
//! - `hwreg`: the hardware registers `s_getreg`/`s_setreg` reach.
//! - `mem`: bounds-checked global memory at fake device addresses.
//! - `view`: `WaveView`, the one view of a wave's registers that `ds`,
//!   `valu16`, `vext`, `vop3p` and `wmma` execute against (`wave::Wave` implements it).
//! - this file: configuration, the initial wave state of the
//!   AMDHSA ABI, workgroups with `s_barrier`, the seeded scheduler and the
//!   thread pool that spreads workgroups over the host's cores.

pub mod decode;
pub mod disasm;
pub mod ds;
pub mod fault;
pub mod hazard;
pub mod hwreg;
pub mod late;
pub mod mem;
pub mod valu16;
pub mod vext;
pub mod view;
pub mod vop3p;
pub mod wave;
pub mod wmma;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use decode::Decoded;
use ds::Lds;
use mem::GlobalMem;
use wave::{Env, Status, Wave};

pub use fault::{Conditions, Fault, FaultParseError, FaultSpec, UnknownFault};

/// How the software device runs a dispatch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmuConfig {
    /// Inject one named misbehaviour, at a rate and under conditions
    /// (None: behave as the ISA says).
    pub fault: Option<FaultSpec>,
    /// Seed of the scheduler that orders contending lanes within one DS
    /// instruction, interleaves the waves of a workgroup between barriers
    /// and may split a wave64 DS instruction into its halves
    /// ([`HALVES_POLICY`]). None: deterministic order (ascending lanes; each wave runs until it
    /// reaches a barrier or ends, in wave order).
    pub interleave_seed: Option<u64>,
    /// Maximum instructions one wave may execute before the launch is a
    /// timeout. None: derived from the dispatch's timeout
    /// ([`budget_for_timeout`]). The dispatch's wall-clock timeout applies too.
    pub instruction_budget: Option<u64>,
    /// Host threads to spread workgroups over (None: all cores).
    pub threads: Option<usize>,
    /// LDS allocation block in bytes (None: [`LDS_GRANULE`], 512): the
    /// workgroup's allocation, and so the in-range limit, is the request
    /// rounded up to it. 1024 is the block size Mesa and LLVM PR 224852 give
    /// for gfx11's allocation (as opposed to the LDS_SIZE encoding unit).
    pub lds_granule: Option<u32>,
    /// Report a read (or overwrite) of a register that an outstanding memory
    /// instruction will still write, i.e. a missing `s_waitcnt`, as
    /// [`WaveError::Hazard`] ([`hazard`]). The command line turns it on for
    /// user code objects (`--code-object`; `--no-hazard-check` turns it off).
    pub hazard_check: bool,
    /// What a workgroup finds in its LDS when it starts ([`LDS_POLICY`]).
    /// None: zeros. Some: what the workgroup before it left in the store.
    pub lds_leftover: Option<LdsLeftover>,
    /// What a late DS or vector-memory result does to the destination's
    /// lanes that were inactive at issue ([`UNUSED_LANES_POLICY`]).
    pub unused_lanes: UnusedLanes,
    /// How `s_waitcnt` counts ([`WaitCount`]): as the ISA says, or one
    /// result short (a deviant device for `--probe smem-in-flight`).
    pub waitcnt: WaitCount,
    /// What a returning memory instruction whose destination lies past the
    /// wave's VGPR allocation does ([`VDST_RANGE_POLICY`]).
    pub vdst_range: VdstRange,
}

/// Policy `vdst-out-of-range-nullified`: a DS instruction or FLAT/GLOBAL
/// load that returns data into VGPRs past the wave's allocation is issued
/// as if EXEC were 0: no lane reads or changes memory, no register is
/// written. RDNA3 ISA guide §3.3.3 ("Memory, LDS and GDS reads and atomics
/// with return ... nullified ... as if EXEC=0" when any destination VGPR is
/// out of range, §3.3.2.2 for what out of range means). The allocation is
/// the descriptor's ([`KernelSetup::vgprs`]); silicon may round it up, so
/// a register the descriptor leaves out but the hardware's granule covers
/// would be in range there. `dsxor run --probe vdst-out-of-range` checks a
/// device keeps this rule; [`VdstRange::Unchecked`] is a device that does
/// not.
pub const VDST_RANGE_POLICY: &str = "vdst-out-of-range-nullified";

/// See [`VDST_RANGE_POLICY`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VdstRange {
    /// `vdst-out-of-range-nullified`: issued with EXEC = 0.
    #[default]
    Nullified,
    /// A device without the check: the instruction runs as if the
    /// registers were in range (the software device has all 256).
    Unchecked,
}

/// Policy `unused-lanes-kept`: a late DS or vector-memory result writes
/// only the lanes of its destination that were active at issue, so a write
/// into the other lanes before the wait stays. Mesa's
/// `src/amd/compiler/README-ISA.md` says of gfx11: "we can't safely
/// read/write unused lanes of VMEM/DS destination VGPRs without waiting for
/// the load to finish"; AMD's guide is silent. The other behaviour,
/// `unused-lanes-restored` ([`UnusedLanes::Restored`]), is what that
/// warning allows: the result writes the whole register, giving the unused
/// lanes back the values they held at issue, so such a write is lost.
/// `dsxor run --probe unused-vdst-lanes` reports which one a device shows.
pub const UNUSED_LANES_POLICY: &str = "unused-lanes-kept";

/// See [`UNUSED_LANES_POLICY`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnusedLanes {
    /// `unused-lanes-kept`: only the lanes active at issue are written.
    #[default]
    Kept,
    /// `unused-lanes-restored`: the whole register is written; lanes
    /// inactive at issue get the values they held then.
    Restored,
}

/// How the software device counts `s_waitcnt`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WaitCount {
    /// As the ISA says: the wait ends when no more than N results remain
    /// outstanding (RDNA3 ISA guide §5.6).
    #[default]
    Exact,
    /// A device whose LGKM_CNT is off by one: a partial `lgkmcnt(N)` wait
    /// (N > 0) ends with N + 1 outstanding, so it may return with none of
    /// two results landed (`wait-one-short`). A full wait still lands
    /// everything, so code that waits for 0 is unaffected; VM_CNT counts
    /// as the ISA says (the compiler's own partial `vmcnt` waits stay
    /// right, so only what the probe probes differs).
    OneShort,
}

/// Policy `lds-cleared`: the software device gives every workgroup an LDS
/// of zeros. LDS is not specified to be cleared between workgroups (the
/// RDNA3 ISA guide says nothing of its contents at allocation), and on an
/// RX 7900 XT a kernel read about 5.5 MB per launch of what other kernels
/// had left there (LeftoverLocals, CVE-2023-4969, CERT VU#446598,
/// <https://kb.cert.org/vuls/id/446598>). `dsxor run --probe
/// leftover-lds` tests a device for it.
/// The other behaviour, `lds-leftover` ([`LdsLeftover`]), is one physical
/// 64 KiB LDS per device that every workgroup gets in turn, as left by the
/// workgroup before it, across launches: the leaky device the probe must
/// catch.
pub const LDS_POLICY: &str = "lds-cleared";

/// The one physical LDS of a leaky device (policy `lds-leftover`,
/// [`LDS_POLICY`]): [`LDS_MAX`] bytes, shared by every workgroup of every
/// launch given the same store. Compares by identity.
#[derive(Clone, Debug)]
pub struct LdsLeftover(std::sync::Arc<Mutex<Vec<u8>>>);

impl LdsLeftover {
    pub fn new() -> LdsLeftover {
        LdsLeftover(std::sync::Arc::new(Mutex::new(vec![0; LDS_MAX as usize])))
    }

    /// A new workgroup's LDS: the store's first bytes.
    fn load(&self, lds: &mut [u8]) {
        if let Ok(store) = self.0.lock() {
            let n = lds.len().min(store.len());
            lds[..n].copy_from_slice(&store[..n]);
        }
    }

    /// What the workgroup leaves behind for the next one.
    fn keep(&self, lds: &[u8]) {
        if let Ok(mut store) = self.0.lock() {
            let n = lds.len().min(store.len());
            store[..n].copy_from_slice(&lds[..n]);
        }
    }
}

impl Default for LdsLeftover {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for LdsLeftover {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for LdsLeftover {}

/// Instructions per wave allowed for a wall-clock `timeout`: a generous
/// 200 million per second (well above what the interpreter achieves), so the
/// budget never cuts a run the timeout would allow, and at least 10 million.
pub fn budget_for_timeout(timeout: Duration) -> u64 {
    ((timeout.as_secs_f64() * 200e6) as u64).max(10_000_000)
}

/// Why a wave stopped abnormally.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WaveError {
    #[error("unsupported instruction at pc {pc:#x}: {detail}")]
    Unsupported { pc: u64, detail: String },
    #[error("MEMVIOL at pc {pc:#x}, lane {lane}, LDS address {addr:#x}: {what}")]
    MemViol {
        pc: u64,
        lane: u32,
        addr: u64,
        what: String,
    },
    #[error("global memory fault at pc {pc:#x}{}: {len} bytes at {addr:#x} ({region})", lane.map(|l| format!(", lane {l}")).unwrap_or_default())]
    Global {
        pc: u64,
        lane: Option<u32>,
        addr: u64,
        len: u64,
        region: String,
    },
    #[error("trap at pc {pc:#x}: {what}")]
    Trap { pc: u64, what: String },
    #[error("branch at pc {pc:#x} to an address that is not an instruction")]
    BadBranch { pc: u64 },
    #[error("pc {pc:#x} is outside the decoded .text")]
    PcOutsideText { pc: u64 },
    /// The kernel uses a memory result before waiting for it: on silicon it
    /// would read a stale register (or have its write clobbered).
    #[error("hazard at pc {pc:#x} `{inst}`: {detail}")]
    Hazard {
        pc: u64,
        inst: String,
        detail: String,
    },
}

/// Why a launch on the software device did not complete.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// The kernel asks for something this device does not model (scratch,
    /// the queue pointer, an instruction it does not know).
    #[error("kernel `{kernel}`: not supported by the software device: {detail}")]
    Unsupported { kernel: String, detail: String },
    /// The launch itself is malformed (LDS over the limit, bad workgroup size).
    #[error("kernel `{kernel}`: invalid launch: {detail}")]
    InvalidLaunch { kernel: String, detail: String },
    /// A wave stopped abnormally.
    #[error("kernel `{kernel}`, workgroup {group}, wave {wave}: {error}")]
    Wave {
        kernel: String,
        group: u32,
        wave: u32,
        error: WaveError,
    },
    /// A wave exceeded the instruction budget or the launch ran past its timeout.
    #[error("kernel `{kernel}`, workgroup {group}, wave {wave}: timeout at pc {pc:#x} after {executed} instructions ({limit})")]
    Timeout {
        kernel: String,
        group: u32,
        wave: u32,
        pc: u64,
        executed: u64,
        limit: String,
    },
}

/// What the kernel descriptor asks of the launch (AMDGPUUsage §"Kernel
/// Descriptor", compute_pgm_rsrc2 and kernel_code_properties).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSetup {
    pub name: String,
    /// Address of the first instruction (same address space as `Decoded::base`).
    pub entry: u64,
    pub wave64: bool,
    /// compute_pgm_rsrc2.USER_SGPR_COUNT: system SGPRs start here.
    pub user_sgpr_count: u8,
    pub private_segment_buffer: bool,
    pub dispatch_ptr: bool,
    pub queue_ptr: bool,
    pub kernarg_segment_ptr: bool,
    pub dispatch_id: bool,
    pub flat_scratch_init: bool,
    pub private_segment_size: bool,
    /// compute_pgm_rsrc2.ENABLE_PRIVATE_SEGMENT (scratch).
    pub private_segment: bool,
    pub workgroup_id: [bool; 3],
    pub workgroup_info: bool,
    /// compute_pgm_rsrc2.ENABLE_VGPR_WORKITEM_ID (0: X, 1: X Y, 2: X Y Z).
    pub vgpr_workitem_id: u8,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    /// The MODE register a wave starts with ([`hwreg::mode_from_rsrc1`]).
    pub mode: u32,
    /// COMPUTE_PGM_RSRC1.WGP_MODE: the kernel asks for WGP mode. Read and
    /// reported ([`RunStats::wgp_mode`]), never modelled: policy
    /// [`MODE_POLICY`].
    pub wgp_mode: bool,
    /// VGPRs a wave is given, from COMPUTE_PGM_RSRC1.GRANULATED_WORKITEM_VGPR_COUNT
    /// (`codeobj::KernelDescriptor::vgpr_allocation`): the bound of
    /// [`VDST_RANGE_POLICY`].
    pub vgprs: u32,
}

/// Policy `emu-one-cu`: the software device has one compute unit. It runs
/// a kernel whatever its descriptor's WGP_MODE says and reports the bit
/// ([`RunStats::wgp_mode`]), but both modes run alike: every wave of a
/// workgroup on the one CU, its LDS one flat array, one queue of LDS
/// operations in the scheduler's order. What WGP mode adds on silicon is
/// untested here: LDS operations of the two CUs of a WGP go through
/// different queues and may reorder (AMDGPUUsage.rst, "Memory Model
/// GFX10-GFX11"), and an allocation can straddle the two 64 KiB halves of
/// a WGP's LDS (RDNA3 ISA guide §3.3.4).
pub const MODE_POLICY: &str = "emu-one-cu";

/// Policy `wave64-split-halves`: with an interleave seed, a wave64 DS
/// instruction whose EXEC has lanes in both halves may run as two passes,
/// the low half (lanes 0-31) first, then, after the scheduler has run
/// other waves, the high half (lanes 32-63); a seeded coin per instruction
/// decides (one chance in [`SPLIT_ONE_IN`]). gfx10+ executes a wave64 VALU
/// or LDS instruction as two wave32 passes, and other LDS traffic can run
/// between them: Mesa's `ds_append` results were wrong because of it, seen
/// in WGP mode (sources in docs/src/internals/software-device.md). Which
/// half goes first the sources consulted do not say: low first is this
/// policy's assumption. Each half is one atomic step of the scheduler (its
/// lanes in the ds-order); the wave issues nothing else until its high half
/// has run, and the fault injector treats the two halves as one instruction
/// (conditions judged on the whole EXEC, one fault ordinal). Not modelled:
/// a split of VALU instructions (they touch no shared state), timing (a
/// real pass boundary falls where the LDS pipeline puts it, not where a
/// coin does), and a device without an interleave seed never splits.
pub const HALVES_POLICY: &str = "wave64-split-halves";

/// One wave64 DS instruction in [`SPLIT_ONE_IN`] is split
/// ([`HALVES_POLICY`]), when its EXEC has lanes in both halves.
pub const SPLIT_ONE_IN: u64 = 2;

/// ChaCha stream bit of the halves stream: the order stream of group `g` is
/// stream `g` (`g < 2^32`), its halves stream `g | HALVES_STREAM`.
const HALVES_STREAM: u64 = 1 << 63;
/// ChaCha stream bit of the late-results stream of group `g`:
/// `g | LATE_STREAM`.
const LATE_STREAM: u64 = 1 << 62;

/// The seeded scheduler of one workgroup: two random streams of the
/// interleave seed.
pub struct Sched {
    /// Which wave runs next and for how many instructions, and the order of
    /// the lanes of one DS instruction: the stream interleave seeds drew
    /// from before [`HALVES_POLICY`] existed.
    pub order: ChaCha8Rng,
    /// Whether a wave64 DS instruction runs as two halves: a stream of its
    /// own, so `order` draws what it drew before the policy until the first
    /// split changes the interleaving.
    pub halves: ChaCha8Rng,
    /// How many of its wave's instructions each memory result takes to
    /// return ([`late::LATE_RESULTS_POLICY`]): a stream of its own, so the
    /// other two draw what they drew before the policy.
    pub late: ChaCha8Rng,
}

impl Sched {
    /// The scheduler of workgroup `group` (one stream pair per workgroup,
    /// so parallel runs stay reproducible).
    pub fn new(seed: u64, group: u32) -> Sched {
        let stream = |s: u64| {
            let mut r = ChaCha8Rng::seed_from_u64(seed);
            r.set_stream(s);
            r
        };
        Sched {
            order: stream(u64::from(group)),
            halves: stream(u64::from(group) | HALVES_STREAM),
            late: stream(u64::from(group) | LATE_STREAM),
        }
    }

    /// The coin of [`HALVES_POLICY`] for one instruction.
    pub fn split_halves(&mut self) -> bool {
        self.halves.random_range(0..SPLIT_ONE_IN) == 0
    }
}

impl KernelSetup {
    /// The launch requirements of a kernel of a parsed code object.
    pub fn from_kernel(kernel: &crate::codeobj::Kernel) -> Result<KernelSetup, EmuError> {
        let kd = &kernel.descriptor;
        if kd.kernarg_preload != 0 {
            return Err(EmuError::Unsupported {
                kernel: kernel.name.clone(),
                detail: "kernarg preloading (kernarg_preload != 0) is not modelled".into(),
            });
        }
        let [x, y, z] = kd.enable_sgpr_workgroup_id();
        Ok(KernelSetup {
            name: kernel.name.clone(),
            entry: kernel.entry_vaddr,
            wave64: !kd.enable_wavefront_size32(),
            user_sgpr_count: kd.user_sgpr_count() as u8,
            private_segment_buffer: kd.enable_sgpr(0),
            dispatch_ptr: kd.enable_sgpr(1),
            queue_ptr: kd.enable_sgpr(2),
            kernarg_segment_ptr: kd.enable_sgpr(3),
            dispatch_id: kd.enable_sgpr(4),
            flat_scratch_init: kd.enable_sgpr(5),
            private_segment_size: kd.enable_sgpr(6),
            private_segment: kd.enable_private_segment(),
            workgroup_id: [x, y, z],
            // COMPUTE_PGM_RSRC2.ENABLE_SGPR_WORKGROUP_INFO (bit 10).
            workgroup_info: kd.compute_pgm_rsrc2 >> 10 & 1 != 0,
            vgpr_workitem_id: kd.enable_vgpr_workitem_id() as u8,
            group_segment_fixed_size: kd.group_segment_fixed_size,
            private_segment_fixed_size: kd.private_segment_fixed_size,
            mode: hwreg::mode_from_rsrc1(kd.compute_pgm_rsrc1),
            wgp_mode: kd.wgp_mode(),
            vgprs: kd.vgpr_allocation(crate::isa::Family::Gfx11),
        })
    }

    pub fn wave_size(&self) -> u32 {
        if self.wave64 {
            64
        } else {
            32
        }
    }
}

/// LDS is allocated to a workgroup in blocks of this many bytes: the
/// compute_pgm_rsrc2.LDS_SIZE granule for GFX7–GFX11 (AMDGPUUsage:
/// roundup(lds-size / (128 * 4))). Policy: the range check uses the size
/// rounded up to this granule. (LLVM PR 224852 notes gfx11 *allocates* in
/// 1024-byte blocks while encoding in 512-byte units; the dispatch encodes
/// 512-byte units, which is what this device honours.)
pub const LDS_GRANULE: u32 = 512;
/// Maximum LDS per workgroup on gfx11 (AMDGPUUsage: 64 KiB).
pub const LDS_MAX: u32 = 65536;

/// One launch on the software device.
pub struct Launch<'a> {
    pub program: &'a Decoded,
    pub setup: &'a KernelSetup,
    pub groups: u32,
    pub block: u32,
    pub dynamic_lds: u32,
    /// Device address of the kernarg segment (mapped in the `GlobalMem`).
    pub kernarg_addr: u64,
    /// Device address of an hsa_kernel_dispatch_packet_t, when mapped.
    pub dispatch_packet_addr: Option<u64>,
    /// LDS allocation block (None: [`LDS_GRANULE`]).
    pub lds_granule: Option<u32>,
    pub timeout: Duration,
}

/// Counters of a completed launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub instructions: u64,
    /// Active-lane DS atomic operations (each lane of each DS atomic once).
    pub ds_atomic_lane_ops: u64,
    pub waves: u64,
    /// The launched kernel's COMPUTE_PGM_RSRC1.WGP_MODE, as this device read
    /// it (it runs both modes alike: [`MODE_POLICY`]).
    pub wgp_mode: bool,
}

/// LDS bytes a workgroup gets: static + dynamic rounded up to `granule`
/// bytes (None: [`LDS_GRANULE`]), never more than [`LDS_MAX`].
pub fn lds_allocation(
    setup: &KernelSetup,
    dynamic: u32,
    granule: Option<u32>,
) -> Result<u32, EmuError> {
    let want = setup.group_segment_fixed_size as u64 + dynamic as u64;
    if want > LDS_MAX as u64 {
        return Err(EmuError::InvalidLaunch {
            kernel: setup.name.clone(),
            detail: format!(
                "LDS request of {want} bytes (static {} + dynamic {dynamic}) exceeds the {LDS_MAX}-byte limit",
                setup.group_segment_fixed_size
            ),
        });
    }
    let g = granule.unwrap_or(LDS_GRANULE).max(1) as u64;
    Ok((want.div_ceil(g) * g).min(LDS_MAX as u64) as u32)
}

fn check_setup(l: &Launch<'_>) -> Result<u32, EmuError> {
    let s = l.setup;
    let bad = |d: String| EmuError::Unsupported {
        kernel: s.name.clone(),
        detail: d,
    };
    if s.private_segment
        || s.private_segment_buffer
        || s.flat_scratch_init
        || s.private_segment_fixed_size > 0
    {
        return Err(bad(
            "the kernel uses scratch (private segment), which the software device does not provide"
                .into(),
        ));
    }
    if s.queue_ptr {
        return Err(bad(
            "the kernel requests the queue pointer, which the software device does not provide"
                .into(),
        ));
    }
    if s.dispatch_ptr && l.dispatch_packet_addr.is_none() {
        return Err(bad(
            "the kernel requests the dispatch pointer but no dispatch packet is mapped".into(),
        ));
    }
    if l.groups == 0 {
        return Err(EmuError::InvalidLaunch {
            kernel: s.name.clone(),
            detail: "a launch of 0 workgroups".into(),
        });
    }
    if l.block == 0 || l.block > 1024 {
        return Err(EmuError::InvalidLaunch {
            kernel: s.name.clone(),
            detail: format!("workgroup size {} outside 1..=1024", l.block),
        });
    }
    if l.program.index_at(s.entry).is_none() {
        return Err(bad(format!(
            "entry point {:#x} is not an instruction of .text",
            s.entry
        )));
    }
    lds_allocation(s, l.dynamic_lds, l.lds_granule)
}

/// The initial state of wave `w` of workgroup `g` (AMDGPUUsage §"Initial
/// Kernel Execution State"): user SGPRs from s0 in the ABI's order, system
/// SGPRs from USER_SGPR_COUNT, work-item ids packed in v0 (gfx11: X 9:0,
/// Y 19:10, Z 29:20), EXEC = the lanes that exist.
fn init_wave(wave: &mut Wave, l: &Launch<'_>, g: u32, w: u32, entry: u32) {
    let s = l.setup;
    let ws = s.wave_size();
    wave.s.fill(0);
    // Zero the VGPRs the program can touch (the rest it never reads).
    let n = (l.program.vgpr_limit * 64).min(wave.v.len());
    wave.v[..n].fill(0);
    wave.scc = false;
    wave.pc = entry;
    wave.status = Status::Running;
    wave.executed = 0;
    wave.pending_half = None;
    wave.late.clear();
    wave.ds_atomic_lane_ops = 0;
    wave.hwreg = hwreg::HwRegs::at_dispatch(s.mode, w);
    let mut r: u8 = 0;
    let put64 = |wave: &mut Wave, r: &mut u8, v: u64| {
        wave.sw(*r, v as u32);
        wave.sw(*r + 1, (v >> 32) as u32);
        *r += 2;
    };
    if s.dispatch_ptr {
        put64(wave, &mut r, l.dispatch_packet_addr.unwrap_or(0));
    }
    if s.kernarg_segment_ptr {
        put64(wave, &mut r, l.kernarg_addr);
    }
    if s.dispatch_id {
        put64(wave, &mut r, 0);
    }
    if s.private_segment_size {
        wave.sw(r, 0);
    }
    let mut r = s.user_sgpr_count;
    if s.workgroup_id[0] {
        wave.sw(r, g);
        r += 1;
    }
    // 1-D grids: workgroup ids Y and Z are 0.
    if s.workgroup_id[1] {
        wave.sw(r, 0);
        r += 1;
    }
    if s.workgroup_id[2] {
        wave.sw(r, 0);
        r += 1;
    }
    if s.workgroup_info {
        // Workgroup info: bits 5:0 wave count of the workgroup (AMDGPUUsage).
        wave.sw(r, l.block.div_ceil(ws) & 0x3f);
    }
    let first = w * ws;
    let count = (l.block - first).min(ws);
    for lane in 0..ws {
        // X only: a 1-D workgroup has Y = Z = 0.
        wave.set_vgpr(
            0,
            lane as usize,
            if lane < count { first + lane } else { 0 },
        );
    }
    let exec = if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    };
    wave.set_exec(exec);
}

struct GroupCtx<'a> {
    launch: &'a Launch<'a>,
    env: Env<'a>,
    cfg: &'a EmuConfig,
    budget: u64,
    deadline: Instant,
    entry: u32,
    /// The launch's identity for the fault stream (0 when no fault draws).
    launch_id: u64,
}

/// Run workgroup `g` to completion on this thread.
fn run_group(
    c: &GroupCtx<'_>,
    g: u32,
    waves: &mut Vec<Wave>,
    lds: &mut Lds,
) -> Result<RunStats, EmuError> {
    let l = c.launch;
    let ws = l.setup.wave_size();
    let nwaves = l.block.div_ceil(ws) as usize;
    while waves.len() < nwaves {
        waves.push(Wave::new(l.setup.wave64));
    }
    for (w, wave) in waves.iter_mut().enumerate().take(nwaves) {
        init_wave(wave, l, g, w as u32, c.entry);
        wave.late.policy(c.cfg.unused_lanes, c.cfg.waitcnt);
        wave.vgpr_alloc = match c.cfg.vdst_range {
            VdstRange::Nullified => l.setup.vgprs,
            VdstRange::Unchecked => u32::MAX,
        };
        match (&mut wave.hazard, c.cfg.hazard_check) {
            (Some(h), true) => h.clear(),
            (h, true) => *h = Some(Box::default()),
            (h, false) => *h = None,
        }
    }
    match &c.cfg.lds_leftover {
        None => lds.bytes.fill(0),
        Some(store) => store.load(&mut lds.bytes),
    }
    lds.fault.reset(g, c.launch_id);
    let mut sched = c.cfg.interleave_seed.map(|seed| Sched::new(seed, g));
    // Check the wall clock every this many instructions.
    const SLICE: u64 = 1 << 16;
    let mut calls: u64 = 0;
    loop {
        calls += 1;
        let runnable: Vec<usize> = (0..nwaves)
            .filter(|&i| waves[i].status == Status::Running)
            .collect();
        if runnable.is_empty() {
            if waves[..nwaves].iter().all(|w| w.status == Status::Ended) {
                break;
            }
            // Every wave that has not ended waits at the barrier: release it.
            for w in waves[..nwaves].iter_mut() {
                if w.status == Status::AtBarrier {
                    w.status = Status::Running;
                }
            }
            continue;
        }
        let (wi, quantum) = match sched.as_mut().map(|s| &mut s.order) {
            Some(r) => (
                runnable[r.random_range(0..runnable.len())],
                r.random_range(1..=8u64),
            ),
            None => (runnable[0], SLICE),
        };
        let wave = &mut waves[wi];
        lds.fault.wave = wi as u32;
        let left = c.budget.saturating_sub(wave.executed);
        let q = quantum.min(left.max(1));
        let res = wave.run(&c.env, lds, sched.as_mut(), q);
        let wave = &waves[wi];
        if let Err(error) = res {
            return Err(EmuError::Wave {
                kernel: l.setup.name.clone(),
                group: g,
                wave: wi as u32,
                error,
            });
        }
        let timeout = |limit: String| EmuError::Timeout {
            kernel: l.setup.name.clone(),
            group: g,
            wave: wi as u32,
            pc: Wave::pc_addr(c.env.prog, wave.pc),
            executed: wave.executed,
            limit,
        };
        if wave.status != Status::Ended && wave.executed >= c.budget {
            return Err(timeout(format!("instruction budget {}", c.budget)));
        }
        if (sched.is_none() || calls.is_multiple_of(4096)) && Instant::now() > c.deadline {
            return Err(timeout(format!("wall-clock timeout {:?}", l.timeout)));
        }
    }
    if let Some(store) = &c.cfg.lds_leftover {
        store.keep(&lds.bytes);
    }
    let mut st = RunStats::default();
    for w in &waves[..nwaves] {
        st.instructions += w.executed;
        st.ds_atomic_lane_ops += w.ds_atomic_lane_ops;
        st.waves += 1;
    }
    Ok(st)
}

/// The host's threads for a launch that names none: `available_parallelism`
/// once per process. It reads cgroup files (three opens and reads a call
/// under cgroup v1), which the software HIP runtime, whose launches name
/// no thread count, paid at every launch.
fn host_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// Run a launch: every workgroup, spread over host threads (one workgroup
/// at a time per thread). On failure the error of the lowest-numbered failing
/// workgroup is returned, so the result does not depend on thread timing.
pub fn run(launch: &Launch<'_>, mem: &GlobalMem, cfg: &EmuConfig) -> Result<RunStats, EmuError> {
    let lds_size = check_setup(launch)?;
    let entry = launch.program.index_at(launch.setup.entry).unwrap_or(0);
    let ctx = GroupCtx {
        launch,
        env: Env {
            prog: launch.program,
            mem,
            fault: cfg.fault,
        },
        cfg,
        budget: cfg
            .instruction_budget
            .unwrap_or_else(|| budget_for_timeout(launch.timeout)),
        deadline: Instant::now() + launch.timeout,
        entry,
        launch_id: match &cfg.fault {
            Some(f) if f.is_random() => fault::launch_identity(
                (0..).map_while(|i| mem.region_bytes(i)),
                launch.groups,
                launch.block,
            ),
            _ => 0,
        },
    };
    let threads = cfg
        .threads
        .unwrap_or_else(host_threads)
        .clamp(1, launch.groups.max(1) as usize);
    let next = AtomicUsize::new(0);
    // Lowest failing group so far (u64::MAX: none); groups above it are skipped.
    let first_fail = AtomicU64::new(u64::MAX);
    let failure: Mutex<Option<(u32, EmuError)>> = Mutex::new(None);
    let totals: Mutex<RunStats> = Mutex::new(RunStats::default());
    // Run groups from the shared counter until none is left, or `limit`
    // groups have been run by this call.
    let work = |limit: usize| {
        let mut waves = Vec::new();
        let mut lds = Lds::new(lds_size);
        let mut local = RunStats::default();
        for _ in 0..limit {
            let g = next.fetch_add(1, Ordering::Relaxed);
            if g >= launch.groups as usize || g as u64 > first_fail.load(Ordering::Relaxed) {
                break;
            }
            match run_group(&ctx, g as u32, &mut waves, &mut lds) {
                Ok(st) => {
                    local.instructions += st.instructions;
                    local.ds_atomic_lane_ops += st.ds_atomic_lane_ops;
                    local.waves += st.waves;
                }
                Err(e) => {
                    first_fail.fetch_min(g as u64, Ordering::Relaxed);
                    if let Ok(mut f) = failure.lock() {
                        if f.as_ref().is_none_or(|(fg, _)| g as u32 <= *fg) {
                            *f = Some((g as u32, e));
                        }
                    }
                }
            }
        }
        if let Ok(mut t) = totals.lock() {
            t.instructions += local.instructions;
            t.ds_atomic_lane_ops += local.ds_atomic_lane_ops;
            t.waves += local.waves;
        }
    };
    // The first workgroup runs here and is timed: spreading the rest over
    // threads pays only when groups take longer than starting a thread
    // (small conformance cases finish in microseconds).
    let t0 = Instant::now();
    work(1);
    let remaining = (launch.groups as usize).saturating_sub(1);
    let worth = t0
        .elapsed()
        .checked_mul(remaining as u32)
        .is_none_or(|d| d > Duration::from_micros(500));
    if threads == 1 || !worth {
        work(usize::MAX);
    } else {
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(|| work(usize::MAX));
            }
            work(usize::MAX);
        });
    }
    if let Some((_, e)) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut stats = totals.into_inner().unwrap_or_default();
    stats.wgp_mode = launch.setup.wgp_mode;
    Ok(stats)
}
