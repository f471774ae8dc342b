//! A polite stop: SIGTERM (a CI cancel, a Slurm time limit, a Kubernetes
//! pod deletion), SIGHUP (a closed terminal or SSH session) or SIGINT
//! (Ctrl-C) asks the run to stop after the case in flight, minimization
//! included, so it still writes an `aborted` results file and JUnit within
//! about a second, well inside the grace period before SIGKILL (30 s by
//! default in Kubernetes, `terminationGracePeriodSeconds`; Slurm's
//! `KillWait`, 30 s by default); a second signal ends the process at once
//! (exit 3), for a run stuck in a launch.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

struct Flags {
    /// The signal number that asked to stop (0: none).
    signal: Arc<AtomicUsize>,
    stopping: Arc<AtomicBool>,
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

fn flags() -> &'static Flags {
    FLAGS.get_or_init(|| Flags {
        signal: Arc::new(AtomicUsize::new(0)),
        stopping: Arc::new(AtomicBool::new(false)),
    })
}

/// Catch SIGTERM, SIGHUP and SIGINT from now on (signal-hook's flag handlers: they
/// only store to atomics, which is async-signal-safe).
pub fn watch_signals() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let f = flags();
    for sig in [SIGTERM, SIGHUP, SIGINT] {
        // Registered first, so it sees the flag as the earlier signal left
        // it: the second signal exits, the first only sets the flag.
        signal_hook::flag::register_conditional_shutdown(
            sig,
            i32::from(crate::exit::ENVIRONMENT),
            Arc::clone(&f.stopping),
        )?;
        signal_hook::flag::register_usize(sig, Arc::clone(&f.signal), sig as usize)?;
        signal_hook::flag::register(sig, Arc::clone(&f.stopping))?;
    }
    Ok(())
}

/// Ask the run to stop, as a signal would (for callers and tests).
pub fn request(signal: i32) {
    let f = flags();
    f.signal.store(signal as usize, Ordering::SeqCst);
    f.stopping.store(true, Ordering::SeqCst);
}

/// Why the run must stop (`SIGTERM`, `SIGINT`, `signal N`), if it must.
pub fn requested() -> Option<String> {
    let f = flags();
    if !f.stopping.load(Ordering::SeqCst) {
        return None;
    }
    Some(match f.signal.load(Ordering::SeqCst) as i32 {
        signal_hook::consts::SIGTERM => "SIGTERM".to_string(),
        signal_hook::consts::SIGINT => "SIGINT".to_string(),
        signal_hook::consts::SIGHUP => "SIGHUP".to_string(),
        n => format!("signal {n}"),
    })
}
