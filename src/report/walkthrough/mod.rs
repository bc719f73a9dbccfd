//! The Redlock debate as a walkthrough (`reports/redlock-debate.{md,html}`): each claim of
//! Kleppmann's post and antirez's reply, in order ([`claims`]), with the catalogue scenarios
//! that test it run at their own seeds ([`evidence`]), their verdicts, the picture of the run
//! that breaks, and who was right under which assumption. Written by `locksim report` beside
//! the matrix, so one command regenerates all of `reports/`.
//!
//! Nothing in it is a verdict written by hand: a claim's pair must show the difference it is
//! quoted for (an invariant the first scenario violates and the second holds), or the
//! walkthrough is not generated.

use std::collections::BTreeMap;
use std::path::Path;

pub mod claims;
pub mod evidence;
mod html;
mod markdown;

use claims::{CLAIMS, Claim, Pair};
use evidence::Evidence;

pub use html::html;
pub use markdown::markdown;

/// The files the walkthrough is written to, in `reports/`.
pub const MARKDOWN_FILE: &str = "redlock-debate.md";
pub const HTML_FILE: &str = "redlock-debate.html";

/// The walkthrough's title, in both files.
const TITLE: &str = "The Redlock debate, replayed";

/// The command that regenerates it (and the rest of `reports/`).
const REGENERATE: &str = "locksim report --out reports/";

/// A claim with its runs.
pub struct Section {
    pub claim: &'static Claim,
    pub pairs: Vec<ShownPair>,
}

/// A pair as run: the invariants it turns on (violated by `breaks`, held by `holds`; all that
/// `breaks` violates when there is no `holds`).
pub struct ShownPair {
    pub pair: &'static Pair,
    pub turns_on: Vec<String>,
}

/// The claims and every scenario they cite, each run once.
pub struct Walkthrough {
    pub sections: Vec<Section>,
    pub runs: BTreeMap<&'static str, Evidence>,
}

impl Walkthrough {
    /// The run of `path` (a path the claims cite).
    pub fn run(&self, path: &str) -> &Evidence {
        &self.runs[path]
    }
}

/// Runs every scenario the claims cite, from the catalogue folder `scenarios`.
pub fn build(scenarios: &Path) -> Result<Walkthrough, String> {
    build_from(scenarios, CLAIMS)
}

fn build_from(scenarios: &Path, claims: &'static [Claim]) -> Result<Walkthrough, String> {
    let mut runs = BTreeMap::new();
    let mut sections = Vec::new();
    for claim in claims {
        let mut pairs = Vec::new();
        for pair in claim.pairs {
            for path in std::iter::once(pair.breaks).chain(pair.holds) {
                if !runs.contains_key(path) {
                    runs.insert(path, Evidence::run(scenarios, path)?);
                }
            }
            let breaks = &runs[pair.breaks];
            let turns_on: Vec<String> = breaks
                .violated()
                .filter(|inv| pair.holds.is_none_or(|holds| runs[holds].verdict(inv) == Some("held")))
                .map(str::to_string)
                .collect();
            if turns_on.is_empty() {
                return Err(match pair.holds {
                    Some(holds) => format!(
                        "walkthrough, claim \"{}\": {} violates no invariant that {} holds, so the pair \
                         does not test the claim",
                        claim.title, breaks.file, runs[holds].file
                    ),
                    None => format!(
                        "walkthrough, claim \"{}\": {} violates no invariant, so it does not test the claim",
                        claim.title, breaks.file
                    ),
                });
            }
            pairs.push(ShownPair { pair, turns_on });
        }
        sections.push(Section { claim, pairs });
    }
    Ok(Walkthrough { sections, runs })
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. The HTML
/// uses the same ids, so a link into either file names the same place.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// A section's heading: its number and title.
fn heading(number: usize, claim: &Claim) -> String {
    format!("{number}. {}", claim.title)
}

/// Where `path`'s picture is drawn (section index, pair index): a scenario that breaks in two
/// pairs is drawn once, at its first citation, and the later one points back to it.
fn first_drawn(sections: &[Section], path: &str) -> (usize, usize) {
    for (s, section) in sections.iter().enumerate() {
        for (p, shown) in section.pairs.iter().enumerate() {
            if shown.pair.breaks == path {
                return (s, p);
            }
        }
    }
    unreachable!("{path} is cited")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogue() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
    }

    #[test]
    fn anchors_are_githubs() {
        assert_eq!(anchor("7. Bounded drift, no jumps"), "7-bounded-drift-no-jumps");
        assert_eq!(
            anchor("6. The random value as a check-and-set"),
            "6-the-random-value-as-a-check-and-set"
        );
    }

    /// A pair whose second scenario holds nothing the first violates tests no claim: refused,
    /// naming the claim and both files.
    #[test]
    fn a_pair_that_shows_no_difference_is_refused() {
        static SAME: &[Claim] = &[Claim {
            title: "twice the same failure",
            post: &claims::KLEPPMANN,
            part: "",
            claim: "",
            pairs: &[Pair {
                breaks: "single-redis/kleppmann-gc-pause",
                holds: Some("single-redis/gc-pause-never-checked"),
                differs: "",
            }],
            judgement: "",
        }];
        let err = build_from(&catalogue(), SAME).err().expect("refused");
        assert!(
            err.contains("twice the same failure")
                && err.contains("scenarios/single-redis/kleppmann-gc-pause.toml violates no invariant that")
                && err.contains("gc-pause-never-checked.toml holds"),
            "{err}"
        );
    }

    /// A scenario that breaks nothing cannot stand alone for a claim.
    #[test]
    fn a_lone_scenario_that_violates_nothing_is_refused() {
        static FINE: &[Claim] = &[Claim {
            title: "nothing happens",
            post: &claims::ANTIREZ,
            part: "",
            claim: "",
            pairs: &[Pair {
                breaks: "single-redis/no-faults",
                holds: None,
                differs: "",
            }],
            judgement: "",
        }];
        let err = build_from(&catalogue(), FINE).err().expect("refused");
        assert!(err.contains("no-faults.toml violates no invariant"), "{err}");
    }

    #[test]
    fn every_claim_turns_on_what_its_runs_give() {
        let walk = build(&catalogue()).expect("the walkthrough builds");
        let first = &walk.sections[0].pairs[0];
        assert_eq!(first.turns_on, ["stale_write", "lost_update"]);
        // Each scenario is run once, however often it is cited.
        assert_eq!(
            walk.runs.len(),
            CLAIMS
                .iter()
                .flat_map(|c| c.pairs)
                .flat_map(|p| std::iter::once(p.breaks).chain(p.holds))
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        );
    }
}
