//! The `locksim` command line (DESIGN section 6). Exit status: 0 = as expected, 1 = a
//! violation or an expectation mismatch (or a diverging replay), 2 = bad input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::load::load_file;
use crate::render::{Cast, Marks, lanes, mermaid, svg};
use crate::run_result::RunReport;
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

/// A view of a run for people (`render --format`, `run --render`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum View {
    /// A timeline with a lane per node, true time and local clocks side by side.
    Text,
    /// A Mermaid sequence diagram (the content of a ```mermaid block, or a .mmd file).
    Mermaid,
    /// The same sequence diagram as a standalone SVG picture (a .svg file): it opens in any
    /// browser or image viewer, without Mermaid, and shows true time beside every row.
    Svg,
}

/// Mermaid's default `maxTextSize`: over it, Mermaid (and so GitHub) draws an error instead.
const MERMAID_MAX_TEXT: usize = 50_000;

impl View {
    fn render(self, events: &[locksim_sim::trace::TraceEvent], cast: &Cast, marks: &Marks) -> String {
        match self {
            View::Text => lanes(events, marks),
            View::Mermaid => {
                let diagram = mermaid(events, cast, marks);
                let chars = diagram.chars().count();
                if chars > MERMAID_MAX_TEXT {
                    eprintln!(
                        "warning: the diagram has {chars} characters, over Mermaid's default maxTextSize \
                         ({MERMAID_MAX_TEXT}): GitHub will not draw it"
                    );
                }
                diagram
            }
            View::Svg => svg(events, cast, marks),
        }
    }
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
        #[arg(long, value_enum, conflicts_with_all = ["format", "timeline"])]
        render: Option<View>,
    },
    /// Render a trace as a lane timeline, or a sequence diagram in Mermaid or SVG.
    Render {
        /// A trace written by `run --trace`.
        trace: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: View,
    },
    /// Re-run a trace's scenario and seed; report the first divergent event, or that it is identical.
    Replay {
        /// A trace written by `run --trace`.
        trace: PathBuf,
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
    },
    /// Write the matrix of catalogue configuration x fault kind (Markdown and JSON).
    Report {
        /// Where to write matrix.md and matrix.json.
        #[arg(long)]
        out: PathBuf,
        /// The bug catalogue to tabulate.
        #[arg(long, default_value = "tests/bug_catalogue")]
        catalogue: PathBuf,
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
            render,
        } => run(scenario, seed, trace, format, timeline, render),
        Command::Render { trace, format } => render(trace, format),
        Command::Replay { trace } => replay(trace),
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
        } => explore(ExploreArgs {
            scenario,
            seeds,
            jobs,
            shard,
            keep_going,
            json: format == Format::Json,
            out: out_dir,
            shrink_budget,
            invariant,
        }),
        Command::Report {
            out: dir,
            catalogue,
            seeds,
            shrink_budget,
        } => report(dir, catalogue, seeds, shrink_budget),
        Command::List => {
            out(&crate::list::render());
            OK
        }
    })
}

fn run(
    path: PathBuf,
    seed: Option<u64>,
    trace: Option<PathBuf>,
    format: Format,
    timeline: TimelineMode,
    view: Option<View>,
) -> u8 {
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
    match (view, format) {
        (Some(view), _) => out(&view.render(
            &report.outcome.trace,
            &Cast::of(&loaded.scenario),
            &Marks::from_verdicts(&report.outcome.verdicts),
        )),
        (None, Format::Text) => out(&render_run(&report, timeline)),
        (None, Format::Json) => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&report.json()).expect("json")
        )),
    }
    if report.as_expected() {
        OK
    } else {
        // stderr, so a redirected diagram stays clean; JSON callers read `as_expected`.
        if view.is_some() || format == Format::Text {
            eprintln!("reproduce: locksim run {} --seed {}", loaded.file, report.seed);
        }
        FAILED
    }
}

/// Renders a trace file: its recorded events and the violations its result names. Nothing is
/// re-run, so a trace from another engine version renders as it was recorded.
fn render(path: PathBuf, view: View) -> u8 {
    let trace = match trace_file::read(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let marks = match Marks::from_result(&trace.result) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return BAD_INPUT;
        }
    };
    let (events, cast) = match (trace.timeline_events(), trace.cast()) {
        (Ok(events), Ok(cast)) => (events, cast),
        (Err(e), _) => {
            eprintln!("error: {}: {e}", path.display());
            return BAD_INPUT;
        }
        (_, Err(e)) => {
            eprintln!("error: {}: the embedded scenario: {e}", path.display());
            return BAD_INPUT;
        }
    };
    out(&view.render(&events, &cast, &marks));
    OK
}

/// Replays a trace. Every message names the trace: it, not the scenario file it was recorded
/// from, is what is being checked.
fn replay(path: PathBuf) -> u8 {
    let trace = match trace_file::read(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let name = path.display();
    if trace.engine != locksim_sim::ENGINE_VERSION {
        eprintln!(
            "note: {name} was recorded by engine {}, this is {}",
            trace.engine,
            locksim_sim::ENGINE_VERSION
        );
    }
    let show = |v: Option<serde_json::Value>| v.map_or("(none)".to_string(), |v| v.to_string());
    match trace_file::replay(&trace) {
        Err(e) => {
            // The text that failed is the trace's, not the file on disk it was recorded from.
            let line = e.line.map(|l| format!(", line {l}")).unwrap_or_default();
            let key = e.key.map(|k| format!(": key `{k}`")).unwrap_or_default();
            eprintln!(
                "error: {name}: the embedded scenario (recorded from {}){line}{key}: {}",
                trace.scenario_file, e.message
            );
            BAD_INPUT
        }
        Ok(Replay::Identical { events }) => {
            out(&format!(
                "identical: {name}: {events} events and the result of {} (seed {}) replayed exactly\n",
                trace.scenario_file, trace.seed
            ));
            OK
        }
        Ok(Replay::Diverged {
            index,
            recorded,
            replayed,
        }) => {
            out(&format!(
                "diverges at event #{index} of {name}\n  recorded: {}\n  replayed: {}\n",
                show(recorded),
                show(replayed)
            ));
            FAILED
        }
        Ok(Replay::ResultDiffers { differences }) => {
            let mut text = format!(
                "diverges in the result of {name}: the events replay exactly, but {} of what the result states differ{}\n",
                differences.len(),
                if differences.len() == 1 { "s" } else { "" }
            );
            for d in differences {
                // The replay names its scenario by the trace's label: a `file` that differs is
                // an edited label, or a result copied from another trace.
                let label = if d.path == "file" {
                    " (the trace's `scenario_file`)"
                } else {
                    ""
                };
                text.push_str(&format!(
                    "  {}: recorded {}, replayed {}{label}\n",
                    d.path,
                    show(d.recorded),
                    show(d.replayed)
                ));
            }
            out(&text);
            FAILED
        }
    }
}

struct ExploreArgs {
    scenario: PathBuf,
    seeds: u64,
    jobs: Option<usize>,
    shard: Option<String>,
    keep_going: bool,
    json: bool,
    out: Option<PathBuf>,
    shrink_budget: u32,
    invariant: Option<String>,
}

fn explore(args: ExploreArgs) -> u8 {
    use crate::explore::command::{
        parse_shard, print, run_with_progress, shrink_and_write, summary_json, summary_text,
    };
    let bad = |message: String| {
        eprintln!("error: {message}");
        BAD_INPUT
    };
    if args.seeds == 0 {
        return bad("--seeds must be at least 1".into());
    }
    let shard = match args.shard.as_deref().map(parse_shard).transpose() {
        Ok(s) => s.unwrap_or((0, 1)),
        Err(e) => return bad(e),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        return bad("--jobs must be at least 1".into());
    }
    let target = match args.invariant.as_deref().map(|id| {
        locksim_protocols::registry::invariant(id).ok_or_else(|| {
            let ids: Vec<&str> = locksim_protocols::registry::invariants()
                .iter()
                .map(|i| i.id())
                .collect();
            format!(
                "--invariant {id}: unknown invariant; known invariants: {}",
                ids.join(", ")
            )
        })
    }) {
        Some(Err(e)) => return bad(e),
        Some(Ok(i)) => Some(i),
        None => None,
    };
    let loaded = match load_file(&args.scenario) {
        Ok(l) => l,
        Err(e) => return bad(e.to_string()),
    };
    if let Some(t) = target {
        let judged = loaded.scenario.protocol.spec().invariants;
        if !judged.contains(&t) {
            let ids: Vec<&str> = judged.iter().map(|i| i.id()).collect();
            return bad(format!(
                "--invariant {}: {} ({}) never judges it, so no seed could violate it; it judges {}",
                t.id(),
                loaded.file,
                loaded.scenario.protocol.kind(),
                ids.join(", ")
            ));
        }
    }
    let mut opts = crate::explore::Options {
        seeds: args.seeds,
        jobs,
        shard,
        keep_going: args.keep_going,
        target,
    };
    let seeds_in_shard = crate::explore::runner::shard_len(&opts);
    if seeds_in_shard == 0 {
        let (k, n) = shard;
        return bad(format!(
            "--shard {k}/{n}: shard {k}/{n} of {} seeds is empty (it takes seeds {k}, {}, ..., and --seeds {} explores 0..{})",
            args.seeds,
            k.saturating_add(n),
            args.seeds,
            args.seeds
        ));
    }
    // More threads than seeds would only idle.
    opts.jobs = opts.jobs.min(usize::try_from(seeds_in_shard).unwrap_or(usize::MAX));
    let (summary, took) = run_with_progress(&loaded, &opts);
    if let Some(t) = target.filter(|t| !summary.judged.contains(t)) {
        return bad(format!(
            "--invariant {}: not applicable in any of the {} seeds explored ({} gives it nothing to judge), so nothing was hunted",
            t.id(),
            summary.explored,
            loaded.file
        ));
    }
    let written = match &args.out {
        Some(dir) => match shrink_and_write(&loaded, &summary, target, dir, args.shrink_budget) {
            Ok(w) => w,
            Err(e) => return bad(e),
        },
        None => None,
    };
    if args.json {
        print(&format!(
            "{}\n",
            serde_json::to_string_pretty(&summary_json(&loaded, &opts, &summary, written.as_ref())).expect("json")
        ));
    } else {
        print(&summary_text(&loaded, &opts, &summary, took, written.as_ref()));
    }
    let found = match target {
        Some(t) => summary.violations_of(t).is_some(),
        None => !summary.violations.is_empty(),
    };
    if found { FAILED } else { OK }
}

fn report(dir: PathBuf, catalogue: PathBuf, seeds: u64, shrink_runs: u32) -> u8 {
    if seeds == 0 {
        eprintln!("error: --seeds must be at least 1");
        return BAD_INPUT;
    }
    let entries = match crate::report::bugs::load(&catalogue) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let matrix = crate::report::matrix::build(&entries, crate::report::matrix::Budget { seeds, shrink_runs }, jobs);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: {}: cannot create the report folder: {e}", dir.display());
        return BAD_INPUT;
    }
    let json = format!(
        "{}\n",
        serde_json::to_string_pretty(&crate::report::matrix::json(&matrix)).expect("json")
    );
    for (name, text) in [
        ("matrix.md", crate::report::matrix::markdown(&matrix)),
        ("matrix.json", json),
    ] {
        let path = dir.join(name);
        if let Err(e) = crate::atomic_file::write(&path, text.as_bytes()) {
            eprintln!("error: {}: cannot write: {e}", path.display());
            return BAD_INPUT;
        }
        out(&format!("wrote {}\n", path.display()));
    }
    OK
}
