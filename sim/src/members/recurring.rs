//! The digits of long numbers a run writes again and again, kept from one line to the next
//! ([`super::Members::recurring`]).

use crate::pieces::push_uint;

/// Numbers kept.
const RECURRING: usize = 4;

/// The digits of the last few numbers written through [`Members::recurring`]: a random
/// token's 20 digits cost `itoa` ~75 instructions, a lookup here a few compares; the copy is
/// the same. A model may name such a token in a third of its facts, a handful live at a time.
#[derive(Default)]
pub(crate) struct Recurring {
    /// Each number with its digits; the slots filled in turn, the oldest replaced.
    kept: [(u64, String); RECURRING],
    next: usize,
}

impl Recurring {
    /// Appends `n` in decimal to `out`.
    pub(super) fn push(&mut self, out: &mut String, n: u64) {
        // Small numbers are not kept: a slot never used holds 0 with no digits.
        if n < 10_000 {
            push_uint(out, n);
            return;
        }
        if let Some((_, digits)) = self.kept.iter().find(|(kept, _)| *kept == n) {
            out.push_str(digits);
            return;
        }
        let (kept, digits) = &mut self.kept[self.next];
        self.next = (self.next + 1) % RECURRING;
        *kept = n;
        digits.clear();
        push_uint(digits, n);
        out.push_str(digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recurring_numbers_are_written_as_display_writes_them() {
        let mut recurring = Recurring::default();
        let mut out = String::new();
        let mut want = String::new();
        // Kept, found again, replaced in turn: more numbers than slots, each several times.
        for round in 0..3u64 {
            for n in [
                0,
                9_999,
                10_000,
                u64::MAX,
                1 << 63,
                12_345_678_901,
                5,
                10_001,
                77_777,
                u64::MAX - round,
            ] {
                recurring.push(&mut out, n);
                want.push_str(&n.to_string());
                want.push(' ');
                out.push(' ');
            }
        }
        assert_eq!(out, want);
    }
}
