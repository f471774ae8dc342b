//! The simulator's configuration: environment variables, read once, on the
//! first HIP call of the process (as ROCm reads HIP_VISIBLE_DEVICES and its
//! debug variables once at initialisation).

use dsxor::codeobj::TargetId;
use dsxor::emu::EmuConfig;

pub const ENV_DEVICES: &str = "DSXOR_HIPSIM_DEVICES";
pub const ENV_ON_FAULT: &str = "DSXOR_HIPSIM_ON_FAULT";
pub const ENV_FAULT: &str = "DSXOR_HIPSIM_FAULT";
pub const ENV_HANG: &str = "DSXOR_HIPSIM_HANG";
pub const ENV_FAIL: &str = "DSXOR_HIPSIM_FAIL";
pub const ENV_STALL: &str = "DSXOR_HIPSIM_STALL";
pub const ENV_CUS: &str = "DSXOR_HIPSIM_CUS";
pub const ENV_CLOCK_KHZ: &str = "DSXOR_HIPSIM_CLOCK_KHZ";
pub const ENV_RUNTIME_VERSION: &str = "DSXOR_HIPSIM_RUNTIME_VERSION";
/// ROCm's own variable (rocclr/utils/flags.hpp, `GPU_ENABLE_WGP_MODE`,
/// default true), honoured as ROCm honours it: not a DSXOR_HIPSIM_ one.
pub const ENV_WGP_MODE: &str = "GPU_ENABLE_WGP_MODE";

/// Every variable, for documentation and error messages.
pub const ALL_VARS: [&str; 9] = [
    ENV_DEVICES,
    ENV_ON_FAULT,
    ENV_FAULT,
    ENV_HANG,
    ENV_FAIL,
    ENV_STALL,
    ENV_CUS,
    ENV_CLOCK_KHZ,
    ENV_RUNTIME_VERSION,
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
    pub on_fault: OnFault,
    /// The software device's configuration (fault injection) for every launch.
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
    /// Compute units per device (the WGP count reported is half of it).
    pub cus: u32,
    pub clock_khz: u32,
    pub runtime_version: i32,
    /// `GPU_ENABLE_WGP_MODE` (rocclr's `enableWgpMode_` on gfx10+): the
    /// multiprocessor count is then WGPs, else CUs.
    pub wgp_mode: bool,
}

impl Config {
    /// From the process environment.
    pub fn from_env() -> Result<Config, String> {
        Config::from_lookup(|k| std::env::var(k).ok())
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
        let devices = visible_devices(
            devices,
            get("HIP_VISIBLE_DEVICES").or_else(|| get("CUDA_VISIBLE_DEVICES")),
        );
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
        let hang = get(ENV_HANG).filter(|h| !h.trim().is_empty());
        let fail = match get(ENV_FAIL).filter(|f| !f.trim().is_empty()) {
            None => None,
            Some(f) => Some(parse_nth_call(ENV_FAIL, &f)?),
        };
        let stall = match get(ENV_STALL).filter(|f| !f.trim().is_empty()) {
            None => None,
            Some(f) => Some(parse_nth_call(ENV_STALL, &f)?),
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
        let runtime_version = match get(ENV_RUNTIME_VERSION) {
            None => DEFAULT_RUNTIME_VERSION,
            Some(s) => parse_version(&s)
                .ok_or_else(|| format!("{ENV_RUNTIME_VERSION}={s}: expected MAJOR.MINOR.PATCH or HIP_VERSION's integer"))?,
        };
        let wgp_mode = get(ENV_WGP_MODE).is_none_or(|v| rocclr_bool(&v));
        Ok(Config {
            devices,
            on_fault,
            emu,
            hang,
            fail,
            stall,
            cus,
            clock_khz,
            runtime_version,
            wgp_mode,
        })
    }
}

/// The devices a process sees through `HIP_VISIBLE_DEVICES` (else
/// `CUDA_VISIBLE_DEVICES`), as ROCm/clr applies it in
/// rocclr/device/rocm/rocdevice.cpp `Device::init`: a comma-separated list
/// of ordinals into the runtime's GPU agents, in the list's order; an entry
/// that is not exactly the decimal form of an existing ordinal ends the list
/// ("anything to the right of invalid deviceId has to be discarded"); a
/// repeated ordinal counts once. `GPU-<uuid>` entries name an agent by its
/// UUID there; simulated devices have none, so such an entry ends the list
/// as an unknown UUID does in clr (it falls through to `atoi`). An empty or
/// unset variable leaves every device visible.
pub fn visible_devices(devices: Vec<TargetId>, list: Option<String>) -> Vec<TargetId> {
    let Some(list) = list.filter(|l| !l.is_empty()) else {
        return devices;
    };
    let mut seen = Vec::new();
    for entry in list.split(',') {
        match entry.parse::<usize>() {
            Ok(i) if i < devices.len() && entry == i.to_string() => {
                if !seen.contains(&i) {
                    seen.push(i);
                }
            }
            _ => break,
        }
    }
    seen.into_iter().map(|i| devices[i].clone()).collect()
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
