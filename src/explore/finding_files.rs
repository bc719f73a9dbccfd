//! The two files of a written finding, the scenario and its trace, as a pair that is never
//! mismatched and never overwrites an earlier finding (which the user may have edited): the
//! finding takes the first free name (`<stem>`, `<stem>-2`, ...), both files are staged as
//! temporaries, then the trace is published and the scenario last, each only if its name is
//! still free. A kill before the end leaves at most a trace without its scenario, whose name
//! the next finding then skips; never a scenario beside another run's trace.

use std::io;
use std::path::{Path, PathBuf};

use crate::temp_file::TempFile;

/// The names a finding is written under.
pub struct FindingNames {
    /// The scenario's name, the file stem of both files.
    pub stem: String,
    pub scenario: PathBuf,
    pub trace: PathBuf,
    /// The scenario of an earlier finding that had the first choice of name, kept as it is.
    pub earlier: Option<PathBuf>,
}

/// How many findings of one stem a folder may hold before explore gives up looking for a name.
const MAX_FINDINGS_PER_STEM: u32 = 10_000;

/// The first of `<stem>`, `<stem>-2`, `<stem>-3`... under which neither file exists in `out`.
pub fn free_names(out: &Path, stem: &str) -> Result<FindingNames, String> {
    let pair = |stem: &str| (out.join(format!("{stem}.toml")), out.join(format!("{stem}.trace.json")));
    for n in 1..=MAX_FINDINGS_PER_STEM {
        let candidate = if n == 1 {
            stem.to_string()
        } else {
            format!("{stem}-{n}")
        };
        let (scenario, trace) = pair(&candidate);
        if is_free(&scenario)? && is_free(&trace)? {
            return Ok(FindingNames {
                earlier: (n > 1).then(|| pair(stem).0),
                stem: candidate,
                scenario,
                trace,
            });
        }
    }
    Err(format!(
        "{}: {MAX_FINDINGS_PER_STEM} findings named {stem}(-N) are there already; nothing was written, use another --out folder",
        out.display()
    ))
}

/// Nothing is at `path`, not even a dangling symlink.
fn is_free(path: &Path) -> Result<bool, String> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(format!("{}: cannot check whether it exists: {e}", path.display())),
    }
}

/// Writes the pair under `names`: both staged first, the trace published first, the scenario
/// last. If the scenario's name was taken meanwhile, the trace just published is taken back.
pub fn write_pair(names: &FindingNames, scenario_text: &str, trace_text: &str) -> Result<(), String> {
    let cannot = |path: &Path, e: io::Error| format!("{}: cannot write: {e}", path.display());
    let trace = TempFile::write_beside(&names.trace, trace_text.as_bytes()).map_err(|e| cannot(&names.trace, e))?;
    let scenario =
        TempFile::write_beside(&names.scenario, scenario_text.as_bytes()).map_err(|e| cannot(&names.scenario, e))?;
    trace.link_to(&names.trace).map_err(|e| taken(&names.trace, e))?;
    scenario.link_to(&names.scenario).map_err(|e| {
        let _ = std::fs::remove_file(&names.trace);
        taken(&names.scenario, e)
    })
}

/// The error of a publication that failed, most likely because another run took the name.
fn taken(path: &Path, e: io::Error) -> String {
    if e.kind() == io::ErrorKind::AlreadyExists {
        format!(
            "{}: another run wrote a file of this name while this one explored; nothing was overwritten and this finding was not written, run again",
            path.display()
        )
    } else {
        format!("{}: cannot write: {e}", path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("locksim-findings-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn a_finding_takes_the_first_name_of_which_neither_file_exists() {
        let dir = scratch("names");
        let first = free_names(&dir, "gc").expect("free");
        assert_eq!((first.stem.as_str(), first.earlier.is_none()), ("gc", true));
        write_pair(&first, "scenario", "trace").expect("written");
        // A trace left without its scenario (a kill between the two) takes its name too.
        std::fs::write(dir.join("gc-2.trace.json"), "orphan").expect("write");
        let third = free_names(&dir, "gc").expect("free");
        assert_eq!(third.stem, "gc-3");
        assert_eq!(third.earlier, Some(dir.join("gc.toml")));
        assert_eq!(third.trace, dir.join("gc-3.trace.json"));
    }

    #[test]
    fn a_pair_whose_scenario_name_was_taken_meanwhile_writes_nothing() {
        let dir = scratch("taken");
        let names = free_names(&dir, "gc").expect("free");
        std::fs::write(&names.scenario, "edited by hand").expect("write");
        let e = write_pair(&names, "scenario", "trace").expect_err("taken");
        assert!(e.contains("nothing was overwritten"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&names.scenario).expect("read"),
            "edited by hand"
        );
        let left: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, ["gc.toml"], "no trace, no temporary file");
    }
}
