//! `locksim report`: everything in `reports/` — the matrix of catalogue configuration x fault
//! kind, written as Markdown and JSON, and the Redlock debate walkthrough, as Markdown and
//! HTML. Every file is computed before any is written, so an error leaves `reports/` as it was.

use std::path::PathBuf;

use crate::report::walkthrough;

use super::{BAD_INPUT, OK, out};

/// Where the report's inputs are read from.
pub(super) struct Sources {
    /// The bug catalogue the matrix tabulates.
    pub catalogue: PathBuf,
    /// The scenario catalogue the walkthrough runs its stories from.
    pub scenarios: PathBuf,
}

pub(super) fn report(dir: PathBuf, sources: &Sources, seeds: u64, shrink_runs: u32) -> u8 {
    if seeds == 0 {
        eprintln!("error: --seeds must be at least 1");
        return BAD_INPUT;
    }
    // The walkthrough first: a few runs, where the matrix takes minutes.
    let walk = match walkthrough::build(&sources.scenarios) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let entries = match crate::report::bugs::load(&sources.catalogue) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let budget = crate::report::matrix::Budget { seeds, shrink_runs };
    let matrix = match crate::report::matrix::build(&entries, budget, jobs) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
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
        (walkthrough::MARKDOWN_FILE, walkthrough::markdown(&walk)),
        (walkthrough::HTML_FILE, walkthrough::html(&walk)),
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
