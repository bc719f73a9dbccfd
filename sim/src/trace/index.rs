//! A line's opening, `{"i":N`: consecutive lines' indices differ in their last digit nine
//! times in ten, so the opening up to that digit is kept and copied, and the last digit
//! pushed alone, instead of the index formatted anew for every line (`itoa` and the copy of
//! its text, for an index of 10,000 or more).

use crate::pieces::{push_short, push_uint};

/// The opening of the last line written, without its index's last digit.
pub(super) struct LineIndex {
    /// The index divided by ten whose digits `text` holds.
    tens: usize,
    /// `{"i":` and the digits of `tens` (none for 0).
    text: String,
}

impl Default for LineIndex {
    fn default() -> Self {
        LineIndex {
            // No index divides to this: the first line writes its opening.
            tens: usize::MAX,
            text: String::new(),
        }
    }
}

impl LineIndex {
    /// Appends `{"i":index` to `out`.
    #[inline(always)]
    pub(super) fn push(&mut self, out: &mut String, index: usize) {
        let tens = index / 10;
        if tens != self.tens {
            self.tens = tens;
            self.text.clear();
            self.text.push_str("{\"i\":");
            if tens > 0 {
                push_uint(&mut self.text, tens as u64);
            }
        }
        // At most 24 bytes (`{"i":` and the 19 digits of `usize::MAX / 10`): a copy of its
        // length known at compile time, where a `memcpy` call cost ~8 instructions a line more.
        push_short(out, &self.text);
        out.push(char::from(b'0' + (index % 10) as u8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opening_is_written_as_display_writes_its_index() {
        let mut index = LineIndex::default();
        let mut indices: Vec<usize> = (0..25_000).collect();
        indices.extend([7, 3, 1_000_000, 999_999, 1_000_000, usize::MAX, 0, 10, 9]);
        for i in indices {
            let mut out = String::from("x");
            index.push(&mut out, i);
            assert_eq!(out, format!("x{{\"i\":{i}"));
        }
    }
}
