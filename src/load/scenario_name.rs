//! A scenario's name becomes a file name: `explore --out DIR` writes `<name>-seed…` into DIR.
//! A name that is not a plain file name could write outside DIR (`../escaped`), hide the file
//! (a leading `.`), or put raw control characters on the terminal, so it is refused at load.

/// Why `name` is not a plain file name, or `None` when it is one.
pub(super) fn problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some("must not be empty".to_string());
    }
    if let Some(c) = name.chars().find(|c| matches!(c, '/' | '\\') || c.is_control()) {
        return Some(format!(
            "must be a plain file name, without {}",
            match c {
                '/' => "'/'".to_string(),
                '\\' => "'\\'".to_string(),
                c => format!("control characters (found U+{:04X})", u32::from(c)),
            }
        ));
    }
    if name.starts_with('.') {
        return Some(
            "must be a plain file name: it must not start with '.' (no \".\", \"..\" or hidden file)".to_string(),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn plain_names_pass() {
        for name in ["kleppmann-gc-pause", "a b", "v1.2", "a..b", "ünïcode"] {
            assert_eq!(problem(name), None, "{name}");
        }
    }

    #[test]
    fn names_that_are_not_plain_file_names_are_refused() {
        for (name, says) in [
            ("", "empty"),
            ("  ", "empty"),
            ("../escaped", "'/'"),
            ("a\\b", "'\\'"),
            ("..", "'.'"),
            (".hidden", "'.'"),
            ("bell\u{7}", "U+0007"),
            ("esc\u{1b}[31m", "U+001B"),
        ] {
            let p = problem(name).unwrap_or_else(|| panic!("{name:?} is refused"));
            assert!(p.contains(says), "{name:?}: {p}");
        }
    }
}
