//! The `locksim` command line (DESIGN section 6). Exit status: 0 = as expected, 1 = a
//! violation or an expectation mismatch (or a diverging replay), 2 = bad input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::load::load_file;
use crate::report::RunReport;
use crate::timeline::{TimelineMode, render_run};
use crate::trace_file::{self, Replay};

#[derive(Parser)]
#[command(
    name = "locksim",
    version,
    about = "Deterministic simulation of distributed lock protocols"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario: verdicts, expectations, timeline.
    Run {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// The seed (default: the scenario's own).
        #[arg(long)]
        seed: Option<u64>,
        /// Also write the full trace (JSON) here.
        #[arg(long)]
        trace: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// How much of the run the text timeline shows.
        #[arg(long, value_enum, default_value = "compact")]
        timeline: TimelineMode,
    },
    /// Re-run a trace's scenario and seed; report the first divergent event, or that it is identical.
    Replay {
        /// A trace written by `run --trace`.
        trace: PathBuf,
    },
    /// List protocols, knobs, fault kinds, invariants and events.
    List,
}

/// Writes to stdout. A reader that stops early (`| head`) closes the pipe; that is not an
/// error worth a panic, so write errors end the output quietly.
fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
}

const OK: u8 = 0;
const FAILED: u8 = 1;
const BAD_INPUT: u8 = 2;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    ExitCode::from(match cli.command {
        Command::Run {
            scenario,
            seed,
            trace,
            format,
            timeline,
        } => run(scenario, seed, trace, format, timeline),
        Command::Replay { trace } => replay(trace),
        Command::List => {
            out(&crate::list::render());
            OK
        }
    })
}

fn run(path: PathBuf, seed: Option<u64>, trace: Option<PathBuf>, format: Format, timeline: TimelineMode) -> u8 {
    let loaded = match load_file(&path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let report = RunReport::run(&loaded, seed);
    if let Some(trace_path) = &trace
        && let Err(e) = crate::atomic_file::write(trace_path, trace_file::trace_text(&report).as_bytes())
    {
        eprintln!("error: {}: cannot write the trace: {e}", trace_path.display());
        return BAD_INPUT;
    }
    match format {
        Format::Text => out(&render_run(&report, timeline)),
        Format::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&report.json()).expect("json")
        )),
    }
    if report.as_expected() {
        OK
    } else {
        if format == Format::Text {
            eprintln!("reproduce: locksim run {} --seed {}", loaded.file, report.seed);
        }
        FAILED
    }
}

fn replay(path: PathBuf) -> u8 {
    let trace = match trace_file::read(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    if trace.engine != locksim_sim::ENGINE_VERSION {
        eprintln!(
            "note: the trace was recorded by engine {}, this is {}",
            trace.engine,
            locksim_sim::ENGINE_VERSION
        );
    }
    match trace_file::replay(&trace) {
        Err(e) => {
            eprintln!("error: the trace's scenario does not load: {e}");
            BAD_INPUT
        }
        Ok(Replay::Identical { events }) => {
            out(&format!(
                "identical: {events} events of {} (seed {}) replayed exactly\n",
                trace.scenario_file, trace.seed
            ));
            OK
        }
        Ok(Replay::Diverged {
            index,
            recorded,
            replayed,
        }) => {
            let show = |v: Option<serde_json::Value>| v.map_or("(no event)".to_string(), |v| v.to_string());
            out(&format!(
                "diverges at event #{index}\n  recorded: {}\n  replayed: {}\n",
                show(recorded),
                show(replayed)
            ));
            FAILED
        }
    }
}
