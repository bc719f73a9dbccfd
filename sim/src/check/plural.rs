//! Counted nouns in verdict messages: "1 accepted write", "21 intervals". A verdict is
//! read as a sentence, and "1 clients" makes a reader stop and doubt the count.

use std::fmt::Write;

/// `n` and the noun, plural unless `n` is 1: `count(1, "client")` is "1 client",
/// `count(2, "repeated delivery")` is "2 repeated deliveries". The noun is given in the
/// singular and must take a regular English plural of its last word (every checker's nouns
/// do).
pub fn count(n: usize, noun: &str) -> String {
    // Built in one buffer, not through `format!`: every run's verdicts count a dozen things,
    // and in a short run (exploration runs thousands) the formatter's cost shows. Sized once
    // for the longest text, so that no push reallocates it.
    let mut text = String::with_capacity(24 + noun.len());
    write!(text, "{n} ").expect("a String takes any text");
    if n == 1 {
        text.push_str(noun);
        return text;
    }
    let consonant_y = noun
        .strip_suffix('y')
        .filter(|stem| stem.chars().last().is_some_and(|c| !"aeiou".contains(c)));
    match consonant_y {
        Some(stem) => {
            text.push_str(stem);
            text.push_str("ies");
        }
        None => {
            text.push_str(noun);
            let sibilant = ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end));
            text.push_str(if sibilant { "es" } else { "s" });
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_every_other_count_plural() {
        assert_eq!(count(1, "client"), "1 client");
        assert_eq!(count(0, "client"), "0 clients");
        assert_eq!(count(21, "holding interval"), "21 holding intervals");
        assert_eq!(count(2, "ID"), "2 IDs");
    }

    #[test]
    fn regular_plurals_of_the_last_word() {
        assert_eq!(count(2, "repeated delivery"), "2 repeated deliveries");
        assert_eq!(count(2, "day"), "2 days", "a vowel before the y keeps it");
        assert_eq!(count(3, "pass"), "3 passes");
        assert_eq!(count(3, "box"), "3 boxes");
        assert_eq!(count(3, "batch"), "3 batches");
        assert_eq!(count(3, "crash"), "3 crashes");
        assert_eq!(count(1, "repeated delivery"), "1 repeated delivery");
    }
}
