//! Scale: single-Redis worlds of 2 / 64 / 1,000 clients for 60 s / 1 h / 24 h simulated (and
//! 24 h of 3 clients, the issue's memory target), each row run as a child process of the
//! release `locksim` binary, with and without its trace streamed to a file (issue 12, point 3).
//!
//! ```text
//! cargo bench --bench scale                     # the rows estimated at 10 M events or fewer
//! cargo bench --bench scale -- 1000x60s 3x24h   # these rows only (CLIENTSxDURATION, s/m/h/d)
//! cargo bench --bench scale -- no-trace max-est=200000000 mem-cap-mb=16384
//! ```
//!
//! Words: rows to run (when none, the default grid, skipping each row estimated above
//! `max-est` events and printing its estimate and how to run it); `trace` or `no-trace` for
//! one mode only; `max-est=N` (default 10,000,000); `mem-cap-mb=N`, the address-space cap of
//! each child (default 4096: a row that outgrows it dies, reported as such, rather than
//! starving the host).
//!
//! Each row writes its scenario (`benches/scale/rows.rs`) into a temporary folder and runs
//! `locksim run FILE --timeline none --format json --max-events N` (`N` four times the row's
//! estimate), adding `--trace FILE.trace.json` in the trace mode. Per row: events (the run's
//! `events`, every recorded event), wall and CPU seconds, events per wall second, the child's
//! peak RSS (`ru_maxrss` from `wait4`, exact: see `child.rs`) and the trace file's size.
//! Memory targets (issue 12): 3x24h with its trace under 100 MB; 1000x60s under 500 MB.

mod child;
mod rows;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use child::run_measured;
use rows::Row;

const MIB: f64 = 1024.0 * 1024.0;

struct Args {
    rows: Vec<Row>,
    explicit: bool,
    modes: Vec<bool>,
    max_estimate: u64,
    cap_bytes: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        rows: Vec::new(),
        explicit: false,
        modes: vec![false, true],
        max_estimate: 10_000_000,
        cap_bytes: 4096 << 20,
    };
    // `cargo bench` appends `--bench`.
    for word in std::env::args().skip(1).filter(|a| !a.starts_with('-')) {
        let number = |v: &str| v.parse::<u64>().map_err(|_| format!("{word}: not a number"));
        if word == "trace" || word == "no-trace" {
            args.modes = vec![word == "trace"];
        } else if let Some(v) = word.strip_prefix("max-est=") {
            args.max_estimate = number(v)?;
        } else if let Some(v) = word.strip_prefix("mem-cap-mb=") {
            args.cap_bytes = number(v)? << 20;
        } else {
            args.rows.push(
                Row::parse(&word)
                    .ok_or_else(|| format!("{word}: not a row (CLIENTSxDURATION: 1000x60s, 3x24h, 64x1h)"))?,
            );
        }
    }
    args.explicit = !args.rows.is_empty();
    if !args.explicit {
        args.rows = rows::default_rows();
    }
    Ok(args)
}

/// One finished row, or why it failed.
fn run_row(bin: &Path, dir: &Path, row: Row, trace: bool, cap_bytes: u64) -> Result<String, String> {
    let scenario = dir.join(format!("scale-{row}.toml"));
    let trace_file = dir.join(format!("scale-{row}.trace.json"));
    let (out, err) = (dir.join("stdout.json"), dir.join("stderr.txt"));
    fs::write(&scenario, row.scenario()).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(bin);
    cmd.arg("run")
        .arg(&scenario)
        .args(["--timeline", "none", "--format", "json", "--max-events"])
        .arg(row.max_events().to_string())
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out).map_err(|e| e.to_string())?)
        .stderr(fs::File::create(&err).map_err(|e| e.to_string())?);
    if trace {
        cmd.arg("--trace").arg(&trace_file);
    }
    let m = run_measured(cmd, cap_bytes).map_err(|e| format!("{}: {e}", bin.display()))?;
    let trace_bytes = fs::metadata(&trace_file).map_or(0, |m| m.len());
    fs::remove_file(&trace_file).ok();
    let rss = m.peak_rss_bytes as f64 / MIB;
    if !matches!(m.status.code(), Some(0 | 1)) {
        let said = fs::read_to_string(&err).unwrap_or_default();
        let said = said.lines().next().unwrap_or("(nothing on stderr)");
        return Err(format!(
            "{} after {:.1} s, peak RSS {rss:.0} MB (cap {} MB): {said}",
            m.status,
            m.wall_s,
            cap_bytes >> 20
        ));
    }
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&out).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let events = json["events"].as_u64().ok_or("no `events` in locksim's JSON")?;
    Ok(format!(
        "{events:>12} {:>9.2} {:>9.2} {:>11.0} {rss:>12.1} {:>10.1}",
        m.wall_s,
        m.cpu_s,
        events as f64 / m.wall_s,
        trace_bytes as f64 / MIB
    ))
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_locksim"));
    let dir = std::env::temp_dir().join(format!("locksim-scale-bench-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("the temp folder is writable");
    println!(
        "locksim scale bench: single-Redis rows as child processes of {}; memory cap {} MB per child",
        bin.display(),
        args.cap_bytes >> 20
    );
    println!(
        "{:<10} {:<8} {:>12} {:>9} {:>9} {:>11} {:>12} {:>10}",
        "row", "trace", "events", "wall_s", "cpu_s", "events/s", "peak_rss_MB", "trace_MB"
    );
    let mut skipped = Vec::new();
    for &row in &args.rows {
        if !args.explicit && row.estimated_events() > args.max_estimate {
            skipped.push(row);
            continue;
        }
        for &trace in &args.modes {
            let mode = if trace { "file" } else { "none" };
            match run_row(&bin, &dir, row, trace, args.cap_bytes) {
                Ok(line) => println!("{:<10} {mode:<8} {line}", row.to_string()),
                Err(e) => println!("{:<10} {mode:<8} failed: {e}", row.to_string()),
            }
        }
    }
    for row in skipped {
        println!(
            "{:<10} skipped: ~{:.0} M events estimated (over max-est={}); run it with `cargo bench --bench scale -- {row}`",
            row.to_string(),
            row.estimated_events() as f64 / 1e6,
            args.max_estimate
        );
    }
    fs::remove_dir_all(&dir).ok();
}
