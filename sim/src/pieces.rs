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

/// Integers in decimal, through `itoa`'s digit pairs.
macro_rules! integer_pieces {
    ($($int:ty),+) => {$(
        impl Piece for $int {
            #[inline]
            fn push_to(&self, out: &mut String) {
                out.push_str(itoa::Buffer::new().format(*self));
            }
        }
    )+};
}

integer_pieces!(u16, u32, u64, i64);

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
