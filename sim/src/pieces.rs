//! A timeline text appended piece by piece to a `String`, without `core::fmt`: a model's
//! fact or message is written once per trace line, and a `write!` costs ~100 instructions of
//! formatter machinery a call before its first byte — more than the text itself.
//!
//! `push!(out, "took ", n, " steps (", SignedSecs(ns), ")")` reads as the `write!` it replaces:
//! each piece a [`Piece`], appended in order.

/// One piece of a text, appended to `out` as its `Display` would write it.
pub trait Piece {
    fn push_to(&self, out: &mut String);
}

impl Piece for &str {
    #[inline]
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for String {
    #[inline]
    fn push_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

/// Integers in decimal ([`push_uint`]).
macro_rules! integer_pieces {
    ($($int:ty),+) => {$(
        impl Piece for $int {
            #[inline]
            fn push_to(&self, out: &mut String) {
                push_uint(out, u64::from(*self));
            }
        }
    )+};
}

integer_pieces!(u16, u32, u64);

impl Piece for i64 {
    #[inline]
    fn push_to(&self, out: &mut String) {
        if *self < 0 {
            out.push('-');
        }
        push_uint(out, self.unsigned_abs());
    }
}

/// Appends `n` in decimal. Below 10,000 (a line's index and message id, most counts in a
/// model's facts and messages) its digits are pushed one by one, ~25 instructions;
/// through `itoa` a number costs a call (~30) and then a `memcpy` call for a length known only
/// at run time (~20), whatever its size. Larger numbers go through `itoa`.
#[inline(always)]
pub fn push_uint(out: &mut String, n: u64) {
    if n >= 10_000 {
        out.push_str(itoa::Buffer::new().format(n));
        return;
    }
    // Each digit computed, so the compiler knows it is ASCII: a `char` from a table could be
    // any byte, and its push would carry the two-byte UTF-8 case.
    let n = n as u32;
    let digit = |d: u32| char::from(b'0' + (d % 10) as u8);
    if n >= 1000 {
        out.push(digit(n / 1000));
    }
    if n >= 100 {
        out.push(digit(n / 100));
    }
    if n >= 10 {
        out.push(digit(n / 10));
    }
    out.push(digit(n));
}

/// Appends `text`, a number's digits or another short text whose length varies, with a copy
/// of its exact length known at compile time (one arm per length up to 24): a copy of a length
/// known only at run time is a `memcpy` call, ~15 instructions with its set-up, where a known
/// one is two to four moves. Longer texts take the call.
#[inline(always)]
pub fn push_short(out: &mut String, text: &str) {
    macro_rules! by_length {
        ($($n:literal)+) => {
            match text.len() {
                $($n => out.push_str(&text[..$n]),)+
                _ => out.push_str(text),
            }
        };
    }
    by_length!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
}

/// Appends ASCII bytes a piece computed (its digits) to `out`, each as its `char`:
/// `str::from_utf8` would validate them first, which for a few bytes costs more than the copy.
#[inline]
pub fn push_ascii(out: &mut String, bytes: &[u8]) {
    debug_assert!(bytes.is_ascii(), "ASCII: {bytes:?}");
    out.extend(bytes.iter().map(|&b| char::from(b)));
}

/// Appends each piece to the `String` `out`, in order: `write!` without the formatter.
#[macro_export]
macro_rules! push {
    ($out:expr, $($piece:expr),+ $(,)?) => {{
        let out: &mut String = $out;
        $( $crate::pieces::Piece::push_to(&$piece, out); )+
    }};
}

/// `Display` for a [`Piece`] (a message's text, which the trace formats once per send): its
/// pieces pushed into a `String` kept per thread, then handed to the formatter in one
/// `write_str`. Each piece written to the formatter itself would be a `write_str` through its
/// `dyn Write`, ~45 instructions, where a push costs a few; a `String` of its own per call
/// would cost an allocation. The `String` is taken out while in use, so a piece that formats
/// another this way (none does) gets a fresh one rather than a conflict; one thread-local
/// access serves both the take and the put back.
pub fn fmt_piece(piece: &impl Piece, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    thread_local! {
        static TEXT: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
    }
    TEXT.with(|kept| {
        let mut text = kept.take();
        text.clear();
        piece.push_to(&mut text);
        let written = f.write_str(&text);
        kept.set(text);
        written
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_as_display_writes_them() {
        let mut edges: Vec<u64> = vec![0, u64::MAX, i64::MAX as u64, 1 << 63];
        for p in 1..20 {
            let ten = 10u64.pow(p);
            edges.extend([ten - 1, ten, ten + 1]);
        }
        edges.extend(0..1000);
        edges.extend((1000..20_000).step_by(7));
        for n in edges {
            let mut out = String::from("x");
            push_uint(&mut out, n);
            assert_eq!(out, format!("x{n}"));
            for i in [n as i64, (n as i64).wrapping_neg(), i64::MIN] {
                let mut out = String::new();
                i.push_to(&mut out);
                assert_eq!(out, i.to_string());
            }
        }
    }

    #[test]
    fn a_short_text_is_pushed_whole_whatever_its_length() {
        let long = "0123456789abcdefghijklmnopqrstuvwxyz";
        for len in 0..=long.len() {
            let mut out = String::from("x");
            push_short(&mut out, &long[..len]);
            assert_eq!(out, format!("x{}", &long[..len]));
        }
    }
}
