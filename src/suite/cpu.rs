//! CPU time, as the soak's share and `mutate`'s case-seconds count it.

use std::time::Instant;

/// CPU time of the calling thread, in seconds (POSIX
/// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`); elsewhere, wall time since
/// the first call.
pub fn thread_cpu_seconds() -> f64 {
    #[cfg(unix)]
    if let Some(s) = clock_seconds(libc::CLOCK_THREAD_CPUTIME_ID) {
        return s;
    }
    wall_seconds()
}

/// CPU time of this process, every thread, in seconds (POSIX
/// `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`: user and system time of the
/// threads alive and exited, not of child processes); elsewhere, wall time
/// since the first call.
pub fn process_cpu_seconds() -> f64 {
    #[cfg(unix)]
    if let Some(s) = clock_seconds(libc::CLOCK_PROCESS_CPUTIME_ID) {
        return s;
    }
    wall_seconds()
}

#[cfg(unix)]
fn clock_seconds(clock: libc::clockid_t) -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let ok = unsafe { libc::clock_gettime(clock, &mut ts) } == 0;
    ok.then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

fn wall_seconds() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spinning advances both clocks, a sleep not the thread's. The spin
    /// runs until the thread's clock has moved 30 ms (bounded by 10 s of
    /// wall time), so a loaded machine does not make it fail.
    #[test]
    fn busy_work_counts_on_the_thread_and_the_process_and_sleep_does_not() {
        let t0 = thread_cpu_seconds();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let (t1, p1) = (thread_cpu_seconds(), process_cpu_seconds());
        assert!(t1 - t0 < 0.02, "a sleep took {} s of thread CPU", t1 - t0);
        let start = Instant::now();
        let mut x = 1u64;
        while thread_cpu_seconds() - t1 < 0.03 {
            assert!(
                start.elapsed().as_secs() < 10,
                "the thread's clock stands still"
            );
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let (t2, p2) = (thread_cpu_seconds(), process_cpu_seconds());
        assert!(
            p2 - p1 >= t2 - t1 - 1e-3,
            "the process counted less than its thread"
        );
    }
}
