//! The simulator's configuration: environment variables, read once, on the
//! first HIP call of the process (as ROCm reads HIP_VISIBLE_DEVICES and its
//! debug variables once at initialisation).

use dsxor::codeobj::{Feature, TargetId};
use dsxor::emu::EmuConfig;

pub const ENV_DEVICES: &str = "DSXOR_HIPSIM_DEVICES";
pub const ENV_ON_FAULT: &str = "DSXOR_HIPSIM_ON_FAULT";
pub const ENV_FAULT: &str = "DSXOR_HIPSIM_FAULT";
pub const ENV_HANG: &str = "DSXOR_HIPSIM_HANG";
pub const ENV_FAIL: &str = "DSXOR_HIPSIM_FAIL";
pub const ENV_STALL: &str = "DSXOR_HIPSIM_STALL";
/// `KERNEL:N`: the N-th launch of KERNEL in the process ends with a device
/// fault (an illegal instruction), handled as `DSXOR_HIPSIM_ON_FAULT` says.
pub const ENV_DEVICE_FAULT: &str = "DSXOR_HIPSIM_DEVICE_FAULT";
/// Which devices `DSXOR_HIPSIM_FAULT` applies to: comma-separated ordinals
/// into `DSXOR_HIPSIM_DEVICES` (before any visibility filter: a faulty
/// device is faulty whichever process sees it); unset, every device.
pub const ENV_FAULT_DEVICES: &str = "DSXOR_HIPSIM_FAULT_DEVICES";
/// `cleared` (default) or `leftover`: what a workgroup finds in its LDS
/// (the software device's policies `lds-cleared` and `lds-leftover`,
/// `dsxor::emu::LDS_POLICY`). `leftover` makes a device that keeps one
/// physical LDS for every workgroup of every launch, as LeftoverLocals
/// (CVE-2023-4969) showed on an RX 7900 XT: `dsxor run --probe
/// leftover-lds` must fail on it.
pub const ENV_LDS: &str = "DSXOR_HIPSIM_LDS";
/// `kept` (default) or `restored`: what a late DS or vector-memory result
/// does to its destination's lanes that were inactive at issue (the
/// software device's policies `unused-lanes-kept` and
/// `unused-lanes-restored`, `dsxor::emu::UNUSED_LANES_POLICY`).
/// `restored` is the device Mesa's gfx11 warning allows: `dsxor run
/// --probe unused-vdst-lanes` passes on both and says which it saw.
pub const ENV_UNUSED_LANES: &str = "DSXOR_HIPSIM_UNUSED_LANES";
/// `exact` (default) or `one-short`: how `s_waitcnt` counts
/// (`dsxor::emu::WaitCount`). `one-short` is a device whose partial waits
/// leave one result too many outstanding: `dsxor run --probe
/// smem-in-flight` must fail on it.
pub const ENV_WAITCNT: &str = "DSXOR_HIPSIM_WAITCNT";
/// `nullified` (default) or `unchecked`: what a returning memory
/// instruction whose destination lies past the wave's VGPR allocation
/// does (`dsxor::emu::VdstRange`). `unchecked` is a device without the
/// RDNA3 ISA guide's §3.3.3 rule: `dsxor run --probe vdst-out-of-range`
/// must fail on it.
pub const ENV_VDST_RANGE: &str = "DSXOR_HIPSIM_VDST_RANGE";
pub const ENV_CUS: &str = "DSXOR_HIPSIM_CUS";
pub const ENV_CLOCK_KHZ: &str = "DSXOR_HIPSIM_CLOCK_KHZ";
pub const ENV_RUNTIME_VERSION: &str = "DSXOR_HIPSIM_RUNTIME_VERSION";
/// A file every accepted `hipModuleLaunchKernel` appends one line to:
/// `<pid> <kernel> <workgroups> <work-items per group> <cu|wgp>` (the last
/// the descriptor's COMPUTE_PGM_RSRC1.WGP_MODE). Appended, not
/// rewritten, so the worker processes of one run share it (each line one
/// small `O_APPEND` write).
pub const ENV_LAUNCH_LOG: &str = "DSXOR_HIPSIM_LAUNCH_LOG";
/// ROCm's own variable (rocclr/utils/flags.hpp, `GPU_ENABLE_WGP_MODE`,
/// default true), honoured as ROCm honours it: not a DSXOR_HIPSIM_ one.
pub const ENV_WGP_MODE: &str = "GPU_ENABLE_WGP_MODE";
/// ROCm's own variable (libhsakmt `src/topology.c`,
/// `topology_sysfs_get_node_props`), honoured as ROCm honours it
/// ([`gfx_override`]); `HSA_OVERRIDE_GFX_VERSION_<node>` overrides one node.
pub const ENV_HSA_OVERRIDE: &str = "HSA_OVERRIDE_GFX_VERSION";

/// Every variable, for documentation and error messages.
pub const ALL_VARS: [&str; 16] = [
    ENV_DEVICES,
    ENV_LDS,
    ENV_UNUSED_LANES,
    ENV_WAITCNT,
    ENV_VDST_RANGE,
    ENV_ON_FAULT,
    ENV_FAULT,
    ENV_FAULT_DEVICES,
    ENV_HANG,
    ENV_FAIL,
    ENV_STALL,
    ENV_DEVICE_FAULT,
    ENV_CUS,
    ENV_CLOCK_KHZ,
    ENV_RUNTIME_VERSION,
    ENV_LAUNCH_LOG,
];

/// An RX 7900 XTX (Navi 31): 96 CUs in 48 WGPs, up to 2.5 GHz (AMD's
/// product page; docs/src/internals/facts.md, "LDS banks and the throughput ceiling"), 24 GiB.
pub const DEFAULT_ARCH: &str = "gfx1100";
pub const DEFAULT_CUS: u32 = 96;
pub const DEFAULT_CLOCK_KHZ: u32 = 2_500_000;
/// HIP_VERSION of ROCm 6.2.2 (major * 10_000_000 + minor * 100_000 +
/// patch, hip/hip_version.h): a ROCm 6 runtime, whose fault mode (abort) is
/// the default here too.
pub const DEFAULT_RUNTIME_VERSION: i32 = 60_241_134;

/// What a device fault does (docs/src/internals/facts.md; ROCm/clr rocclr/device/rocm/rocdevice.cpp,
/// `Device::callbackQueue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFault {
    /// ROCm 6.x: the queue's error callback calls `abort()` (SIGABRT).
    Abort,
    /// Current clr with HIP_SKIP_ABORT_ON_GPU_ERROR: the error is latched
    /// and every later call returns it.
    Sticky,
}

/// The whole configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// One `gcnArchName` per device ordinal.
    pub devices: Vec<TargetId>,
    /// Per visible device: its ordinal in `DSXOR_HIPSIM_DEVICES` (the
    /// node a ROCm topology would list it as, minus the CPU node).
    pub physical: Vec<usize>,
    /// Per visible device: the 16 bytes `hipDeviceGetUuid` returns
    /// ([`simulated_uuid`]).
    pub uuids: Vec<[u8; 16]>,
    /// [`ENV_FAULT_DEVICES`]: physical ordinals the fault applies to
    /// (None: every device).
    pub fault_devices: Option<Vec<usize>>,
    pub on_fault: OnFault,
    /// The software device's configuration (fault injection) for every
    /// launch on a device [`Config::faulty`] names.
    pub emu: EmuConfig,
    /// Launches of this kernel never complete.
    pub hang: Option<String>,
    /// The n-th call (1-based) of this entry point fails.
    pub fail: Option<(String, u64)>,
    /// The n-th call (1-based) of this entry point never returns: a runtime
    /// stuck outside any launch (a copy whose completion never arrives), as
    /// ROCm 5.4 on AMD's emulator rocjitsu was seen to be once the emulator
    /// had crashed.
    pub stall: Option<(String, u64)>,
    /// [`ENV_DEVICE_FAULT`]: the n-th launch (1-based, counted per process)
    /// of this kernel faults on the device.
    pub device_fault: Option<(String, u64)>,
    /// [`ENV_LDS`]: every device keeps its LDS between workgroups and
    /// launches (policy `lds-leftover`).
    pub lds_leftover: bool,
    /// Compute units per device (the WGP count reported is half of it).
    pub cus: u32,
    pub clock_khz: u32,
    pub runtime_version: i32,
    /// [`ENV_LAUNCH_LOG`]: where launches are logged.
    pub launch_log: Option<std::path::PathBuf>,
    /// `GPU_ENABLE_WGP_MODE` (rocclr's `enableWgpMode_` on gfx10+): the
    /// multiprocessor count is then WGPs, else CUs.
    pub wgp_mode: bool,
}

impl Config {
    /// From the process environment.
    pub fn from_env() -> Result<Config, String> {
        // `env::var(..).ok()` reads a value that is not UTF-8 as unset: a
        // damaged DSXOR_HIPSIM_DEVICES silently became the default device.
        // Every variable the configuration reads must be text, or it is refused.
        Config::from_lookup_checked(|k| match std::env::var(k) {
            Ok(v) => Ok(Some(v)),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(v)) => Err(format!("{k}={v:?} is not UTF-8 text")),
        })
    }

    /// [`Config::from_lookup`] over a lookup that can refuse a variable.
    fn from_lookup_checked(
        get: impl Fn(&str) -> Result<Option<String>, String>,
    ) -> Result<Config, String> {
        let refused = std::cell::RefCell::new(None);
        let config = Config::from_lookup(|k| {
            get(k).unwrap_or_else(|e| {
                refused.borrow_mut().get_or_insert(e);
                None
            })
        });
        match refused.into_inner() {
            Some(e) => Err(e),
            None => config,
        }
    }

    /// From any lookup (tests pass a map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
        let devices = match get(ENV_DEVICES) {
            None => vec![parse_target(DEFAULT_ARCH)?],
            Some(s) if s.trim().is_empty() => Vec::new(),
            Some(s) => s
                .split(',')
                .map(|t| parse_target(t.trim()))
                .collect::<Result<_, _>>()?,
        };
        let cus = match get(ENV_CUS) {
            None => DEFAULT_CUS,
            Some(s) => match s.trim().parse::<u32>() {
                Ok(n) if (1..=65536).contains(&n) => n,
                _ => return Err(format!("{ENV_CUS}={s}: expected a CU count in 1..=65536")),
            },
        };
        let clock_khz = match get(ENV_CLOCK_KHZ) {
            None => DEFAULT_CLOCK_KHZ,
            Some(s) => match s.trim().parse::<u32>() {
                Ok(n) if n >= 1 && n <= i32::MAX as u32 => n,
                _ => {
                    return Err(format!(
                        "{ENV_CLOCK_KHZ}={s}: expected a clock in kHz (e.g. 2500000)"
                    ))
                }
            },
        };
        let (devices, physical, uuids) = visible(devices, cus, clock_khz, &get);
        let fault_devices = match get(ENV_FAULT_DEVICES).filter(|v| !v.trim().is_empty()) {
            None => None,
            Some(v) => Some(
                v.split(',')
                    .map(|t| t.trim().parse::<usize>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| {
                        format!("{ENV_FAULT_DEVICES}={v}: expected comma-separated device ordinals")
                    })?,
            ),
        };
        // The device heaps are 64 GiB apart below the emulator's own regions
        // (see `memory::heap_base`); 16 devices fit.
        if devices.len() > crate::memory::MAX_DEVICES {
            return Err(format!(
                "{ENV_DEVICES}: {} devices; at most {} are simulated",
                devices.len(),
                crate::memory::MAX_DEVICES
            ));
        }
        let on_fault = match get(ENV_ON_FAULT).as_deref().map(str::trim) {
            None | Some("") | Some("abort") => OnFault::Abort,
            Some("sticky") => OnFault::Sticky,
            Some(o) => return Err(format!("{ENV_ON_FAULT}={o}: expected abort or sticky")),
        };
        let emu = emu_config(&get)?;
        let hang = get(ENV_HANG).filter(|h| !h.trim().is_empty());
        let set = |var| get(var).filter(|f| !f.trim().is_empty());
        let fail = set(ENV_FAIL)
            .map(|f| parse_nth_call(ENV_FAIL, &f))
            .transpose()?;
        let stall = set(ENV_STALL)
            .map(|f| parse_nth_call(ENV_STALL, &f))
            .transpose()?;
        let device_fault = set(ENV_DEVICE_FAULT)
            .map(|f| parse_nth_launch(&f))
            .transpose()?;
        let runtime_version = match get(ENV_RUNTIME_VERSION) {
            None => DEFAULT_RUNTIME_VERSION,
            Some(s) => parse_version(&s)
                .ok_or_else(|| format!("{ENV_RUNTIME_VERSION}={s}: expected MAJOR.MINOR.PATCH or HIP_VERSION's integer"))?,
        };
        let lds_leftover = match get(ENV_LDS).as_deref().map(str::trim) {
            None | Some("") | Some("cleared") => false,
            Some("leftover") => true,
            Some(o) => return Err(format!("{ENV_LDS}={o}: expected cleared or leftover")),
        };
        let wgp_mode = get(ENV_WGP_MODE).is_none_or(|v| rocclr_bool(&v));
        let launch_log = get(ENV_LAUNCH_LOG)
            .filter(|p| !p.trim().is_empty())
            .map(std::path::PathBuf::from);
        Ok(Config {
            launch_log,
            devices,
            physical,
            uuids,
            fault_devices,
            on_fault,
            emu,
            hang,
            fail,
            stall,
            device_fault,
            lds_leftover,
            cus,
            clock_khz,
            runtime_version,
            wgp_mode,
        })
    }
}

/// The devices `HIP_VISIBLE_DEVICES` leaves of those `ROCR_VISIBLE_DEVICES`
/// leaves of the configured ones (after any gfx override), with each one's
/// physical ordinal and UUID: the runtimes' layers in their order.
fn visible(
    devices: Vec<TargetId>,
    cus: u32,
    clock_khz: u32,
    get: &impl Fn(&str) -> Option<String>,
) -> (Vec<TargetId>, Vec<usize>, Vec<[u8; 16]>) {
    // The UUID is the silicon's: from the configured device, before any
    // override of its target.
    let all_uuids: Vec<[u8; 16]> = devices
        .iter()
        .enumerate()
        .map(|(i, t)| simulated_uuid(i, t, cus, clock_khz))
        .collect();
    // The override is libhsakmt's, below ROCr and clr: it applies to
    // every GPU node before ROCR_VISIBLE_DEVICES (ROCr) and then
    // HIP_VISIBLE_DEVICES (clr) pick among them.
    let devices = gfx_override(devices, get);
    // A refused override leaves no device at all (ROCm's initialisation
    // fails), so no UUID either.
    let mut all_uuids = all_uuids;
    all_uuids.truncate(devices.len());
    let rocr = rocr_visible(&all_uuids, get(ENV_ROCR_VISIBLE).as_deref());
    let hip = visible_ordinals(
        rocr.len(),
        get("HIP_VISIBLE_DEVICES").or_else(|| get("CUDA_VISIBLE_DEVICES")),
    );
    let physical: Vec<usize> = hip.into_iter().map(|i| rocr[i]).collect();
    let uuids = physical.iter().map(|&i| all_uuids[i]).collect();
    let devices: Vec<TargetId> = physical.iter().map(|&i| devices[i].clone()).collect();
    (devices, physical, uuids)
}

/// The software device's configuration from its variables: the fault and
/// the emulator's policies.
fn emu_config(get: &impl Fn(&str) -> Option<String>) -> Result<EmuConfig, String> {
    let mut emu = EmuConfig::default();
    if let Some(f) = get(ENV_FAULT).filter(|f| !f.trim().is_empty()) {
        // The emulator's own parser (whatever syntax it accepts, the
        // variable accepts), into the emulator's own field.
        emu.fault = Some(
            f.trim()
                .parse()
                .map_err(|e| format!("{ENV_FAULT}={f}: {e}"))?,
        );
    }
    emu.unused_lanes = match get(ENV_UNUSED_LANES).as_deref().map(str::trim) {
        None | Some("") | Some("kept") => dsxor::emu::UnusedLanes::Kept,
        Some("restored") => dsxor::emu::UnusedLanes::Restored,
        Some(o) => return Err(format!("{ENV_UNUSED_LANES}={o}: expected kept or restored")),
    };
    emu.waitcnt = match get(ENV_WAITCNT).as_deref().map(str::trim) {
        None | Some("") | Some("exact") => dsxor::emu::WaitCount::Exact,
        Some("one-short") => dsxor::emu::WaitCount::OneShort,
        Some(o) => return Err(format!("{ENV_WAITCNT}={o}: expected exact or one-short")),
    };
    emu.vdst_range = match get(ENV_VDST_RANGE).as_deref().map(str::trim) {
        None | Some("") | Some("nullified") => dsxor::emu::VdstRange::Nullified,
        Some("unchecked") => dsxor::emu::VdstRange::Unchecked,
        Some(o) => {
            return Err(format!(
                "{ENV_VDST_RANGE}={o}: expected nullified or unchecked"
            ))
        }
    };
    Ok(emu)
}

impl Config {
    /// Whether `DSXOR_HIPSIM_FAULT` applies to the device of this physical
    /// ordinal ([`ENV_FAULT_DEVICES`]).
    pub fn faulty(&self, physical: usize) -> bool {
        self.fault_devices
            .as_ref()
            .is_none_or(|l| l.contains(&physical))
    }
}

/// The ISAs ROCr's registry knows, as `HSA_OVERRIDE_GFX_VERSION` names
/// them (ROCR-Runtime `runtime/hsa-runtime/core/runtime/isa.cpp`,
/// `IsaRegistry::GetSupportedIsas`, the `ISAREG_ENTRY_GEN` rows without a
/// feature suffix, at ROCR-Runtime c7785a6, October 2024): name, major,
/// minor, stepping, and whether the ISA has the sramecc and xnack features
/// (`unsupported` there: the feature is dropped).
const ROCR_ISAS: &[(&str, u32, u32, u32, bool, bool)] = &[
    ("gfx700", 7, 0, 0, false, false),
    ("gfx701", 7, 0, 1, false, false),
    ("gfx702", 7, 0, 2, false, false),
    ("gfx801", 8, 0, 1, false, true),
    ("gfx802", 8, 0, 2, false, false),
    ("gfx803", 8, 0, 3, false, false),
    ("gfx805", 8, 0, 5, false, false),
    ("gfx810", 8, 1, 0, false, true),
    ("gfx900", 9, 0, 0, false, true),
    ("gfx902", 9, 0, 2, false, true),
    ("gfx904", 9, 0, 4, false, true),
    ("gfx906", 9, 0, 6, true, true),
    ("gfx908", 9, 0, 8, true, true),
    ("gfx909", 9, 0, 9, false, true),
    ("gfx90a", 9, 0, 10, true, true),
    ("gfx90c", 9, 0, 12, false, true),
    ("gfx940", 9, 4, 0, true, true),
    ("gfx941", 9, 4, 1, true, true),
    ("gfx942", 9, 4, 2, true, true),
    ("gfx1010", 10, 1, 0, false, true),
    ("gfx1011", 10, 1, 1, false, true),
    ("gfx1012", 10, 1, 2, false, true),
    ("gfx1013", 10, 1, 3, false, true),
    ("gfx1030", 10, 3, 0, false, false),
    ("gfx1031", 10, 3, 1, false, false),
    ("gfx1032", 10, 3, 2, false, false),
    ("gfx1033", 10, 3, 3, false, false),
    ("gfx1034", 10, 3, 4, false, false),
    ("gfx1035", 10, 3, 5, false, false),
    ("gfx1036", 10, 3, 6, false, false),
    ("gfx1100", 11, 0, 0, false, false),
    ("gfx1101", 11, 0, 1, false, false),
    ("gfx1102", 11, 0, 2, false, false),
    ("gfx1103", 11, 0, 3, false, false),
    ("gfx1150", 11, 5, 0, false, false),
    ("gfx1151", 11, 5, 1, false, false),
    ("gfx1152", 11, 5, 2, false, false),
    ("gfx1200", 12, 0, 0, false, false),
    ("gfx1201", 12, 0, 1, false, false),
];

/// Policy `hipsim-one-cpu-node`: the simulated topology is one CPU node
/// (KFD node 0, as on a one-socket machine) and then the GPUs, so device
/// ordinal `i` is node `i + 1` for `HSA_OVERRIDE_GFX_VERSION_<node>`.
pub const POLICY_ONE_CPU_NODE: &str = "hipsim-one-cpu-node";

/// `HSA_OVERRIDE_GFX_VERSION` applied as ROCm applies it:
/// - libhsakmt `topology.c` reads `HSA_OVERRIDE_GFX_VERSION_<node>`, else
///   `HSA_OVERRIDE_GFX_VERSION`, for each GPU node, as
///   `sscanf(envvar, "%u.%u.%u%c", ...) == 3` with major <= 63, minor and
///   stepping <= 255; anything else is "HSA_OVERRIDE_GFX_VERSION %s is
///   invalid" and fails the topology, and with it ROCr's initialisation;
/// - ROCr `amd_gpu_agent.cpp` (`GpuAgent::GpuAgent`) then takes the ISA of
///   the override's version from its registry ([`ROCR_ISAS`]); a version it
///   does not know throws "Agent creation failed. The GPU node has an
///   unrecognized id." (HSA_STATUS_ERROR_INVALID_ISA).
///
/// Either failure leaves clr with no device (`ihipDeviceGetCount`: count 0,
/// hipErrorNoDevice), which is what the simulator gives, with the reason on
/// stderr. The device keeps what it is (CUs, clock); only the target it
/// reports and loads code objects for changes, as on hardware.
pub fn gfx_override(
    devices: Vec<TargetId>,
    get: &impl Fn(&str) -> Option<String>,
) -> Vec<TargetId> {
    let mut out = Vec::with_capacity(devices.len());
    for (ordinal, dev) in devices.into_iter().enumerate() {
        let node = ordinal + 1;
        let per_node = format!("{ENV_HSA_OVERRIDE}_{node}");
        let Some((var, v)) = get(&per_node)
            .map(|v| (per_node.clone(), v))
            .or_else(|| get(ENV_HSA_OVERRIDE).map(|v| (ENV_HSA_OVERRIDE.to_string(), v)))
        else {
            out.push(dev);
            continue;
        };
        match override_isa(&v) {
            Ok((name, sramecc, xnack)) => out.push(TargetId {
                processor: name.to_string(),
                sramecc: if sramecc {
                    dev.sramecc
                } else {
                    Feature::Unsupported
                },
                xnack: if xnack {
                    dev.xnack
                } else {
                    Feature::Unsupported
                },
                generic_version: 0,
            }),
            Err(why) => {
                eprintln!(
                    "dsxor-hipsim: {var}={v}: {why}: no device (as ROCm's initialisation fails)"
                );
                return Vec::new();
            }
        }
    }
    out
}

/// The registry entry of an override value, or why there is none.
fn override_isa(v: &str) -> Result<(&'static str, bool, bool), String> {
    // sscanf's "%u.%u.%u%c" == 3: three decimal fields and nothing after
    // (%u skips leading blanks and takes a '+'; a '-' wraps to a value
    // past every bound, refused here directly).
    let fields: Vec<&str> = v.trim_start().split('.').collect();
    let num = |f: &str| -> Option<u32> {
        let f = f.trim_start();
        let f = f.strip_prefix('+').unwrap_or(f);
        (!f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
            .then(|| f.parse().ok())
            .flatten()
    };
    let parsed = match fields.as_slice() {
        [a, b, c] => num(a).zip(num(b)).zip(num(c)).map(|((a, b), c)| (a, b, c)),
        _ => None,
    };
    let (major, minor, step) = match parsed {
        Some((a, b, c)) if a <= 63 && b <= 255 && c <= 255 => (a, b, c),
        _ => return Err("invalid (libhsakmt: expected MAJOR.MINOR.STEPPING, major <= 63, minor and stepping <= 255)".into()),
    };
    ROCR_ISAS
        .iter()
        .find(|i| (i.1, i.2, i.3) == (major, minor, step))
        .map(|i| (i.0, i.4, i.5))
        .ok_or_else(|| {
            format!("ROCr's ISA registry has no {major}.{minor}.{step} (\"The GPU node has an unrecognized id\")")
        })
}

/// ROCr's variable, applied below clr's `HIP_VISIBLE_DEVICES`.
pub const ENV_ROCR_VISIBLE: &str = "ROCR_VISIBLE_DEVICES";

/// Policy `hipsim-uuid`: a simulated device's UUID is the FNV-1a hash (64
/// bits) of `<ordinal>:<target>:<CUs>:<clock kHz>` (its ordinal in
/// `DSXOR_HIPSIM_DEVICES` and its configuration), as 16 upper-case hex
/// digits: the form ROCr gives a GPU's UUID after its `GPU-` prefix
/// (ROCR-Runtime `core/runtime/amd_filter_device.cpp`,
/// `RvdFilter::BuildDeviceUuidList`: the KFD node's `UniqueID` as 16
/// upper-case hex digits) and clr copies into `hipDeviceGetUuid`'s 16
/// bytes (hipamd/src/hip_device.cpp). Stable for a configuration, distinct
/// per ordinal, never a real GPU's (a real one is per silicon).
pub fn simulated_uuid(ordinal: usize, target: &TargetId, cus: u32, clock_khz: u32) -> [u8; 16] {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in format!("{ordinal}:{target}:{cus}:{clock_khz}").bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut out = [0u8; 16];
    out.copy_from_slice(format!("{h:016X}").as_bytes());
    out
}

/// The devices ROCr surfaces under `ROCR_VISIBLE_DEVICES`, as ordinals into
/// all of them, applied as ROCR-Runtime `core/runtime/amd_filter_device.cpp`
/// (`RvdFilter`) applies it: unset, every device; set but empty, none;
/// otherwise comma-separated tokens, each upper-cased and trimmed, a token
/// starting with `G` a UUID (`GPU-` and a prefix of the 16 hex digits that
/// matches exactly one device), any other an index as `strtol(token, &end,
/// 0)` reads it (decimal, `0x` hex or `0` octal) with nothing after it. An
/// invalid, unknown, out-of-range or repeated token ends the list; at most
/// as many tokens as devices are read. The surfaced devices keep the list's
/// order (the rank `GetUsrDeviceRank` gives).
pub fn rocr_visible(uuids: &[[u8; 16]], list: Option<&str>) -> Vec<usize> {
    let Some(list) = list else {
        return (0..uuids.len()).collect();
    };
    let mut out: Vec<usize> = Vec::new();
    for token in list.split(',').take(uuids.len()) {
        let token = token.trim().to_uppercase();
        let idx = if token.starts_with('G') {
            if !(5..=20).contains(&token.len()) {
                break;
            }
            let matches: Vec<usize> = uuids
                .iter()
                .enumerate()
                .filter(|(_, u)| {
                    format!("GPU-{}", String::from_utf8_lossy(&u[..])).starts_with(&token)
                })
                .map(|(i, _)| i)
                .collect();
            match matches.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        } else {
            strtol0(&token)
        };
        match idx {
            Some(i) if i < uuids.len() && !out.contains(&i) => out.push(i),
            _ => break,
        }
    }
    out
}

/// C's `strtol(s, &end, 0)` with `*end == '\0'` required: optional blanks
/// and sign, then `0x` hex, `0` octal or decimal digits; None when anything
/// is left over, nothing was read, or the value is negative.
fn strtol0(s: &str) -> Option<usize> {
    let s = s.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(h) = s.strip_prefix("0X") {
        (16, h)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if digits.is_empty() {
        return None;
    }
    let v = usize::from_str_radix(digits, radix).ok()?;
    (!neg || v == 0).then_some(v)
}

/// The devices a process sees through `HIP_VISIBLE_DEVICES` (else
/// `CUDA_VISIBLE_DEVICES`), as ROCm/clr applies it in
/// rocclr/device/rocm/rocdevice.cpp `Device::init`: a comma-separated list
/// of ordinals into the runtime's GPU agents, in the list's order; an entry
/// that is not exactly the decimal form of an existing ordinal ends the list
/// ("anything to the right of invalid deviceId has to be discarded"); a
/// repeated ordinal counts once. `GPU-<uuid>` entries name an agent by its
/// UUID there; the simulator honours UUIDs in `ROCR_VISIBLE_DEVICES`
/// ([`rocr_visible`]) only, so here such an entry ends the list as an
/// unknown UUID does in clr (it falls through to `atoi`). An empty or
/// unset variable leaves every device visible.
pub fn visible_devices(devices: Vec<TargetId>, list: Option<String>) -> Vec<TargetId> {
    visible_ordinals(devices.len(), list)
        .into_iter()
        .map(|i| devices[i].clone())
        .collect()
}

/// [`visible_devices`] as ordinals into `count` devices.
pub fn visible_ordinals(count: usize, list: Option<String>) -> Vec<usize> {
    let Some(list) = list.filter(|l| !l.is_empty()) else {
        return (0..count).collect();
    };
    let mut seen = Vec::new();
    for entry in list.split(',') {
        match entry.parse::<usize>() {
            Ok(i) if i < count && entry == i.to_string() => {
                if !seen.contains(&i) {
                    seen.push(i);
                }
            }
            _ => break,
        }
    }
    seen
}

/// A boolean flag's value as rocclr parses it (ROCm/clr
/// rocclr/utils/flags.cpp, `Flag::setValue`, `Tbool`:
/// `strcmp(value, "true") == 0 || atoi(value) != 0`): exactly `true`, or
/// a leading integer (after blanks and a sign, as C's `atoi` reads it)
/// that is not zero. So `TRUE`, `yes`, `on` and the empty string are false.
pub fn rocclr_bool(value: &str) -> bool {
    if value == "true" {
        return true;
    }
    // atoi: skip isspace, an optional sign, then the decimal digits.
    let v = value.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let v = v.strip_prefix(['+', '-']).unwrap_or(v);
    v.bytes().take_while(u8::is_ascii_digit).any(|d| d != b'0')
}

fn parse_target(s: &str) -> Result<TargetId, String> {
    TargetId::parse(s).map_err(|e| format!("{ENV_DEVICES}: {e}"))
}

fn parse_nth_call(var: &str, s: &str) -> Result<(String, u64), String> {
    let bad = || {
        format!(
            "{var}={s}: expected ENTRY_POINT:N (N >= 1), ENTRY_POINT one of {}",
            crate::ENTRY_POINTS.join(", ")
        )
    };
    let (name, n) = s.trim().rsplit_once(':').ok_or_else(bad)?;
    let n: u64 = n.parse().map_err(|_| bad())?;
    if n == 0 || !crate::ENTRY_POINTS.contains(&name) {
        return Err(bad());
    }
    Ok((name.to_string(), n))
}

/// `KERNEL:N` of [`ENV_DEVICE_FAULT`]: a kernel name (any symbol) and N >= 1.
fn parse_nth_launch(s: &str) -> Result<(String, u64), String> {
    let bad = || format!("{ENV_DEVICE_FAULT}={s}: expected KERNEL:N (a kernel name, N >= 1)");
    let (name, n) = s.trim().rsplit_once(':').ok_or_else(bad)?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    let name = name.trim();
    if n == 0 || name.is_empty() {
        return Err(bad());
    }
    Ok((name.to_string(), n))
}

/// `6.2.41134` or `60241134` → HIP_VERSION's integer.
fn parse_version(s: &str) -> Option<i32> {
    let s = s.trim();
    if let Ok(v) = s.parse::<i32>() {
        return (v > 0).then_some(v);
    }
    let mut parts = s.split('.');
    let major: i32 = parts.next()?.parse().ok()?;
    let minor: i32 = parts.next()?.parse().ok()?;
    let patch: i32 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || minor > 99 || patch > 99_999 || major > 200 {
        return None;
    }
    Some(major * 10_000_000 + minor * 100_000 + patch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(pairs: &[(&str, &str)]) -> Result<Config, String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| m.get(k).cloned())
    }

    #[test]
    fn defaults_describe_one_rx_7900_xtx() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c.devices.len(), 1);
        assert_eq!(c.devices[0].to_string(), "gfx1100");
        assert_eq!(c.on_fault, OnFault::Abort);
        assert_eq!(c.emu, EmuConfig::default());
        assert_eq!((c.cus, c.clock_khz), (96, 2_500_000));
        assert_eq!(c.runtime_version, 60_241_134);
        assert!(c.wgp_mode);
    }

    /// DSXOR_HIPSIM_DEVICE_FAULT: KERNEL:N, any kernel name, N from 1.
    #[test]
    fn device_fault_names_a_kernel_and_a_launch() {
        assert_eq!(cfg(&[]).unwrap().device_fault, None);
        let c = cfg(&[(ENV_DEVICE_FAULT, "dsxor_conformance_off0:4")]).unwrap();
        assert_eq!(c.device_fault, Some(("dsxor_conformance_off0".into(), 4)));
        for bad in ["dsxor_conformance_off0", "k:0", ":3", "k:x", "k:-1"] {
            let e = cfg(&[(ENV_DEVICE_FAULT, bad)]).unwrap_err();
            assert!(e.contains("expected KERNEL:N"), "{bad}: {e}");
        }
    }

    fn targets(c: &Config) -> Vec<String> {
        c.devices.iter().map(|t| t.to_string()).collect()
    }

    /// libhsakmt's parse and ROCr's registry: the node override first, then
    /// the global one; bad values and unknown ISAs leave no device.
    #[test]
    fn hsa_override_gfx_version_is_applied_as_libhsakmt_and_rocr_apply_it() {
        let two = ("DSXOR_HIPSIM_DEVICES", "gfx1101,gfx1102");
        let c = cfg(&[two, ("HSA_OVERRIDE_GFX_VERSION", "11.0.0")]).unwrap();
        assert_eq!(targets(&c), ["gfx1100", "gfx1100"]);
        // Node 2 is ordinal 1 (policy hipsim-one-cpu-node).
        let c = cfg(&[two, ("HSA_OVERRIDE_GFX_VERSION_2", "11.0.0")]).unwrap();
        assert_eq!(targets(&c), ["gfx1101", "gfx1100"]);
        let c = cfg(&[
            two,
            ("HSA_OVERRIDE_GFX_VERSION", "10.3.0"),
            ("HSA_OVERRIDE_GFX_VERSION_1", "11.0.0"),
        ])
        .unwrap();
        assert_eq!(targets(&c), ["gfx1100", "gfx1030"]);
        // A hex stepping in the name, a decimal one in the version.
        let c = cfg(&[
            ("DSXOR_HIPSIM_DEVICES", "gfx908:xnack-"),
            ("HSA_OVERRIDE_GFX_VERSION", "9.0.10"),
        ])
        .unwrap();
        assert_eq!(targets(&c), ["gfx90a:xnack-"]);
        // gfx11 has no xnack: the feature goes with the ISA.
        let c = cfg(&[
            ("DSXOR_HIPSIM_DEVICES", "gfx908:xnack-"),
            ("HSA_OVERRIDE_GFX_VERSION", "11.0.0"),
        ])
        .unwrap();
        assert_eq!(targets(&c), ["gfx1100"]);
        // %u skips blanks and takes '+'.
        let c = cfg(&[two, ("HSA_OVERRIDE_GFX_VERSION", " +11. 0.0")]).unwrap();
        assert_eq!(targets(&c), ["gfx1100", "gfx1100"]);
        for bad in [
            "11.0", "11.0.0.0", "11.0.0 ", "11.0.0x", "gfx1100", "64.0.0", "11.256.0", "11.0.-1",
            "", "11.0.9", "13.0.0",
        ] {
            let c = cfg(&[two, ("HSA_OVERRIDE_GFX_VERSION", bad)]).unwrap();
            assert!(c.devices.is_empty(), "{bad:?}: {:?}", targets(&c));
        }
        // The override is below HIP_VISIBLE_DEVICES: node numbers stay.
        let c = cfg(&[
            two,
            ("HSA_OVERRIDE_GFX_VERSION_2", "11.0.0"),
            ("HIP_VISIBLE_DEVICES", "1"),
        ])
        .unwrap();
        assert_eq!(targets(&c), ["gfx1100"]);
    }

    /// rocclr's Tbool (flags.cpp): "true" or atoi(value) != 0.
    #[test]
    fn gpu_enable_wgp_mode_parses_as_rocclr_parses_it() {
        for (v, want) in [
            ("1", true),
            ("true", true),
            (" 2", true),
            ("-1", true),
            ("1x", true),
            ("007", true),
            ("0", false),
            ("false", false),
            ("TRUE", false),
            ("yes", false),
            ("", false),
            ("00", false),
            ("x1", false),
        ] {
            assert_eq!(rocclr_bool(v), want, "{v:?}");
            assert_eq!(cfg(&[(ENV_WGP_MODE, v)]).unwrap().wgp_mode, want, "{v:?}");
        }
    }

    #[test]
    fn a_variable_that_is_not_text_is_refused() {
        let e = Config::from_lookup_checked(|k| {
            if k == ENV_DEVICES {
                Err(format!("{k}=\"\\xFF\" is not UTF-8 text"))
            } else {
                Ok(None)
            }
        })
        .unwrap_err();
        assert!(e.contains(ENV_DEVICES), "{e}");
    }

    #[test]
    fn devices_list_and_empty() {
        let c = cfg(&[(ENV_DEVICES, "gfx1100, gfx90a:xnack-")]).unwrap();
        assert_eq!(c.devices.len(), 2);
        assert_eq!(c.devices[1].to_string(), "gfx90a:xnack-");
        assert!(cfg(&[(ENV_DEVICES, "")]).unwrap().devices.is_empty());
        let e = cfg(&[(ENV_DEVICES, "gfx1100,sm_80")]).unwrap_err();
        assert!(e.contains(ENV_DEVICES), "{e}");
    }

    #[test]
    fn faults_parse_with_the_emulators_parser() {
        for f in dsxor::emu::Fault::ALL {
            let c = cfg(&[(ENV_FAULT, f.name())]).unwrap();
            assert_eq!(c.emu.fault.map(|x| x.to_string()), Some(f.name().into()));
        }
        let e = cfg(&[(ENV_FAULT, "no-such-fault")]).unwrap_err();
        assert!(e.contains("known faults"), "{e}");
    }

    #[test]
    fn visible_devices_filter_as_clr_does() {
        let two = "gfx1100,gfx90a";
        let arch = |c: &Config| c.devices.iter().map(|d| d.to_string()).collect::<Vec<_>>();
        let c = cfg(&[(ENV_DEVICES, two), ("HIP_VISIBLE_DEVICES", "1")]).unwrap();
        assert_eq!(arch(&c), ["gfx90a"]);
        // Order and duplicates: the list's order, each ordinal once.
        let c = cfg(&[(ENV_DEVICES, two), ("HIP_VISIBLE_DEVICES", "1,0,1")]).unwrap();
        assert_eq!(arch(&c), ["gfx90a", "gfx1100"]);
        // An invalid entry ends the list; "01" is not "1"; out of range ends it.
        for (list, want) in [("0,x,1", vec!["gfx1100"]), ("01", vec![]), ("2,0", vec![])] {
            let c = cfg(&[(ENV_DEVICES, two), ("HIP_VISIBLE_DEVICES", list)]).unwrap();
            assert_eq!(arch(&c), want, "{list}");
        }
        // HIP_VISIBLE_DEVICES wins; CUDA_VISIBLE_DEVICES otherwise; empty: all.
        let c = cfg(&[
            (ENV_DEVICES, two),
            ("HIP_VISIBLE_DEVICES", "0"),
            ("CUDA_VISIBLE_DEVICES", "1"),
        ])
        .unwrap();
        assert_eq!(arch(&c), ["gfx1100"]);
        let c = cfg(&[(ENV_DEVICES, two), ("CUDA_VISIBLE_DEVICES", "1")]).unwrap();
        assert_eq!(arch(&c), ["gfx90a"]);
        let c = cfg(&[(ENV_DEVICES, two), ("HIP_VISIBLE_DEVICES", "")]).unwrap();
        assert_eq!(arch(&c).len(), 2);
    }

    /// ROCr's RvdFilter: indices (strtol base 0) or unique UUID prefixes,
    /// the list's order, the first bad, unknown or repeated token ends it;
    /// set but empty: no device. HIP_VISIBLE_DEVICES then indexes what
    /// ROCr surfaced; UUIDs and bus ids stay the physical device's.
    #[test]
    fn rocr_visible_devices_filter_as_rocr_does() {
        let t = TargetId::parse("gfx1100").unwrap();
        let u: Vec<[u8; 16]> = (0..4).map(|i| simulated_uuid(i, &t, 96, 1)).collect();
        let ten: Vec<[u8; 16]> = (0..10).map(|i| simulated_uuid(i, &t, 96, 1)).collect();
        let text = |i: usize| format!("GPU-{}", String::from_utf8_lossy(&u[i]));
        assert_eq!(rocr_visible(&u, None), [0, 1, 2, 3]);
        assert_eq!(rocr_visible(&u, Some("")), Vec::<usize>::new());
        assert_eq!(rocr_visible(&u, Some("2, 0x1")), [2, 1]);
        assert_eq!(rocr_visible(&u, Some("3,x,1")), [3]);
        assert_eq!(rocr_visible(&u, Some("1,1,2")), [1]);
        assert_eq!(rocr_visible(&u, Some("4,0")), Vec::<usize>::new());
        assert_eq!(
            rocr_visible(&ten, Some("010")),
            [8],
            "octal, as strtol base 0"
        );
        let lower = text(2).to_lowercase();
        assert_eq!(rocr_visible(&u, Some(&format!("{lower},0"))), [2, 0]);
        assert_eq!(
            rocr_visible(&u, Some("GPU-")),
            Vec::<usize>::new(),
            "ambiguous prefix"
        );
        // Distinct per ordinal, stable, 16 upper-case hex digits.
        assert!(u.windows(2).all(|w| w[0] != w[1]));
        assert_eq!(u[0], simulated_uuid(0, &t, 96, 1));
        assert!(u[0]
            .iter()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_lowercase()));
        let c = cfg(&[
            (ENV_DEVICES, "gfx1100,gfx1100,gfx1100"),
            ("ROCR_VISIBLE_DEVICES", "2,1"),
            ("HIP_VISIBLE_DEVICES", "1"),
        ])
        .unwrap();
        assert_eq!(c.physical, [1]);
        let all = cfg(&[(ENV_DEVICES, "gfx1100,gfx1100,gfx1100")]).unwrap();
        assert_eq!(c.uuids[0], all.uuids[1]);
    }

    #[test]
    fn the_fault_applies_to_the_devices_named() {
        let c = cfg(&[(ENV_DEVICES, "gfx1100,gfx1100")]).unwrap();
        assert!(c.faulty(0) && c.faulty(1));
        let c = cfg(&[(ENV_DEVICES, "gfx1100,gfx1100"), (ENV_FAULT_DEVICES, "1")]).unwrap();
        assert!(!c.faulty(0) && c.faulty(1));
        assert!(cfg(&[(ENV_FAULT_DEVICES, "one")]).is_err());
    }

    #[test]
    fn fail_hang_mode_and_overrides() {
        let c = cfg(&[
            (ENV_FAIL, "hipMalloc:3"),
            (ENV_STALL, "hipMemcpyDtoH:2"),
            (ENV_HANG, "k"),
            (ENV_ON_FAULT, "sticky"),
            (ENV_CUS, "60"),
            (ENV_CLOCK_KHZ, "2100000"),
            (ENV_RUNTIME_VERSION, "7.0.12345"),
        ])
        .unwrap();
        assert_eq!(c.fail, Some(("hipMalloc".into(), 3)));
        assert_eq!(c.stall, Some(("hipMemcpyDtoH".into(), 2)));
        let e = cfg(&[(ENV_STALL, "hipNoSuchCall:1")]).unwrap_err();
        assert!(e.contains(ENV_STALL), "{e}");
        assert_eq!(c.hang.as_deref(), Some("k"));
        assert_eq!(c.on_fault, OnFault::Sticky);
        assert_eq!((c.cus, c.clock_khz), (60, 2_100_000));
        assert_eq!(c.runtime_version, 70_012_345);
        for bad in ["hipMalloc", "hipMalloc:0", "hipNothing:1", "hipMalloc:x"] {
            assert!(cfg(&[(ENV_FAIL, bad)]).is_err(), "{bad}");
        }
        assert!(cfg(&[(ENV_ON_FAULT, "ignore")]).is_err());
        assert!(cfg(&[(ENV_CUS, "0")]).is_err());
        assert!(cfg(&[(ENV_RUNTIME_VERSION, "six")]).is_err());
    }
}
