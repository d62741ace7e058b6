//! Files written whole or not at all, and folder walks that end.
//!
//! A file the program writes goes to a temporary name beside its target and is renamed over it only once
//! every byte is written: a full disk, a read-only folder or a kill leaves the previous file as it was
//! (and no temporary file behind, when the failure is an error rather than a kill). A folder of many files
//! (an HTML site) is built beside the old one and then swapped with it.
//!
//! A folder walk follows symbolic links but reads each folder and each file once, by device and inode, so
//! a link back up the tree (or to `.`) cannot make it loop or read a game twice; it lists only regular
//! files and says which entries it left out (FIFOs, devices and sockets would block or never end).
//!
//! This module knows nothing of Go; every other module may use it.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Something a walk or a write left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// A name beside `path` for a temporary copy, unique within this process and across processes.
fn temporary_beside(path: &Path, what: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map(OsString::from).unwrap_or_default();
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(".{what}-{}-{n}", std::process::id()));
    path.with_file_name(temp)
}

/// An error about `path`, naming it (an `io::Error` alone does not say which file failed).
pub fn error_at(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside it, flushed to the disk, then
/// renamed over `path`. On an error the temporary file is removed and `path` is untouched. Errors name
/// the file.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temporary(path, bytes, true)
}

/// As [`write_whole`], without waiting for the disk: for many small files whose loss in a power cut
/// costs nothing (replay frames, the pages of a site that is itself swapped in whole). A write error
/// still leaves no partial file.
pub fn write_whole_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temporary(path, bytes, false)
}

fn write_via_temporary(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let temp = temporary_beside(path, "tmp");
    let written = File::create(&temp).and_then(|mut f| {
        f.write_all(bytes)?;
        if sync { f.sync_all() } else { f.flush() }
    });
    let renamed = written.and_then(|()| std::fs::rename(&temp, path));
    if let Err(e) = renamed {
        let _ = std::fs::remove_file(&temp);
        return Err(error_at(path, e));
    }
    if sync {
        sync_parent(path);
    }
    Ok(())
}

/// Makes a rename durable; a file system that cannot sync a folder loses nothing but that promise.
fn sync_parent(path: &Path) {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
}

/// A folder being built beside `target`; [`StagedDir::commit`] swaps it in. Dropped without a commit, the
/// half-built folder is removed and `target` was never touched.
#[derive(Debug)]
pub struct StagedDir {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Creates the staging folder beside `target` (same parent, so the swap is a rename).
    pub fn new(target: &Path) -> std::io::Result<StagedDir> {
        let staging = temporary_beside(target, "new");
        if let Some(parent) = staging.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| error_at(parent, e))?;
        }
        std::fs::create_dir(&staging).map_err(|e| error_at(&staging, e))?;
        Ok(StagedDir {
            target: target.to_path_buf(),
            staging,
            committed: false,
        })
    }

    /// Where to write the new folder's files.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// Puts the new folder in `target`'s place. An existing `target` is swapped out in one step (where
    /// the file system can exchange two names) and then removed; readers see the old folder or the new
    /// one, never a mixture.
    pub fn commit(mut self) -> std::io::Result<()> {
        let target = self.target.clone();
        if std::fs::symlink_metadata(&target).is_err() {
            std::fs::rename(&self.staging, &target).map_err(|e| error_at(&target, e))?;
            self.committed = true;
            sync_parent(&target);
            return Ok(());
        }
        let old = temporary_beside(&target, "old");
        if exchange(&self.staging, &target).is_ok() {
            // The old folder now has the staging name.
            std::fs::rename(&self.staging, &old).map_err(|e| error_at(&old, e))?;
        } else {
            std::fs::rename(&target, &old).map_err(|e| error_at(&target, e))?;
            if let Err(e) = std::fs::rename(&self.staging, &target) {
                let _ = std::fs::rename(&old, &target);
                return Err(error_at(&target, e));
            }
        }
        self.committed = true;
        sync_parent(&target);
        std::fs::remove_dir_all(&old).map_err(|e| error_at(&old, e))
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Swaps two names atomically (Linux `renameat2(RENAME_EXCHANGE)`); an error where the file system or the
/// system cannot, and the caller falls back to two renames.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both pointers are NUL-terminated strings that outlive the call; the call only reads them.
    let result = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// What a folder walk found: regular files (sorted) and what it left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walk {
    pub files: Vec<PathBuf>,
    pub skipped: Vec<Skipped>,
}

/// Every regular file under `roots` (files or folders, recursively) for which `wanted` holds; a file
/// given as a root is taken whatever its name. Symbolic links are followed, but each folder and each file
/// is read once (by device and inode); FIFOs, devices, sockets and links that lead nowhere are left out
/// and listed in [`Walk::skipped`]. An unreadable folder is an error naming it.
pub fn walk(roots: &[PathBuf], wanted: impl Fn(&Path) -> bool) -> std::io::Result<Walk> {
    let mut out = Walk::default();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut stack: Vec<(PathBuf, bool)> = roots.iter().rev().map(|p| (p.clone(), true)).collect();
    while let Some((path, is_root)) = stack.pop() {
        let skip = |out: &mut Walk, reason: String| {
            out.skipped.push(Skipped {
                path: path.clone(),
                reason,
            })
        };
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if is_root => return Err(error_at(&path, e)),
            Err(e) => {
                if wanted(&path) {
                    skip(&mut out, format!("cannot read it ({e})"));
                }
                continue;
            }
        };
        let kind = meta.file_type();
        if !kind.is_dir() && !is_root && !wanted(&path) {
            continue;
        }
        if !kind.is_dir() && !kind.is_file() {
            let what = if kind.is_fifo() {
                "a FIFO"
            } else if kind.is_socket() {
                "a socket"
            } else if kind.is_block_device() || kind.is_char_device() {
                "a device"
            } else {
                "not a regular file"
            };
            skip(&mut out, format!("{what}, not read"));
            continue;
        }
        if !seen.insert((meta.dev(), meta.ino())) {
            let what = if kind.is_dir() { "folder" } else { "file" };
            skip(
                &mut out,
                format!("a {what} already read through another path (a link), not read again"),
            );
            continue;
        }
        if kind.is_file() {
            out.files.push(path);
            continue;
        }
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&path).map_err(|e| error_at(&path, e))? {
            entries.push(entry.map_err(|e| error_at(&path, e))?.path());
        }
        entries.sort();
        stack.extend(entries.into_iter().rev().map(|p| (p, false)));
    }
    out.files.sort();
    Ok(out)
}

/// Whether `path` ends in `.sgf` (any case): the files folder walks over game records look for.
pub fn is_sgf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(paths: &[PathBuf], root: &Path) -> Vec<String> {
        paths
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn a_walk_ends_on_link_loops_reads_each_file_once_and_skips_fifos() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/one.sgf"), "(;)").unwrap();
        std::fs::write(root.join("a/b/two.SGF"), "(;)").unwrap();
        std::fs::write(root.join("a/b/notes.txt"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("a/b/up")).unwrap();
        std::os::unix::fs::symlink(".", root.join("a/here")).unwrap();
        std::os::unix::fs::symlink("one.sgf", root.join("a/same.sgf")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("a/broken.sgf")).unwrap();
        let fifo = std::ffi::CString::new(root.join("a/pipe.sgf").to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let walk = walk(&[root.join("a")], is_sgf).unwrap();
        assert_eq!(names(&walk.files, root), ["a/b/two.SGF", "a/one.sgf"]);
        let mut skipped: Vec<(String, &str)> = walk
            .skipped
            .iter()
            .map(|s| {
                let path = s.path.strip_prefix(root).unwrap().display().to_string();
                let why = if s.reason.contains("FIFO") {
                    "fifo"
                } else if s.reason.contains("already read") {
                    "again"
                } else {
                    "unreadable"
                };
                (path, why)
            })
            .collect();
        skipped.sort();
        assert_eq!(
            skipped,
            [
                ("a/b/up".to_string(), "again"),
                ("a/broken.sgf".to_string(), "unreadable"),
                ("a/here".to_string(), "again"),
                ("a/pipe.sgf".to_string(), "fifo"),
                ("a/same.sgf".to_string(), "again"),
            ]
        );
        let err = super::walk(&[root.join("missing")], is_sgf).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
    }

    #[test]
    fn a_whole_write_replaces_the_file_or_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.sgf");
        write_whole(&file, b"first").unwrap();
        write_whole(&file, b"second").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"second");
        // A target that cannot be replaced (a folder): the error names it, the folder holds nothing new.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        let err = write_whole(&blocked, b"x").unwrap_err();
        assert!(err.to_string().contains("blocked"), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 2, "no temporary file is left behind");
    }

    #[test]
    fn a_staged_folder_is_swapped_in_whole_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        let staged = StagedDir::new(&site).unwrap();
        std::fs::write(staged.path().join("page"), "one").unwrap();
        staged.commit().unwrap();
        assert_eq!(std::fs::read_to_string(site.join("page")).unwrap(), "one");
        let staged = StagedDir::new(&site).unwrap();
        std::fs::write(staged.path().join("page"), "two").unwrap();
        drop(staged);
        assert_eq!(std::fs::read_to_string(site.join("page")).unwrap(), "one");
        let staged = StagedDir::new(&site).unwrap();
        std::fs::write(staged.path().join("other"), "three").unwrap();
        staged.commit().unwrap();
        assert!(!site.join("page").exists());
        assert_eq!(
            std::fs::read_to_string(site.join("other")).unwrap(),
            "three"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the site is left: {left:?}");
    }
}
