//! Output files appear whole or not at all: written to a temporary file beside the target,
//! then renamed over it (a rename within one directory is atomic on POSIX file systems).
//! Only a regular file is replaced: a rename would turn a device, a FIFO or a symlink into a
//! plain file, so those are refused, and a replaced file keeps its permissions.

use std::fs::{File, Permissions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::temp_file::TempFile;

/// Replaces `path` (or creates it) with `contents`, atomically.
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut staged = Staged::create(path)?;
    staged.write_all(contents)?;
    staged.commit()
}

/// An output file being written as it is produced (a streamed trace): buffered into its
/// temporary file, renamed over the target by [`Staged::commit`], removed if dropped first —
/// so the target is refused before anything is produced when it is not a regular file, and
/// appears whole or not at all.
pub struct Staged {
    temp: TempFile,
    out: BufWriter<File>,
    target: PathBuf,
    permissions: Option<Permissions>,
}

impl Staged {
    /// Checks that `path` may be replaced and creates the temporary file beside it.
    pub fn create(path: &Path) -> io::Result<Staged> {
        let permissions = replaceable(path)?;
        let (temp, file) = TempFile::create_beside(path)?;
        Ok(Staged {
            temp,
            out: BufWriter::with_capacity(1 << 16, file),
            target: path.to_path_buf(),
            permissions,
        })
    }

    /// Syncs the file and moves it into place, with the replaced file's permissions.
    pub fn commit(self) -> io::Result<()> {
        let file = self.out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        if let Some(permissions) = self.permissions {
            std::fs::set_permissions(self.temp.path(), permissions)?;
        }
        self.temp.rename_to(&self.target)
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The permissions of the regular file at `path`, `None` when nothing is there, or an error
/// when something other than a regular file is.
fn replaceable(path: &Path) -> io::Result<Option<Permissions>> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Some(meta.permissions()));
    }
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else {
        special_kind(&kind)
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is {what}; only a regular file is replaced, so it was left as it is"),
    ))
}

/// What a file that is neither regular, a directory nor a symlink is.
#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("locksim-atomic-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn a_regular_file_is_replaced_and_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let path = scratch("mode").join("out.json");
        std::fs::write(&path, "old").expect("write");
        std::fs::set_permissions(&path, Permissions::from_mode(0o600)).expect("chmod");
        write(&path, b"new").expect("replaced");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_symlink_or_a_directory_is_left_as_it_is() {
        let dir = scratch("kinds");
        let target = dir.join("target");
        std::fs::write(&target, "kept").expect("write");
        let link = dir.join("link");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let e = write(&link, b"new").expect_err("a symlink is refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(std::fs::symlink_metadata(&link).expect("meta").file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "kept");
        let e = write(&dir, b"new").expect_err("a directory is refused");
        assert!(e.to_string().contains("directory"), "{e}");
    }

    #[test]
    fn a_staged_file_appears_only_when_committed_and_leaves_nothing_when_dropped() {
        let dir = scratch("staged");
        let path = dir.join("out.json");
        std::fs::write(&path, "old").expect("write");
        let mut staged = Staged::create(&path).expect("staged");
        staged.write_all(b"new, in parts").expect("written");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");
        drop(staged);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");
        let names = || std::fs::read_dir(&dir).expect("dir").count();
        assert_eq!(names(), 1, "the temporary file is removed");
        let mut staged = Staged::create(&path).expect("staged");
        staged.write_all(b"new").expect("written");
        staged.commit().expect("committed");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        assert_eq!(names(), 1);
    }
}
