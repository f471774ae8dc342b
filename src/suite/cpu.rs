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

/// CPU time of process `pid` so far (user + system, every thread), in
/// seconds: fields 14 and 15 of `/proc/<pid>/stat` (proc(5)) in clock
/// ticks. `None` where there is no such file (not Linux, or the process
/// has been reaped).
pub fn pid_cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: the fields start
    // after the last ')'; field 3 (state) is the first of them.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 2..)?.split(' ').collect();
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    let (utime, stime) = (ticks(11)?, ticks(12)?);
    Some((utime + stime) as f64 / clock_ticks_per_second())
}

/// CPU time of this process and its child processes, in seconds: this
/// process's own ([`process_cpu_seconds`]), the ended children it has
/// waited for (`getrusage(RUSAGE_CHILDREN)`), and the live ones
/// ([`pid_cpu_seconds`] of each pid in `/proc/self/task/*/children`,
/// proc(5), Linux 3.5+). The worker processes that run HIP cases are
/// children: what they do for a soak's cases is its cost too. Where the
/// children cannot be listed, the live ones count from when they end.
pub fn tree_cpu_seconds() -> f64 {
    process_cpu_seconds() + ended_children_cpu_seconds() + live_children_cpu_seconds()
}

fn ended_children_cpu_seconds() -> f64 {
    #[cfg(unix)]
    {
        // SAFETY: `usage` is a valid, writable rusage for the call.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } == 0 {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
            return secs(usage.ru_utime) + secs(usage.ru_stime);
        }
    }
    0.0
}

fn live_children_cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|pids| {
            pids.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .filter_map(pid_cpu_seconds)
        .sum()
}

fn clock_ticks_per_second() -> f64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf reads a configuration value, no memory of ours.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if hz > 0 {
            return hz as f64;
        }
    }
    // proc(5): USER_HZ is 100 on every Linux architecture in use.
    100.0
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

    /// A child's CPU counts in the tree while it runs and after it is
    /// reaped (the kernel's own accounting of a `sh` busy loop, through
    /// /proc and then getrusage).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_process_cpu_counts_in_the_tree_while_it_runs_and_once_reaped() {
        let before = tree_cpu_seconds();
        let own = process_cpu_seconds();
        // A child that burns CPU for seconds; killed once it has burnt 0.1 s.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 5000000 ]; do i=$((i+1)); done"])
            .spawn()
            .expect("sh runs");
        let start = Instant::now();
        let burnt = loop {
            let c = pid_cpu_seconds(child.id()).expect("the child's /proc/<pid>/stat");
            if c >= 0.1 || start.elapsed().as_secs() > 20 {
                break c;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(burnt >= 0.1, "the busy child showed {burnt} s of CPU");
        let live = tree_cpu_seconds() - before - (process_cpu_seconds() - own);
        assert!(
            live >= burnt - 0.02,
            "the live child counted {live} s in the tree, /proc says {burnt} s"
        );
        child.kill().expect("kill");
        child.wait().expect("reap");
        let ended = tree_cpu_seconds() - before - (process_cpu_seconds() - own);
        assert!(
            ended >= burnt - 0.02,
            "the reaped child counted {ended} s in the tree, it had burnt {burnt} s"
        );
    }
}
