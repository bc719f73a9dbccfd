//! Reading a rendered Mermaid diagram back, for tests that check what it draws.

/// `participant id as name` lines: id -> name.
pub fn participants(diagram: &str) -> Vec<(String, String)> {
    diagram
        .lines()
        .filter_map(|l| l.trim().strip_prefix("participant "))
        .map(|rest| {
            let (id, name) = rest.split_once(" as ").expect("participant id as name");
            (id.to_string(), name.to_string())
        })
        .collect()
}

/// Arrow lines: (from id, operator, to id, text as written but on one line: a label is cut into
/// short lines with `<br>` only to keep the columns narrow). The operators: `->>` delivered,
/// `-x` dropped, `-)` still in flight at the end.
pub fn arrows(diagram: &str) -> Vec<(String, &'static str, String, String)> {
    let mut out = Vec::new();
    for line in diagram.lines().map(str::trim) {
        if line.starts_with("Note ") {
            continue;
        }
        let Some((head, text)) = line.split_once(": ") else {
            continue;
        };
        for op in ["->>", "-x", "-)"] {
            if let Some((from, to)) = head.split_once(op) {
                out.push((from.to_string(), op, to.to_string(), text.replace("<br>", " ")));
                break;
            }
        }
    }
    out
}

/// Undoes the diagram's entity codes, for comparing with the simulator's text.
pub fn unescape(text: &str) -> String {
    text.replace("#59;", ";")
        .replace("#lt;", "<")
        .replace("#gt;", ">")
        .replace("#35;", "#")
}

/// The diagram with its line breaks read as spaces: notes and messages are cut into short
/// lines at spaces (to keep the columns narrow), so a phrase may straddle a `<br>`.
pub fn flat(diagram: &str) -> String {
    diagram.replace("<br>", " ")
}
