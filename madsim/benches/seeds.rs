//! Seeds per second of the madsim front-end against the native engine on the same story, one
//! thread each (issue 13, point 7). The madsim baseline (`shared/bench/madsim-baseline`, the
//! same workload written directly on madsim) is run on its own: see the README's figures.
//!
//! ```text
//! RUSTFLAGS="--cfg madsim" cargo bench -p locksim-madsim --target-dir target/madsim --bench seeds -- [SEEDS] [SCENARIO]
//! ```

#[cfg(madsim)]
#[path = "../tests/common/user_client.rs"]
mod user_client;

#[cfg(not(madsim))]
fn main() {
    eprintln!("build with RUSTFLAGS=\"--cfg madsim\" (the madsim front-end)");
}

#[cfg(madsim)]
fn main() {
    use std::time::Instant;

    use locksim::load::load_file;
    use locksim_madsim::{explore, refuse};
    use locksim_protocols::run;
    use locksim_sim::Recording;
    use user_redis_lock::ValidityFrom;

    // `cargo bench` passes `--bench`: only the plain arguments are ours.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let seeds: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(300);
    let path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "../scenarios/single-redis/kleppmann-gc-pause-fenced.toml".into());
    let loaded = load_file(path.as_ref()).expect("the scenario loads");
    let model = refuse::supported(&loaded.scenario).expect("the front-end runs it");
    let client = user_client::client_fn(&model.client, ValidityFrom::Send).expect("the client honours it");

    let start = Instant::now();
    let summary = explore(&loaded, 0..seeds, 1, &client).expect("runs");
    let front_end = seeds as f64 / start.elapsed().as_secs_f64();

    let start = Instant::now();
    let mut events = 0;
    for seed in 0..seeds {
        events += run(&loaded.scenario, seed, Recording::Facts).stats.events();
    }
    let native = seeds as f64 / start.elapsed().as_secs_f64();

    println!("{} ({} seeds, one thread each)", loaded.scenario.name, seeds);
    println!(
        "  madsim front-end  {front_end:>9.0} seeds/s  (violated: {:?})",
        summary.violated()
    );
    println!(
        "  native engine     {native:>9.0} seeds/s  ({} events/seed)",
        events / seeds.max(1)
    );
    println!("  ratio             {:>9.1}x", native / front_end);
}
