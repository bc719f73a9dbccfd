//! One catalogue scenario run for the walkthrough: at its own seed, its verdicts as the run
//! gives them, and its pictures drawn by the renderers from the same run's events.

use std::path::Path;

use locksim_sim::trace::TraceEvent;
use locksim_sim::{Status, Verdict};

use crate::load::load_file;
use crate::render::{Cast, Marks, mermaid, svg};
use crate::run_result::RunResult;

/// A scenario's run: what the walkthrough prints of it.
pub struct Evidence {
    /// The file as a reader types it: `scenarios/redlock/clock-jump.toml`.
    pub file: String,
    pub name: String,
    pub description: String,
    pub seed: u64,
    /// One per invariant the model judges, in the model's order.
    pub verdicts: Vec<Verdict>,
    /// The sequence diagram, as Mermaid text.
    pub mermaid: String,
    /// The same diagram as a standalone SVG document.
    pub svg: String,
}

impl Evidence {
    /// Runs `scenarios/<path>.toml` under `scenarios` at its own seed. A run that stops short
    /// or does not give the verdicts its file expects is an error: the walkthrough would
    /// otherwise print a story the catalogue does not tell.
    pub fn run(scenarios: &Path, path: &str) -> Result<Evidence, String> {
        let file = format!("scenarios/{path}.toml");
        let loaded = load_file(&scenarios.join(format!("{path}.toml"))).map_err(|e| e.to_string())?;
        let mut events: Vec<TraceEvent> = Vec::new();
        let result = RunResult::run_into(&loaded, None, &mut events);
        if result.outcome.stopped.is_some() {
            return Err(format!("{file}: the run at seed {} stopped short", result.seed));
        }
        if !result.as_expected() {
            return Err(format!(
                "{file}: the run at seed {} does not give the verdicts its [expect] names; \
                 run `locksim run {file}` to see which",
                result.seed
            ));
        }
        let cast = Cast::of(&loaded.scenario);
        let marks = Marks::from_verdicts(&result.outcome.verdicts);
        Ok(Evidence {
            name: loaded.scenario.name.clone(),
            description: loaded.scenario.description.clone(),
            seed: result.seed,
            verdicts: result.outcome.verdicts.clone(),
            mermaid: mermaid(&events, &cast, &marks),
            svg: svg(&events, &cast, &marks),
            file,
        })
    }

    /// The invariants this run violated, in the model's order.
    pub fn violated(&self) -> impl Iterator<Item = &str> {
        self.verdicts
            .iter()
            .filter(|v| matches!(v.status, Status::Violated(_)))
            .map(|v| v.invariant.id())
    }

    /// This run's verdict on `invariant` (`held`, `violated`, `not_applicable`), if its model
    /// judges it.
    pub fn verdict(&self, invariant: &str) -> Option<&'static str> {
        self.verdicts
            .iter()
            .find(|v| v.invariant.id() == invariant)
            .map(|v| v.status.word())
    }

    /// The command that replays this run.
    pub fn replay(&self) -> String {
        format!("locksim run {} --seed {}", self.file, self.seed)
    }

    /// The command that draws this run's picture.
    pub fn draw(&self) -> String {
        format!(
            "locksim run {} --seed {} --view svg > {}.svg",
            self.file, self.seed, self.name
        )
    }
}
