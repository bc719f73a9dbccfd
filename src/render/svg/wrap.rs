//! Text broken into lines that fit a width: a note or a caption wraps rather than widening the
//! picture past its window.

use super::text_width;

/// `text` broken at spaces into lines no wider than `max_w` (estimated, [`text_width`]); a word
/// wider than that on its own is cut, so no line ever is. Always at least one line.
pub(super) fn wrap(text: &str, max_w: i32) -> Vec<String> {
    let max_chars = usize::try_from(max_w * 5 / 42).unwrap_or(0).max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        // A word too long for any line goes in pieces.
        while word.len() > max_chars {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..max_chars).collect());
        }
        let word: String = word.into_iter().collect();
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && needed > max_chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    debug_assert!(lines.iter().all(|l| text_width(l) <= max_w.max(text_width("m"))));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_within_the_width() {
        let w = text_width("0123456789");
        assert_eq!(wrap("lock key caa5 EXPIRED", w), ["lock key", "caa5", "EXPIRED"]);
        assert_eq!(wrap("short", w), ["short"]);
        assert_eq!(wrap("", w), [""]);
    }

    #[test]
    fn cuts_a_word_longer_than_a_line() {
        let w = text_width("01234");
        assert_eq!(wrap("ab 0123456789xy z", w), ["ab", "01234", "56789", "xy z"]);
        assert!(wrap("ééééééééééé", w).iter().all(|l| l.chars().count() <= 5));
    }
}
