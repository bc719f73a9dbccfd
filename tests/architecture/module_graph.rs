//! Which module of a crate refers to which, read from the `use` statements and the
//! `crate::`/`super::` paths of its files, and the import cycles among the child modules of
//! each folder.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::source::SourceFile;

type Module = Vec<String>;

/// A reference from one module to a path in another.
struct Reference {
    file: String,
    from: Module,
    /// The module the path leads into (its longest prefix that is a module).
    target: Module,
    written: String,
}

/// The child modules of one folder that import each other round in a circle.
pub struct Cycle {
    /// The folder's module path, `::`-joined ("" for the crate root).
    pub folder: String,
    /// Every child module on some cycle with the others (a strongly connected component).
    pub members: BTreeSet<String>,
    /// One cycle through its first member, hop by hop: which file refers to which path.
    pub chain: Vec<String>,
}

/// The import cycles among sibling modules in a crate whose files are `files`.
pub fn cycles(files: &[SourceFile]) -> Vec<Cycle> {
    let modules: BTreeSet<Module> = files.iter().map(|f| f.module.clone()).collect();
    // folder -> from child -> to child -> the first reference that makes the edge.
    let mut edges: BTreeMap<Module, BTreeMap<String, BTreeMap<String, String>>> = BTreeMap::new();
    for r in files.iter().flat_map(|f| references(f, &modules)) {
        let common = r.from.iter().zip(&r.target).take_while(|(a, b)| a == b).count();
        if r.from.len() > common && r.target.len() > common {
            let folder = r.from[..common].to_vec();
            let hop = format!("{} refers to {}", r.file, r.written);
            edges
                .entry(folder)
                .or_default()
                .entry(r.from[common].clone())
                .or_default()
                .entry(r.target[common].clone())
                .or_insert(hop);
        }
    }
    edges
        .iter()
        .flat_map(|(folder, graph)| folder_cycles(folder, graph))
        .collect()
}

fn folder_cycles(folder: &Module, graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Cycle> {
    let reach: BTreeMap<&String, BTreeSet<&String>> = graph.keys().map(|n| (n, reachable(graph, n))).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (node, from_node) in &reach {
        if seen.contains(*node) || !from_node.contains(*node) {
            continue;
        }
        let members: BTreeSet<String> = from_node
            .iter()
            .filter(|m| reach.get(*m).is_some_and(|r| r.contains(*node)))
            .map(|m| m.to_string())
            .collect();
        seen.extend(members.iter().cloned());
        out.push(Cycle {
            folder: folder.join("::"),
            chain: chain_back_to(graph, node),
            members,
        });
    }
    out
}

/// The modules `start` reaches by one or more edges.
fn reachable<'a>(graph: &'a BTreeMap<String, BTreeMap<String, String>>, start: &str) -> BTreeSet<&'a String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&String> = graph.get(start).into_iter().flat_map(|e| e.keys()).collect();
    while let Some(n) = todo.pop() {
        if seen.insert(n) {
            todo.extend(graph.get(n).into_iter().flat_map(|e| e.keys()));
        }
    }
    seen
}

/// The shortest way from `start` round to itself, as the hops' references.
fn chain_back_to(graph: &BTreeMap<String, BTreeMap<String, String>>, start: &String) -> Vec<String> {
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for next in graph.get(n).into_iter().flat_map(|e| e.keys()) {
            if next == start {
                let mut hops = vec![graph[n][next].clone()];
                let mut at = n;
                while at != start {
                    let prev = came_from[at];
                    hops.push(graph[prev][at].clone());
                    at = prev;
                }
                hops.reverse();
                return hops;
            }
            if !came_from.contains_key(next) {
                came_from.insert(next, n);
                queue.push_back(next);
            }
        }
    }
    unreachable!("{start} is on a cycle")
}

/// Every path `file` refers to that leads into a module of its crate.
fn references(file: &SourceFile, modules: &BTreeSet<Module>) -> Vec<Reference> {
    let mut out = Vec::new();
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut pending_use: Option<(Module, String)> = None;
    for line in file.text.lines().map(code_of) {
        let indent = line.len() - line.trim_start().len();
        if inline.last().is_some_and(|(i, _)| *i == indent && line.trim() == "}") {
            inline.pop();
        }
        let here: Module = file
            .module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(_, m)| m.clone()))
            .collect();
        let trimmed = line.trim();
        if let Some(name) = inline_module(trimmed) {
            inline.push((indent, name));
        }
        if pending_use.is_none()
            && let Some(rest) = use_body(trimmed)
        {
            pending_use = Some((here.clone(), String::new()));
            pending_use.as_mut().expect("just set").1.push_str(rest);
        } else if let Some((_, text)) = pending_use.as_mut() {
            text.push(' ');
            text.push_str(trimmed);
        } else {
            for written in code_paths(&line) {
                out.extend(reference(file, &here, &written, modules));
            }
        }
        if let Some((at, text)) = pending_use.take_if(|(_, text)| text.contains(';')) {
            let mut paths = Vec::new();
            expand(&[], text.split(';').next().unwrap_or_default(), &mut paths);
            for segments in paths {
                out.extend(reference(file, &at, &segments.join("::"), modules));
            }
        }
    }
    out
}

fn reference(file: &SourceFile, here: &Module, written: &str, modules: &BTreeSet<Module>) -> Option<Reference> {
    let segments: Vec<String> = written.split("::").map(str::to_string).collect();
    let absolute = resolve(here, &segments, modules)?;
    let target = (0..=absolute.len())
        .rev()
        .map(|n| absolute[..n].to_vec())
        .find(|m| modules.contains(m))?;
    Some(Reference {
        file: file.path.clone(),
        from: here.clone(),
        target,
        written: written.to_string(),
    })
}

/// The absolute path `segments` names from module `here`, if it is a path into this crate.
fn resolve(here: &Module, segments: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let (first, rest) = segments.split_first()?;
    match first.as_str() {
        "crate" | "$crate" => Some(rest.to_vec()),
        "self" => Some(here.iter().chain(rest).cloned().collect()),
        "super" => {
            let mut base = here.clone();
            let mut rest = segments;
            while let Some((s, tail)) = rest.split_first()
                && s == "super"
            {
                base.pop();
                rest = tail;
            }
            Some(base.into_iter().chain(rest.iter().cloned()).collect())
        }
        _ => {
            let child: Module = here.iter().chain([first]).cloned().collect();
            modules
                .contains(&child)
                .then(|| here.iter().chain(segments).cloned().collect())
        }
    }
}

/// Expands a use tree (`a::{b, c::{d, e as f}}`) into its paths, `self` and globs dropped.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').expect("a closed use group")];
        let base: Vec<String> = prefix.iter().cloned().chain(segments(head)).collect();
        for part in top_level_items(inner) {
            expand(&base, part, out);
        }
        return;
    }
    let leaf = tree.split(" as ").next().unwrap_or_default();
    let path: Vec<String> = prefix
        .iter()
        .cloned()
        .chain(segments(leaf))
        .filter(|s| s != "self" && s != "*")
        .collect();
    if !path.is_empty() {
        out.push(path);
    }
}

fn segments(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The comma-separated items of a use group, commas inside nested groups kept.
fn top_level_items(inner: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// What follows `use` in a `use` statement's first line (any visibility), if it is one.
fn use_body(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix("pub").map_or(trimmed, |r| {
        r.strip_prefix('(')
            .and_then(|r| r.split_once(')'))
            .map_or(r, |(_, r)| r)
            .trim_start()
    });
    rest.strip_prefix("use ")
}

/// The name of an inline module opened on this line (`mod tests {`).
fn inline_module(trimmed: &str) -> Option<String> {
    let rest = trimmed.strip_suffix('{')?.trim_end();
    let name = rest
        .strip_prefix("mod ")
        .or_else(|| rest.split_once(" mod ").map(|(_, n)| n))?;
    Some(name.trim().to_string())
}

/// The `crate::` and `super::` paths written in a line of code.
fn code_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = line[from..].find(start).map(|i| i + from) {
            let before = line[..at].chars().next_back();
            let end = line[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(line.len(), |i| i + at);
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                out.push(line[at..end].trim_end_matches(':').to_string());
            }
            from = end.max(at + start.len());
        }
    }
    out
}

/// The line without its comment and with string literals emptied, so that neither prose nor
/// text counts as a reference.
fn code_of(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => {
                in_string = !in_string;
                out.push('"');
            }
            '\'' if !in_string && chars.peek() == Some(&'"') => {
                chars.next();
                out.push_str("'_");
            }
            '/' if !in_string && chars.peek() == Some(&'/') => break,
            _ if in_string => {}
            _ => out.push(c),
        }
    }
    out
}
