//! What a picture of a run is about: the scenario's name and description and the seed it ran
//! with. A diagram is shown away from the command that made it (a slide, a bug report, a page
//! of the catalogue), so it says itself which run it draws and how to get it again.

use locksim_protocols::Scenario;

/// The scenario's name and description and the run's seed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Caption {
    pub name: String,
    pub description: String,
    pub seed: u64,
    /// The scenario file the run was loaded from, as it was named to `locksim`; empty when
    /// the diagram was drawn without one.
    pub file: String,
}

impl Caption {
    /// The caption of `scenario` run with `seed`.
    pub fn of(scenario: &Scenario, seed: u64) -> Self {
        Caption {
            name: scenario.name.clone(),
            description: scenario.description.clone(),
            seed,
            file: String::new(),
        }
    }

    /// One line naming the run: `name, seed N` (`locksim run` with `--seed N` gives it again);
    /// a generic title when the diagram was drawn without a scenario.
    pub fn title(&self) -> String {
        if self.name.is_empty() {
            "locksim sequence diagram".to_string()
        } else {
            format!("{}, seed {}", self.name, self.seed)
        }
    }

    /// The command that runs the drawn run again, when the scenario file is known.
    pub fn replay(&self) -> Option<String> {
        (!self.file.is_empty()).then(|| format!("locksim run {} --seed {}", self.file, self.seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replay_command_needs_the_file() {
        let mut caption = Caption {
            name: "clock-jump".into(),
            seed: 7,
            ..Caption::default()
        };
        assert_eq!(caption.replay(), None);
        caption.file = "scenarios/redlock/clock-jump.toml".into();
        assert_eq!(
            caption.replay().as_deref(),
            Some("locksim run scenarios/redlock/clock-jump.toml --seed 7")
        );
    }
}
