//! Reading an input file (a scenario or a trace) within bounds. A scenario or a trace is text
//! a person wrote or `run --trace` produced; anything that is not a regular file (a FIFO waits
//! for a writer for ever, `/dev/zero` never ends, a directory has no text) is refused before a
//! byte is read, so bad input cannot hang the run. A scenario is read whole, so one larger than
//! any real one is refused too; a trace has no size limit, being read as a stream
//! ([`crate::trace_stream`]) that holds one event at a time.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The largest scenario file read: 16 MiB. The biggest catalogue scenario is a few KiB, and a
/// 50 MB file of faults took 2 GB to load. (Traces are streamed: no limit.)
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The text of the file at `path`, or why it is not read: not a regular file, larger than
/// [`MAX_INPUT_BYTES`], unreadable, or not UTF-8. The message does not name the file: the
/// caller does, as it names its other errors.
pub fn read_text(path: &Path) -> Result<String, String> {
    let file = open_regular(path)?;
    if file.metadata().map_err(|e| e.to_string())?.len() > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))
}

/// The file at `path` opened for reading, or why not: not a regular file, or unreadable. The
/// message does not name the file.
pub fn open_regular(path: &Path) -> Result<File, String> {
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    regular(&std::fs::metadata(path).map_err(|e| e.to_string())?)?;
    let file = File::open(path).map_err(|e| e.to_string())?;
    // Checked again on the open file, in case the path was replaced in between.
    regular(&file.metadata().map_err(|e| e.to_string())?)?;
    Ok(file)
}

/// Whether a file of this kind may be read.
fn regular(meta: &std::fs::Metadata) -> Result<(), String> {
    let kind = meta.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else {
            "a device, FIFO or socket"
        };
        return Err(format!("not a regular file ({what})"));
    }
    Ok(())
}

fn too_large() -> String {
    format!(
        "larger than {} MiB, the most locksim reads from one scenario file",
        MAX_INPUT_BYTES / (1024 * 1024)
    )
}
