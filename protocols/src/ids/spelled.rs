//! ASCII text spelled on the stack and appended to a `String` in one piece: how an issued
//! ID's timeline text (half a Snowflake run's trace lines) is written. Pushed into the
//! `String` piece by piece, each constant and each digit cost a capacity check and a length
//! update, and each number's text from `itoa` a `memcpy` call of a length known only at run
//! time; here a digit is one store, and the text is checked once (as UTF-8, the safe way to
//! make a `str` of bytes) and copied once.

/// At most `N` bytes of ASCII text, `N` a multiple of 16: the buffer is checked whole (its
/// unused tail zeros), 16 aligned bytes at a time — `str::from_utf8`'s fast path, which on a
/// length not a multiple of 16 checks the last bytes one by one.
#[repr(align(16))]
pub struct Spelled<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Default for Spelled<N> {
    #[inline(always)]
    fn default() -> Self {
        const { assert!(N.is_multiple_of(16), "whole 16-byte blocks") };
        Spelled { bytes: [0; N], len: 0 }
    }
}

impl<const N: usize> Spelled<N> {
    /// Appends `s` (a constant, whose copy is then a few stores).
    #[inline(always)]
    pub fn str(&mut self, s: &str) {
        let end = self.len + s.len();
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
    }

    /// Appends `n` in lowercase hexadecimal, without leading zeros (`{:x}`).
    #[inline(always)]
    pub fn hex(&mut self, n: u64) {
        let digits = (u64::BITS - (n | 1).leading_zeros()).div_ceil(4) as usize;
        if digits == 9 {
            // One digit above the last 8, as a Snowflake ID of a run's first 16 seconds has:
            // spelled alone, where its 8 cost ~20 instructions more.
            let top = (n >> 32) as u8;
            self.bytes[self.len] = top + if top < 10 { b'0' } else { b'a' - 10 };
            self.len += 1;
            self.put_last(hex8(n as u32), 8);
        } else if digits > 8 {
            self.put_last(hex8((n >> 32) as u32), digits - 8);
            self.put_last(hex8(n as u32), 8);
        } else {
            self.put_last(hex8(n as u32), digits);
        }
    }

    /// Appends `n` in decimal (`{}`), eight digits at a time.
    #[inline(always)]
    pub fn decimal(&mut self, n: u64) {
        const E8: u64 = 100_000_000;
        if n < 10 {
            // One digit, as a node ID or a sequence number most often is: one store, without
            // counting digits or splitting 8 of them (~30 instructions).
            self.bytes[self.len] = b'0' + n as u8;
            self.len += 1;
            return;
        }
        let eight = |n: u64| dec8(n as u32) | ASCII_ZEROS;
        // The first digits of a number above 0: its leading zeros are the zero bytes at the
        // bottom of its 8 (a `tzcnt` where counting its digits cost ~20 instructions).
        let lead = |text: &mut Self, n: u64| {
            let digits = dec8(n as u32);
            text.put_last(digits | ASCII_ZEROS, 8 - (digits.trailing_zeros() / 8) as usize);
        };
        if n < 10_000 {
            // Up to 4 digits, as a millisecond of a short run or a sequence number is: split
            // in 2 and 1 only (`dec4`), where 8 digits' splits cost an issued ID's text ~6
            // instructions more.
            let digits = dec4(n as u32) << 32;
            self.put_last(digits | ASCII_ZEROS, 8 - (digits.trailing_zeros() / 8) as usize);
        } else if n < E8 {
            lead(self, n);
        } else {
            let high = n / E8;
            if high < E8 {
                lead(self, high);
            } else {
                lead(self, high / E8);
                self.put_last(eight(high % E8), 8);
            }
            self.put_last(eight(n % E8), 8);
        }
    }

    /// Appends the last `count` (1 to 8) of the 8 characters in `chars` (the first in its
    /// lowest byte, so that the leading ones shift out): all 8 are stored, one store where a
    /// copy of a length known only at run time would be a `memcpy` call, and the text ends
    /// after the `count`th — what follows is written over, or past the text's end.
    #[inline(always)]
    fn put_last(&mut self, chars: u64, count: usize) {
        let shifted = chars >> (8 * (8 - count));
        self.bytes[self.len..self.len + 8].copy_from_slice(&shifted.to_le_bytes());
        self.len += count;
    }

    /// Appends the text to `out`. Checked in whole 16-byte blocks (zeros, or digits written
    /// over, past its end): `str::from_utf8`'s fast path, which checks a shorter tail byte by
    /// byte.
    #[inline(always)]
    pub fn push_to(&self, out: &mut String) {
        let blocks = &self.bytes[..self.len.next_multiple_of(16)];
        let text = std::str::from_utf8(blocks).expect("spelled from str and digits");
        out.push_str(&text[..self.len]);
    }
}

/// The 8 hexadecimal digits of `n`, leading zeros included, the first in the lowest byte: each
/// nibble spread to a byte of its own, all 8 turned to ASCII at once (`'0' + d`, and 39 more
/// for a letter), where one at a time cost a shift, a mask, a table load and a store each.
#[inline(always)]
fn hex8(n: u32) -> u64 {
    let mut x = u64::from(n);
    x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // 1 in each byte whose nibble is 10 or more: adding 6 carries it into bit 4.
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    // The least significant nibble is in the lowest byte: the first digit goes there.
    (x + ASCII_ZEROS + letters * 39).swap_bytes()
}

/// `'0'` in each byte: a word of digits (0 to 9) turned into their characters.
const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// The 4 decimal digits of `n` (below 10^4), 0 to 9 each, leading zeros included, the first
/// in the lowest byte: [`dec8`]'s last two splits.
#[inline(always)]
fn dec4(n: u32) -> u64 {
    debug_assert!(n < 10_000);
    let pairs = u64::from(n / 100) | (u64::from(n % 100) << 16);
    let tens = ((pairs * 103) >> 10) & 0x0000_000f_000f;
    tens | ((pairs - tens * 10) << 8)
}

/// The 8 decimal digits of `n` (below 10^8), 0 to 9 each (not yet characters), leading zeros
/// included, the first in the lowest byte: split in halves of 4 digits, then 2, then 1, each split done in all lanes at once by
/// a multiplication and a shift (exact for these ranges: `v * 10_486 >> 20` is `v / 100` below
/// 43,699, `v * 103 >> 10` is `v / 10` below 179), where `itoa` or one digit at a time cost
/// a multiplication per pair or digit.
#[inline(always)]
fn dec8(n: u32) -> u64 {
    debug_assert!(n < 100_000_000);
    // Two 32-bit lanes of 4 digits, the first in the lower; then four 16-bit lanes of 2
    // digits; then eight bytes of 1.
    let quads = u64::from(n / 10_000) | (u64::from(n % 10_000) << 32);
    let hundreds = ((quads * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let pairs = hundreds | ((quads - hundreds * 100) << 16);
    let tens = ((pairs * 103) >> 10) & 0x000f_000f_000f_000f;
    tens | ((pairs - tens * 10) << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length of number, at and around each power of ten and of sixteen.
    #[test]
    fn numbers_are_spelled_as_the_formatter_spells_them() {
        let mut samples = vec![0, u64::MAX];
        for k in 1..20 {
            let p = 10u64.pow(k);
            samples.extend([p - 1, p, p + 1, p / 2 + 7]);
        }
        for k in 1..16 {
            samples.extend([(1u64 << (4 * k)) - 1, 1 << (4 * k), 0xabc << (4 * k - 4)]);
        }
        for n in samples {
            let mut text = Spelled::<48>::default();
            text.str("n ");
            text.decimal(n);
            text.str(" 0x");
            text.hex(n);
            let mut line = String::new();
            text.push_to(&mut line);
            assert_eq!(line, format!("n {n} 0x{n:x}"));
        }
    }
}
