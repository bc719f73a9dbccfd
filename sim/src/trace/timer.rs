//! A timer's line after its stamp — `,"kind":"timer","tag":N,"salience":"chatter","text":"timer
//! N fires"}` and its newline — is the same bytes every time a timer with that tag fires (a
//! timer's salience is fixed): kept per tag and copied whole, instead of written in six pieces
//! with the tag's digits formatted twice and the text scanned for escapes. Timers are a quarter
//! of many runs' events and half of some.

/// Tags remembered: a model's timers use a handful; a tag beyond these is written in full.
const TAGS: usize = 16;

/// The tails of timer lines, by tag, as the line writer first wrote them.
#[derive(Default)]
pub(super) struct TimerTails(Vec<(u32, String)>);

impl TimerTails {
    /// The tail of a line for a timer with `tag`, if one was kept.
    pub(super) fn get(&self, tag: u32) -> Option<&str> {
        self.0.iter().find(|(t, _)| *t == tag).map(|(_, tail)| tail.as_str())
    }

    /// Keeps `tail`, written for a timer with `tag`, if there is room.
    pub(super) fn keep(&mut self, tag: u32, tail: &str) {
        if self.0.len() < TAGS {
            self.0.push((tag, tail.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_is_kept_by_tag_while_there_is_room() {
        let mut tails = TimerTails::default();
        assert_eq!(tails.get(1), None);
        for tag in 0..TAGS as u32 + 1 {
            tails.keep(tag, &format!("tail {tag}"));
        }
        assert_eq!(tails.get(1), Some("tail 1"));
        assert_eq!(tails.get(TAGS as u32), None);
    }
}
