//! The `locksim` command line (DESIGN section 6). Exit status: 0 = as expected, 1 = a
//! violation or an expectation mismatch (or a diverging replay), 2 = bad input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::render::svg::TimeAxis;
use crate::timeline::TimelineMode;

/// Every message the subcommands write to stderr goes through [`err_line`], so control
/// characters in a name, a path or an edited trace's text are escaped there as they are on
/// stdout: this shadows the standard macro in every module below, so no message can forget.
macro_rules! eprintln {
    () => {
        $crate::cli::err_line("")
    };
    ($($arg:tt)*) => {
        $crate::cli::err_line(&format!($($arg)*))
    };
}

mod explore;
mod merge;
mod render;
mod replay;
mod report;
mod run;
mod view;

use explore::ExploreArgs;
use view::View;

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
        /// Print only this view of the run (no verdicts): `mermaid` or `svg` to redirect into a file.
        /// `--view` is the flag's name in `run` and `render` alike; `--render` is accepted too.
        #[arg(long = "view", visible_alias = "render", value_enum, conflicts_with_all = ["format", "timeline"])]
        view: Option<View>,
        /// How the svg view places its rows: one after another, or by true time (long quiet
        /// spans folded). Only with `--view svg`.
        #[arg(long, value_enum)]
        time_axis: Option<TimeAxis>,
        /// The most events the run may take before it stops (exit 2).
        #[arg(long, default_value_t = locksim_sim::DEFAULT_MAX_EVENTS, value_parser = clap::value_parser!(u64).range(1..))]
        max_events: u64,
    },
    /// Render a trace as a lane timeline, or a sequence diagram in Mermaid or SVG.
    Render {
        /// A trace written by `run --trace`.
        trace: PathBuf,
        /// The view: `--view` as in `run`; `--format` is accepted too.
        #[arg(long = "view", visible_alias = "format", value_enum, default_value = "text")]
        view: View,
        /// How the svg view places its rows: one after another, or by true time (long quiet
        /// spans folded). Only with `--view svg`.
        #[arg(long, value_enum)]
        time_axis: Option<TimeAxis>,
    },
    /// Re-run a trace's scenario and seed; report the first divergent event, or that it is identical.
    Replay {
        /// A trace written by `run --trace`.
        trace: PathBuf,
        /// The most events the replay may take before it stops (exit 2): as the run had.
        #[arg(long, default_value_t = locksim_sim::DEFAULT_MAX_EVENTS, value_parser = clap::value_parser!(u64).range(1..))]
        max_events: u64,
    },
    /// Explore the scenario's fault space over many seeds; shrink the first finding.
    Explore {
        /// The scenario file (TOML); its `[explore]` section (or the protocol's defaults) is the fault space.
        scenario: PathBuf,
        /// How many seeds (0..N).
        #[arg(long)]
        seeds: u64,
        /// Threads (default: all cores). Findings do not depend on it.
        #[arg(long)]
        jobs: Option<usize>,
        /// Take every N-th seed starting at K (`K/N`), for CI matrices and batch clusters.
        #[arg(long)]
        shard: Option<String>,
        /// Explore every seed instead of stopping after the first failing one.
        #[arg(long)]
        keep_going: bool,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Shrink the first finding and write it (a scenario file and its trace) here.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The most runs shrinking may take.
        #[arg(long, default_value_t = 500)]
        shrink_budget: u32,
        /// Hunt one invariant: only its violations count (stop, shrink) as findings.
        #[arg(long)]
        invariant: Option<String>,
        /// The most events each seed's run may take; a seed that needs more is reported (exit 2).
        #[arg(long, default_value_t = locksim_sim::DEFAULT_MAX_EVENTS, value_parser = clap::value_parser!(u64).range(1..))]
        max_events: u64,
    },
    /// Combine the JSON summaries of one exploration's shards (`explore --shard K/N
    /// --keep-going --format json`, every K of 0..N) into the unsharded run's summary.
    Merge {
        /// The shards' summaries (JSON files), in any order.
        #[arg(required = true)]
        summaries: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Write `reports/`: the matrix of catalogue configuration x fault kind (Markdown and JSON)
    /// and the Redlock debate replayed on the catalogue (Markdown and HTML).
    Report {
        /// Where to write matrix.md, matrix.json, redlock-debate.md and redlock-debate.html.
        #[arg(long)]
        out: PathBuf,
        /// The bug catalogue to tabulate.
        #[arg(long, default_value = "tests/bug_catalogue")]
        catalogue: PathBuf,
        /// The scenario catalogue the Redlock walkthrough runs its stories from.
        #[arg(long, default_value = "scenarios")]
        scenarios: PathBuf,
        /// Seeds per cell (the committed report uses the CI budget).
        #[arg(long, default_value_t = crate::report::matrix::CI_BUDGET.seeds)]
        seeds: u64,
        /// Shrinking runs per finding.
        #[arg(long, default_value_t = crate::report::matrix::CI_BUDGET.shrink_runs)]
        shrink_budget: u32,
    },
    /// List protocols, knobs, fault kinds, invariants and events.
    List,
}

/// Writes to stdout. A reader that stops early (`| head`) closes the pipe; that is not an
/// error worth a panic, so write errors end the output quietly. Control characters other than
/// the line break are escaped (`\u{1b}`): a name, a description or a trace's event text could
/// otherwise drive the reader's terminal.
fn out(text: &str) {
    use std::io::Write;
    let text = escape_controls(text);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
}

/// Writes one line to stderr, control characters escaped as [`out`] escapes them.
pub(crate) fn err_line(text: &str) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", escape_controls(text));
}

/// `text` with every control character but `\n` written as its Rust escape; borrowed when it
/// has none, as every catalogue output has none.
fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n';
    if !text.contains(unsafe_char) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out.into()
}

const OK: u8 = 0;
const FAILED: u8 = 1;
const BAD_INPUT: u8 = 2;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    crate::temp_file::remove_on_interrupt();
    ExitCode::from(match cli.command {
        Command::Run {
            scenario,
            seed,
            trace,
            format,
            timeline,
            view,
            time_axis,
            max_events,
        } => match View::time_axis(view, time_axis) {
            Ok(axis) => run::run(
                scenario,
                seed,
                trace,
                format,
                timeline,
                view.map(|v| (v, axis)),
                max_events,
            ),
            Err(e) => {
                eprintln!("error: {e}");
                BAD_INPUT
            }
        },
        Command::Render { trace, view, time_axis } => match View::time_axis(Some(view), time_axis) {
            Ok(axis) => render::render(trace, view, axis),
            Err(e) => {
                eprintln!("error: {e}");
                BAD_INPUT
            }
        },
        Command::Replay { trace, max_events } => replay::replay(trace, max_events),
        Command::Explore {
            scenario,
            seeds,
            jobs,
            shard,
            keep_going,
            format,
            out: out_dir,
            shrink_budget,
            invariant,
            max_events,
        } => explore::explore(ExploreArgs {
            scenario,
            seeds,
            jobs,
            shard,
            keep_going,
            json: format == Format::Json,
            out: out_dir,
            shrink_budget,
            invariant,
            max_events,
        }),
        Command::Merge { summaries, format } => merge::merge(&summaries, format == Format::Json),
        Command::Report {
            out: dir,
            catalogue,
            scenarios,
            seeds,
            shrink_budget,
        } => report::report(dir, &report::Sources { catalogue, scenarios }, seeds, shrink_budget),
        Command::List => {
            out(&crate::list::render());
            OK
        }
    })
}
