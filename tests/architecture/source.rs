//! The library sources as the layering rules see them: each `.rs` file of a crate with its
//! module path, read as text (no parser: the rules need only paths and words).

use std::fs;
use std::path::{Path, PathBuf};

/// The crates' source folders, relative to the workspace root.
pub const CRATES: [&str; 6] = [
    "sim/src",
    "protocols/src",
    "src",
    "clock/src",
    "madsim/src",
    "examples/user-redis-lock/src",
];

/// One source file of a crate.
pub struct SourceFile {
    /// Relative to the workspace root, with `/` separators: what messages name.
    pub path: String,
    /// The module the file is (`["world", "fire"]` for `sim/src/world/fire.rs`; the crate
    /// root is `[]`).
    pub module: Vec<String>,
    pub text: String,
}

impl SourceFile {
    /// Whether the file holds only tests: `tests.rs`, `test_*.rs`, `*_tests.rs`.
    pub fn is_test_only(&self) -> bool {
        let name = self.path.rsplit('/').next().unwrap_or_default();
        name == "tests.rs" || name.starts_with("test_") || name.ends_with("_tests.rs")
    }
}

pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every library file of the crate whose sources are in `src_dir`, in path order. The root
/// crate's `main.rs` is a binary of its own (it reaches the library as `locksim::`), so it
/// is left out.
pub fn crate_files(src_dir: &str) -> Vec<SourceFile> {
    let root = workspace_root();
    let mut paths = Vec::new();
    collect_rs(&root.join(src_dir), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(root.join(src_dir))
                .expect("under the crate")
                .to_path_buf();
            let module = module_of(&rel)?;
            Some(SourceFile {
                path: format!("{src_dir}/{}", slashed(&rel)),
                module,
                text: fs::read_to_string(&p).expect("a readable source file"),
            })
        })
        .collect()
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn slashed(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// The module path of a file relative to its crate's source folder; `None` for `main.rs`.
fn module_of(rel: &Path) -> Option<Vec<String>> {
    let text = slashed(rel);
    let stem = text.strip_suffix(".rs").expect("a .rs file");
    match stem {
        "lib" => return Some(Vec::new()),
        "main" => return None,
        _ => {}
    }
    let mut module: Vec<String> = stem.split('/').map(str::to_string).collect();
    if module.last().is_some_and(|m| m == "mod") {
        module.pop();
    }
    Some(module)
}

/// The words of `text`, lowercased, with their 1-based line numbers: each run of letters and
/// digits, and also its parts at lowercase-to-uppercase steps, so `RedisServer`,
/// `redis_server` and "Redis's" all contain the word `redis`, and `ZooKeeper` is `zookeeper`.
pub fn words(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for run in line.split(|c: char| !c.is_alphanumeric()).filter(|r| !r.is_empty()) {
            let parts = camel_parts(run);
            if parts.len() > 1 {
                out.extend(parts.into_iter().map(|p| (i + 1, p.to_lowercase())));
            }
            out.push((i + 1, run.to_lowercase()));
        }
    }
    out
}

/// `RedisServer` -> `Redis`, `Server`: a new part at each uppercase letter after a lowercase
/// letter or a digit.
fn camel_parts(run: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut prev_lower = false;
    for (i, c) in run.char_indices() {
        if c.is_uppercase() && prev_lower {
            parts.push(&run[start..i]);
            start = i;
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    parts.push(&run[start..]);
    parts
}
