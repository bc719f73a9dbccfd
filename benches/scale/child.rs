//! One row's child process, measured: wall time, CPU time and peak RSS.
//!
//! The peak RSS is `ru_maxrss` from `wait4` on that very child: the kernel's own high-water
//! mark of the child's resident set, kept for its whole life and handed to the parent when it
//! is reaped, so it is exact (no sampling to miss a late peak, unlike polling
//! `/proc/<pid>/status` `VmHWM`, which vanishes once the process exits) and it is the child's
//! alone (`getrusage(RUSAGE_CHILDREN)` would give the largest of all children so far).
//! std's `Child::wait` does not return the rusage, hence `libc::wait4`.

use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};
use std::time::Instant;

/// What one child cost.
pub struct Measured {
    pub status: ExitStatus,
    pub wall_s: f64,
    /// User plus system time.
    pub cpu_s: f64,
    pub peak_rss_bytes: u64,
}

/// Runs `cmd` to its end with its address space capped at `cap_bytes` (a row that outgrows
/// the host must fail, not take the memory of everyone else on it).
pub fn run_measured(mut cmd: Command, cap_bytes: u64) -> io::Result<Measured> {
    // SAFETY: `setrlimit` is async-signal-safe, and the closure touches nothing else.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: cap_bytes,
                rlim_max: cap_bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        });
    }
    let start = Instant::now();
    let child = cmd.spawn()?;
    let mut status = 0;
    // SAFETY: a plain `rusage` of integers, all-zero valid; `wait4` fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own unreaped child; `child` is never waited on after this.
    let reaped = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall_s = start.elapsed().as_secs_f64();
    if reaped < 0 {
        return Err(io::Error::last_os_error());
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Measured {
        status: ExitStatus::from_raw(status),
        wall_s,
        cpu_s: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        // Linux counts it in KiB.
        peak_rss_bytes: usage.ru_maxrss as u64 * 1024,
    })
}
