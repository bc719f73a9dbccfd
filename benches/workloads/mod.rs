//! The benchmark workloads, shared by `benches/engine.rs` (timed) and
//! `examples/bench_workload.rs` (untimed, for valgrind), so both run exactly the same seeds.
//!
//! - `gc-pause` = `scenarios/single-redis/kleppmann-gc-pause-fenced.toml`: 2 clients, strict
//!   fencing, 60 s, client-0 paused 15 s after its first read — the madsim peer's `gc-pause`;
//! - `no-fault` = `scenarios/single-redis/no-faults.toml`: 3 clients, 60 s — the peer's
//!   `no-fault`;
//! - `redlock-swarm` = `benches/workloads/redlock.toml` (5 servers, 3 clients, 60 s) under
//!   swarm faults: each seed derives its own plan from the protocol's default fault space with
//!   `locksim::explore::plan_for_seed`, as `locksim explore` does;
//! - `redlock-faults` = `benches/workloads/redlock-faults.toml`: the same world under a fixed
//!   plan (a partition, a crash-restart, a clock jump, a pause), comparable across runs;
//! - `snowflake` = `benches/workloads/snowflake.toml`: 4 generators, 10 s, one ID per ms each,
//!   leased node IDs.

use std::borrow::Cow;
use std::path::Path;

use locksim::explore::plan_for_seed;
use locksim::fault_space::FaultSpace;
use locksim::protocols::{Scenario, run};
use locksim::sim::trace::TraceHash;
use locksim::sim::{Level, Recording, Stats};

/// How a workload's seeds get their faults.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Faults {
    /// The scenario's own plan, the same in every seed.
    Fixed,
    /// A swarm plan per seed from the protocol's default fault space.
    Swarm,
}

/// One workload, as declared.
pub struct Spec {
    pub name: &'static str,
    /// Relative to the package root.
    pub file: &'static str,
    pub faults: Faults,
    /// Seeds per pass relative to the single-Redis workloads' count: about the same wall time
    /// per pass whatever a seed costs.
    pub seeds_per_1000: u64,
}

pub const SPECS: [Spec; 5] = [
    Spec {
        name: "gc-pause",
        file: "scenarios/single-redis/kleppmann-gc-pause-fenced.toml",
        faults: Faults::Fixed,
        seeds_per_1000: 1000,
    },
    Spec {
        name: "no-fault",
        file: "scenarios/single-redis/no-faults.toml",
        faults: Faults::Fixed,
        seeds_per_1000: 1000,
    },
    Spec {
        name: "redlock-swarm",
        file: "benches/workloads/redlock.toml",
        faults: Faults::Swarm,
        seeds_per_1000: 250,
    },
    Spec {
        name: "redlock-faults",
        file: "benches/workloads/redlock-faults.toml",
        faults: Faults::Fixed,
        seeds_per_1000: 250,
    },
    Spec {
        name: "snowflake",
        file: "benches/workloads/snowflake.toml",
        faults: Faults::Fixed,
        seeds_per_1000: 20,
    },
];

/// A loaded workload.
pub struct Workload {
    pub spec: &'static Spec,
    pub scenario: Scenario,
    space: FaultSpace,
}

/// What one seed did.
pub struct SeedRun {
    pub stats: Stats,
    pub sim_ns: u64,
}

impl Workload {
    /// Loads the workload called `name` (one of [`SPECS`]), or says which names exist.
    pub fn load(name: &str) -> Result<Workload, String> {
        let spec = SPECS.iter().find(|s| s.name == name).ok_or_else(|| {
            let names: Vec<&str> = SPECS.iter().map(|s| s.name).collect();
            format!("unknown workload {name:?}; one of {}", names.join(", "))
        })?;
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(spec.file);
        let scenario = locksim::load::load_file(&path).map_err(|e| e.to_string())?.scenario;
        let space = FaultSpace::defaults(&*scenario.protocol);
        Ok(Workload { spec, scenario, space })
    }

    pub fn all() -> Vec<Workload> {
        SPECS
            .iter()
            .map(|s| Workload::load(s.name).expect("bench workloads load"))
            .collect()
    }

    /// The scenario seed `seed` runs: the workload's own, or with the seed's swarm plan.
    pub fn scenario_for(&self, seed: u64) -> Cow<'_, Scenario> {
        match self.spec.faults {
            Faults::Fixed => Cow::Borrowed(&self.scenario),
            Faults::Swarm => Cow::Owned(plan_for_seed(&self.scenario, &self.space, seed).apply(&self.scenario)),
        }
    }

    /// Runs one seed (plan derivation included: it is part of exploring a seed) and checks
    /// the verdicts against the scenario's `[expect]`, which catches a workload that stops
    /// doing what it says — and uses the verdicts, so nothing is optimised away.
    /// At `Level::Full`, what `locksim run --format json` pays: every trace line written and
    /// hashed as it happens.
    pub fn run_seed(&self, seed: u64, level: Level) -> SeedRun {
        match level {
            // What exploration pays: no trace line, so no hash (of nothing) either.
            Level::Facts => self.run_recorded(seed, Recording::Facts),
            Level::Full => {
                let mut hash = TraceHash::default();
                let r = self.run_recorded(seed, Recording::Traced(&mut hash));
                std::hint::black_box(hash.hex());
                r
            }
        }
    }

    /// Runs one seed as [`Workload::run_seed`] does, recorded as `recording` says.
    pub fn run_recorded(&self, seed: u64, recording: Recording<'_>) -> SeedRun {
        let s = self.scenario_for(seed);
        let o = run(&s, seed, recording);
        for (inv, want) in &s.expect {
            let v = o
                .verdicts
                .iter()
                .find(|v| v.invariant == *inv)
                .expect("a verdict per invariant");
            assert_eq!(v.status.word(), want.word(), "{} seed {seed}: {v:?}", self.spec.name);
        }
        SeedRun {
            stats: o.stats,
            sim_ns: o.end_ns,
        }
    }
}
