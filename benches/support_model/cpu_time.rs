//! A criterion measurement of the benchmark thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), so "per second per core" figures hold on a
//! machine shared with other jobs: time slices spent in other processes are
//! not counted. Wall-clock time elsewhere than Linux.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Throughput;

#[cfg(target_os = "linux")]
fn thread_cpu_ns() -> u64 {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clk: i32, tp: *mut Timespec) -> i32;
    }
    // Linux <time.h>: CLOCK_THREAD_CPUTIME_ID = 3.
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call
    // (the layout of x86_64/aarch64 Linux `struct timespec`).
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return 0;
    }
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_ns() -> u64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static T0: OnceLock<Instant> = OnceLock::new();
    T0.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

pub struct CpuTime;

pub struct CpuTimeFormatter;

impl ValueFormatter for CpuTimeFormatter {
    fn scale_values(&self, typical_ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical_ns < 1e3 {
            (1.0, "cpu-ns")
        } else if typical_ns < 1e6 {
            (1e-3, "cpu-µs")
        } else if typical_ns < 1e9 {
            (1e-6, "cpu-ms")
        } else {
            (1e-9, "cpu-s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per = match throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => {
                *n as f64
            }
        };
        // values are ns per iteration → millions of items per CPU-second.
        values.iter_mut().for_each(|v| *v = per * 1e3 / *v);
        match throughput {
            Throughput::Elements(_) => "Melem/cpu-s",
            _ => "MB/cpu-s",
        }
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "cpu-ns"
    }
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns().saturating_sub(i)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuTimeFormatter
    }
}
