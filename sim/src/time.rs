//! Integer time. True time is `u64` nanoseconds since the start of the run; local clock
//! readings are `i64` nanoseconds (a wall clock may be set before its epoch). No floats touch
//! time arithmetic, so every platform computes the same instants.

/// Nanoseconds per millisecond: the one definition every crate uses.
pub const NS_PER_MS: u64 = 1_000_000;

/// [`NS_PER_MS`] for arithmetic on local clock readings and expiry instants, which are signed.
pub const SIGNED_NS_PER_MS: i64 = NS_PER_MS as i64;

/// Milliseconds to nanoseconds, or `None` when the result does not fit in a `u64`.
pub fn ms_to_ns(ms: u64) -> Option<u64> {
    ms.checked_mul(NS_PER_MS)
}

/// Signed milliseconds to nanoseconds, or `None` on overflow.
pub fn signed_ms_to_ns(ms: i64) -> Option<i64> {
    ms.checked_mul(SIGNED_NS_PER_MS)
}

/// Formats a true time as seconds with millisecond precision: `12.345 s`.
pub fn fmt_secs(t_ns: u64) -> String {
    let ms = t_ns / NS_PER_MS;
    format!("{}.{:03} s", ms / 1000, ms % 1000)
}

/// Formats a signed local reading or duration as seconds with millisecond precision.
pub fn fmt_signed_secs(ns: i64) -> String {
    let mut text = String::new();
    crate::pieces::Piece::push_to(&SignedSecs(ns), &mut text);
    text
}

/// [`fmt_signed_secs`] as a [`crate::pieces::Piece`]: a timeline line written into a trace
/// takes it in place, with no `String` of its own.
pub struct SignedSecs(pub i64);

/// `{sign}{secs}.{ms:03} s`, its pieces written as they are: a model's timeline may have one or
/// two per fact, and the formatter's padding costs several times the digits.
impl crate::pieces::Piece for SignedSecs {
    fn push_to(&self, out: &mut String) {
        if self.0 < 0 {
            out.push('-');
        }
        let ms = self.0.unsigned_abs() / NS_PER_MS;
        out.push_str(itoa::Buffer::new().format(ms / 1000));
        let ms = ms % 1000;
        let tail = [b'.', digit(ms / 100), digit(ms / 10 % 10), digit(ms % 10), b' ', b's'];
        crate::pieces::push_ascii(out, &tail);
    }
}

/// The ASCII digit of `d`, less than ten.
fn digit(d: u64) -> u8 {
    b'0' + d as u8
}

/// Formats a duration in the unit a reader expects: `850 ms`, `15 s`, `1.5 s`.
pub fn fmt_duration(ns: u64) -> String {
    let ms = ns / NS_PER_MS;
    if ms >= 1000 && ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms >= 1000 {
        format!("{}.{:03} s", ms / 1000, ms % 1000)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_stable() {
        assert_eq!(fmt_secs(12_345_678_901), "12.345 s");
        assert_eq!(fmt_signed_secs(-2_000_000_000), "-2.000 s");
        for ns in [
            0,
            1,
            -1,
            999_999,
            1_000_000,
            -1_000_000,
            1_234_567_890,
            -60_007_000_000,
            i64::MAX,
            i64::MIN,
        ] {
            let ms = ns.unsigned_abs() / NS_PER_MS;
            let sign = if ns < 0 { "-" } else { "" };
            let by_format = format!("{sign}{}.{:03} s", ms / 1000, ms % 1000);
            assert_eq!(fmt_signed_secs(ns), by_format, "{ns}");
        }
        assert_eq!(fmt_duration(15_000 * NS_PER_MS), "15 s");
        assert_eq!(fmt_duration(1_500 * NS_PER_MS), "1.500 s");
        assert_eq!(fmt_duration(850 * NS_PER_MS), "850 ms");
        assert_eq!(ms_to_ns(u64::MAX), None);
    }
}
