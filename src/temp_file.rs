//! The temporary file an output is staged in, beside its target so the final rename stays in
//! one directory: `.<name>.tmp-<pid>`. It is removed when dropped unless it was moved into
//! place, so error paths (and panics) leave nothing behind; a process killed outright cannot
//! clean up, so the files of dead processes are removed when a new one is made beside them.
//! An interrupt (Ctrl-C, SIGTERM, SIGHUP) is not a kill: [`remove_on_interrupt`] installs a
//! handler that removes every temporary file still open before the process ends.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files this process has open, for the interrupt handler. A file moved into
/// place leaves the list under the same lock, so the handler never removes a finished output.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Exit status after an interrupt: 128 + SIGINT, as shells report it.
const INTERRUPTED: i32 = 130;

/// Makes Ctrl-C, SIGTERM and SIGHUP remove this process's temporary files, then end it with
/// status 130. Installed once, by the CLI; a library caller keeps its own signal handling.
pub fn remove_on_interrupt() {
    // Fails only if a handler is installed already: then that one decides.
    let _ = ctrlc::set_handler(|| {
        let live = live();
        for path in live.iter() {
            let _ = std::fs::remove_file(path);
        }
        // The lock stays held: no output is moved into place after its files are gone.
        std::process::exit(INTERRUPTED);
    });
}

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A temporary file, removed on drop unless moved into place.
pub struct TempFile {
    path: PathBuf,
}

impl TempFile {
    /// Writes `contents` to a new temporary file beside `target`, synced to disk.
    pub fn write_beside(target: &Path, contents: &[u8]) -> io::Result<TempFile> {
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the output path names no file"))?;
        let prefix = format!(".{}.tmp-", name.to_string_lossy());
        remove_stale(dir, &prefix);
        // `create_new` never follows a symlink planted at the temporary name.
        let path = dir.join(format!("{prefix}{}", std::process::id()));
        let mut file = {
            let mut live = live();
            let file = File::options().write(true).create_new(true).open(&path)?;
            live.push(path.clone());
            file
        };
        let temp = TempFile { path };
        file.write_all(contents)?;
        file.sync_all()?;
        Ok(temp)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves the file over `target`, replacing whatever file is there.
    pub fn rename_to(self, target: &Path) -> io::Result<()> {
        let _live = live();
        std::fs::rename(&self.path, target)
    }

    /// Gives the contents the name `target` only if nothing has it yet (a hard link fails
    /// rather than replaces); the temporary name is removed on drop either way.
    pub fn link_to(self, target: &Path) -> io::Result<()> {
        let _live = live();
        std::fs::hard_link(&self.path, target)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let mut live = live();
        // After a rename the file is gone already; otherwise this is the cleanup.
        let _ = std::fs::remove_file(&self.path);
        if let Some(i) = live.iter().position(|p| *p == self.path) {
            live.swap_remove(i);
        }
    }
}

/// Removes the temporary files `<prefix><pid>` in `dir` whose process is dead. Whether a
/// process lives is read from `/proc/<pid>`; without `/proc` (not Linux) nothing is removed,
/// and a live process's file (another run writing the same output) is left alone.
fn remove_stale(dir: &Path, prefix: &str) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = stale_pid(&name, prefix) else { continue };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The pid in a temporary file's name `<prefix><pid>`, if `name` is one.
fn stale_pid(name: &OsStr, prefix: &str) -> Option<u32> {
    let digits = name.to_str()?.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_of_the_prefix_and_a_pid_are_temporary_files() {
        let prefix = ".out.json.tmp-";
        assert_eq!(stale_pid(OsStr::new(".out.json.tmp-123"), prefix), Some(123));
        for other in [
            ".out.json.tmp-",
            ".out.json.tmp-12x",
            ".out.json.tmp-+1",
            "out.json",
            ".other.tmp-1",
        ] {
            assert_eq!(stale_pid(OsStr::new(other), prefix), None, "{other}");
        }
    }

    #[test]
    fn a_dropped_temporary_file_is_removed() {
        let dir = std::env::temp_dir().join(format!("locksim-temp-drop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let temp = TempFile::write_beside(&dir.join("out"), b"x").expect("written");
        let path = temp.path().to_path_buf();
        assert!(path.exists());
        drop(temp);
        assert!(!path.exists());
    }
}
