//! `locksim merge`: shard summaries in, the combined summary out (exit 1 on a finding), or a
//! refusal naming the file and what differs (exit 2).

use std::path::PathBuf;

use crate::merge::{merge as combine, merged_json, merged_text, read};

use super::{BAD_INPUT, FAILED, OK, out};

pub(super) fn merge(summaries: &[PathBuf], json: bool) -> u8 {
    let merged = summaries
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()
        .and_then(|shards| combine(&shards));
    let merged = match merged {
        Ok(m) => m,
        Err(message) => {
            eprintln!("error: {message}");
            return BAD_INPUT;
        }
    };
    if json {
        let doc = serde_json::to_string_pretty(&merged_json(&merged)).expect("json");
        out(&format!("{doc}\n"));
    } else {
        out(&merged_text(&merged));
    }
    if merged.first_failing_seed.is_some() {
        FAILED
    } else {
        OK
    }
}
