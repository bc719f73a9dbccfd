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

/// Appends each piece to the `String` `out`, in order: `write!` without the formatter.
#[macro_export]
macro_rules! push {
    ($out:expr, $($piece:expr),+ $(,)?) => {{
        let out: &mut String = $out;
        $( $crate::pieces::Piece::push_to(&$piece, out); )+
    }};
}

/// Writes each piece through its own `Display` into the formatter `$f`, in order, and is
/// `Ok(())`: `write!` for a `Display` impl (a message's, which the trace formats once per
/// send) without `fmt::write`'s walk over a format string's pieces and arguments.
#[macro_export]
macro_rules! write_pieces {
    ($f:expr, $($piece:expr),+ $(,)?) => {{
        let f: &mut ::std::fmt::Formatter<'_> = $f;
        $( ::std::fmt::Display::fmt(&$piece, f)?; )+
        Ok(())
    }};
}
