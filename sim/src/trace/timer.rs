//! A timer's line after its stamp — `,"kind":"timer","tag":N,"salience":"chatter","text":"timer
//! N fires"}` and its newline — is the same bytes every time a timer with that tag fires (a
//! timer's salience is fixed): kept per tag and copied whole, instead of written in six pieces
//! with the tag's digits formatted twice and the text scanned for escapes. Timers are a quarter
//! of many runs' events and half of some.

/// Tags remembered: a model's timers use a handful of small tags; a tag from this on is
/// written in full.
const TAGS: usize = 16;

/// The tails of timer lines, by tag, as the line writer first wrote them.
#[derive(Default)]
pub(super) struct TimerTails([String; TAGS]);

impl TimerTails {
    /// The tail of a line for a timer with `tag`, if one was kept. Looked up by tag, where a
    /// search through the tails kept in turn cost a call and ~20 instructions a timer.
    #[inline]
    pub(super) fn get(&self, tag: u32) -> Option<&str> {
        // A tail is never empty: an empty one was never kept.
        let tail = self.0.get(tag as usize)?;
        (!tail.is_empty()).then_some(tail.as_str())
    }

    /// Keeps `tail`, written for a timer with `tag`, if the tag is one remembered.
    pub(super) fn keep(&mut self, tag: u32, tail: &str) {
        if let Some(kept) = self.0.get_mut(tag as usize) {
            *kept = tail.to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_is_kept_by_tag_if_the_tag_is_remembered() {
        let mut tails = TimerTails::default();
        assert_eq!(tails.get(1), None);
        for tag in [0, 1, 5, TAGS as u32 - 1, TAGS as u32, u32::MAX] {
            tails.keep(tag, &format!("tail {tag}"));
        }
        assert_eq!(tails.get(1), Some("tail 1"));
        assert_eq!(tails.get(2), None);
        assert_eq!(tails.get(TAGS as u32 - 1), Some("tail 15"));
        assert_eq!(tails.get(TAGS as u32), None);
        assert_eq!(tails.get(u32::MAX), None);
    }
}
