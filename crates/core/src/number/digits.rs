//! Runs of ASCII digits read eight bytes at a time (SWAR).

/// The eight bytes at `s[i..]` as a little-endian word, when there are
/// eight.
#[inline(always)]
fn word_at(s: &[u8], i: usize) -> Option<u64> {
    s.get(i..i + 8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
}

/// The value of eight ASCII digits (the first in the lowest byte).
#[inline(always)]
pub(super) fn eight_digits_value(w: u64) -> u64 {
    let w = w.wrapping_sub(0x3030_3030_3030_3030);
    let w = w.wrapping_mul(10).wrapping_add(w >> 8);
    let pairs = 0x0000_00FF_0000_00FF;
    ((w & pairs).wrapping_mul(100 + (1_000_000 << 32)) + ((w >> 16) & pairs).wrapping_mul(1 + (10_000 << 32))) >> 32
}

/// How many of the eight bytes of `w` (the first in the lowest byte) are
/// ASCII digits before the first that is not (SWAR: no loop over bytes).
#[inline(always)]
pub(super) fn leading_digit_count(w: u64) -> usize {
    // A digit becomes 0..=9; adding 0x76 sets bit 7 of any byte above 9
    // (masked to 7 bits first, so that no byte carries into the next).
    let x = w ^ 0x3030_3030_3030_3030;
    let not_digit = (((x & 0x7F7F_7F7F_7F7F_7F7F) + 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080;
    (not_digit.trailing_zeros() / 8) as usize
}

/// The leading digits of `w` (see [`leading_digit_count`]): their value
/// and how many there are.
#[inline(always)]
pub(super) fn leading_digits(w: u64) -> (u64, usize) {
    let n = leading_digit_count(w);
    if n == 0 {
        return (0, 0);
    }
    // The digits moved to the top bytes, ASCII zeros below: the same
    // value as eight digits.
    let shift = 64 - 8 * n as u32;
    let zeros = 0x3030_3030_3030_3030u64.checked_shr(64 - shift).unwrap_or(0);
    (eight_digits_value(w.checked_shl(shift).unwrap_or(0) | zeros), n)
}

const POW10_U64: [u64; 9] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// Where the run of ASCII digits starting at `s[i]` ends: eight bytes at a
/// time while they last.
#[inline(always)]
pub(super) fn digits_end(s: &[u8], mut i: usize) -> usize {
    while let Some(w) = word_at(s, i) {
        let n = leading_digit_count(w);
        i += n;
        if n < 8 {
            return i;
        }
    }
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// Reads the run of ASCII digits at `s[i..]` into `mantissa` (wrapping:
/// past 19 digits the count tells it is not exact). Returns where the run
/// ends and how many digits it had.
#[inline(always)]
pub(super) fn read_digits(s: &[u8], mut i: usize, mantissa: &mut u64) -> (usize, usize) {
    let start = i;
    while let Some(w) = word_at(s, i) {
        let (v, n) = leading_digits(w);
        *mantissa = mantissa.wrapping_mul(POW10_U64[n]).wrapping_add(v);
        i += n;
        if n < 8 {
            return (i, i - start);
        }
    }
    while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
        *mantissa = mantissa.wrapping_mul(10).wrapping_add((d - b'0') as u64);
        i += 1;
    }
    (i, i - start)
}
