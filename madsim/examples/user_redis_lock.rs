//! The example user crate (`examples/user-redis-lock/`) under the madsim front-end:
//!
//! ```text
//! RUSTFLAGS="--cfg madsim" cargo run --release -p locksim-madsim --target-dir target/madsim \
//!     --example user_redis_lock -- SCENARIO --seeds N --format json
//! ```
//!
//! prints the summary `locksim explore --format json` prints (`seeds`, `violations` with
//! `count` and `first_seed`, `never_violated`); `--seed S --trace FILE` runs one seed and
//! writes its trace (`locksim render FILE` draws it). Seeds start at `MADSIM_TEST_SEED`
//! (default 0); `--jobs J` runs them on J threads; `--variant validity-from-reply` runs the
//! deliberately wrong client; `--hunt INVARIANT --out FILE` explores the seeds for one where
//! that client violates INVARIANT and the correct one does not, shrinks the plan and writes it
//! as a scenario file (which `--seed` replays). Exit 0 when no invariant was violated, 1 when one was, 2 on
//! bad input (a scenario the front-end cannot run as written included).

#[cfg(madsim)]
#[path = "../tests/common/user_client.rs"]
mod user_client;

#[cfg(not(madsim))]
fn main() {
    eprintln!("error: build with RUSTFLAGS=\"--cfg madsim\" --target-dir target/madsim (the madsim front-end)");
    std::process::exit(2);
}

#[cfg(madsim)]
fn main() {
    match cli::main() {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}

#[cfg(madsim)]
mod cli {
    use std::path::PathBuf;

    use locksim::load::load_file;
    use locksim_madsim::hunt::hunt;
    use locksim_madsim::{explore, refuse, run_traced, seed_from_env};
    use user_redis_lock::ValidityFrom;

    use crate::user_client::client_fn;

    const USAGE: &str = "usage: user_redis_lock SCENARIO [--seeds N] [--seed S --trace FILE] [--jobs J] \
                         [--format json|text] [--variant correct|validity-from-reply] [--hunt INVARIANT --out FILE]";

    struct Args {
        scenario: PathBuf,
        seeds: u64,
        seed: Option<u64>,
        trace: Option<PathBuf>,
        jobs: usize,
        json: bool,
        validity_from: ValidityFrom,
        hunt: Option<String>,
        out: Option<PathBuf>,
    }

    fn number<T: std::str::FromStr>(flag: &str, v: Option<String>) -> Result<T, String> {
        let v = v.ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        v.parse().map_err(|_| format!("{flag} {v:?}: not a number\n{USAGE}"))
    }

    fn parse() -> Result<Args, String> {
        let mut it = std::env::args().skip(1);
        let mut args = Args {
            scenario: PathBuf::new(),
            seeds: 100,
            seed: None,
            trace: None,
            jobs: 1,
            json: false,
            validity_from: ValidityFrom::Send,
            hunt: None,
            out: None,
        };
        let mut scenario = None;
        while let Some(a) = it.next() {
            match a.as_str() {
                "--seeds" => args.seeds = number("--seeds", it.next())?,
                "--seed" => args.seed = Some(number("--seed", it.next())?),
                "--jobs" => args.jobs = number("--jobs", it.next())?,
                "--hunt" => args.hunt = Some(it.next().ok_or("--hunt needs an invariant")?),
                "--out" => args.out = Some(it.next().ok_or("--out needs a file")?.into()),
                "--trace" => args.trace = Some(it.next().ok_or("--trace needs a file")?.into()),
                "--format" => {
                    args.json = match it.next().as_deref() {
                        Some("json") => true,
                        Some("text") => false,
                        other => return Err(format!("--format {other:?}: json or text\n{USAGE}")),
                    }
                }
                "--variant" => {
                    args.validity_from = match it.next().as_deref() {
                        Some("correct") => ValidityFrom::Send,
                        Some("validity-from-reply") => ValidityFrom::Reply,
                        other => return Err(format!("--variant {other:?}: correct or validity-from-reply\n{USAGE}")),
                    }
                }
                flag if flag.starts_with("--") => return Err(format!("unknown option {flag}\n{USAGE}")),
                file if scenario.is_none() => scenario = Some(PathBuf::from(file)),
                extra => return Err(format!("unexpected argument {extra:?}\n{USAGE}")),
            }
        }
        args.scenario = scenario.ok_or(USAGE)?;
        if args.hunt.is_some() != args.out.is_some() {
            return Err(format!("--hunt and --out go together\n{USAGE}"));
        }
        if args.trace.is_some() != args.seed.is_some() {
            return Err(format!("--seed and --trace go together\n{USAGE}"));
        }
        Ok(args)
    }

    pub fn main() -> Result<i32, String> {
        let args = parse()?;
        let loaded = load_file(&args.scenario).map_err(|e| e.to_string())?;
        let model = refuse::supported(&loaded.scenario).map_err(|e| format!("{}: {e}", loaded.file))?;
        let client = client_fn(&model.client, args.validity_from).map_err(|e| format!("{}: {e}", loaded.file))?;
        if let (Some(seed), Some(trace)) = (args.seed, &args.trace) {
            let result = run_traced(&loaded, seed, trace, &client)?;
            println!("{}", serde_json::to_string_pretty(&result).expect("json"));
            let violated = result["violations"].as_array().is_some_and(|v| !v.is_empty());
            return Ok(i32::from(violated));
        }
        let first = seed_from_env()?.unwrap_or(0);
        if let (Some(id), Some(out)) = (&args.hunt, &args.out) {
            let spec = loaded.scenario.protocol.spec();
            let invariant = spec
                .invariants
                .iter()
                .copied()
                .find(|i| i.id() == id)
                .ok_or_else(|| format!("--hunt {id:?}: not an invariant of {} ", spec.kind))?;
            let fixed = client_fn(&model.client, ValidityFrom::Send)?;
            let name = out.file_stem().and_then(|s| s.to_str()).unwrap_or("found");
            let Some(found) = hunt(
                &loaded,
                first..first + args.seeds,
                invariant,
                300,
                &client,
                Some(&fixed),
                name,
            ) else {
                println!("no seed of {} violated {id} with this client alone", args.seeds);
                return Ok(0);
            };
            std::fs::write(out, &found.text).map_err(|e| format!("{}: {e}", out.display()))?;
            println!(
                "seed {}: {id} violated; shrunk from {} to {} fault entries in {} runs: {}",
                found.seed,
                found.entries_before,
                found.entries,
                found.runs,
                out.display()
            );
            return Ok(1);
        }
        let summary = explore(&loaded, first..first + args.seeds, args.jobs, &client)?;
        if args.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&summary.json(&loaded)).expect("json")
            );
        } else {
            println!(
                "{} ({}): {} seeds on madsim",
                loaded.scenario.name, loaded.file, summary.seeds
            );
            for (i, (count, first)) in &summary.violations {
                println!("  {i:<18} VIOLATED in {count} seeds, first seed {first}");
            }
            println!("  never violated: {}", summary.json(&loaded)["never_violated"]);
        }
        Ok(i32::from(!summary.violations.is_empty()))
    }
}
