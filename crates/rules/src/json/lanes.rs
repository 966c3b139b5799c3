//! JSON text looked at eight bytes at a time, each byte a lane of a `u64`. The WebAssembly module has no
//! vector `memchr` or `memcmp` (its `memcmp` is `compiler_builtins`', a byte at a time), and the texts
//! it reads are mostly string bodies and file objects it has seen before: skipping and comparing a word
//! at a time is what keeps a 200-file text cheap.

/// Eight copies of byte `b`.
pub const fn lanes(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

const HIGH: u64 = lanes(0x80);

/// The high bit of each lane of `v` that is zero: exact up to the first such lane (a borrow can only
/// flag lanes above it).
fn zero_lanes(v: u64) -> u64 {
    v.wrapping_sub(lanes(1)) & !v & HIGH
}

/// The lanes of `x` (little-endian) that hold `"`, `\\` or a control character (below 0x20): the bytes
/// a JSON string cannot hold as they are; exact up to the first.
pub fn special_lanes(x: u64) -> u64 {
    zero_lanes(x ^ lanes(b'"'))
        | zero_lanes(x ^ lanes(b'\\'))
        | (x.wrapping_sub(lanes(0x20)) & !x & HIGH)
}

/// The lanes of `x` that hold `"` or `\\`; exact up to the first.
pub fn quote_or_backslash_lanes(x: u64) -> u64 {
    zero_lanes(x ^ lanes(b'"')) | zero_lanes(x ^ lanes(b'\\'))
}

/// The word of the eight bytes of `bytes` at `at`, if there are eight.
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk = bytes.get(at..at.checked_add(8)?)?;
    <[u8; 8]>::try_from(chunk).ok().map(u64::from_le_bytes)
}

/// The place of the first `"` or `\\` at or after `at` (`bytes.len()` when there is none).
pub fn next_quote_or_backslash(bytes: &[u8], mut at: usize) -> usize {
    while let Some(word) = word_at(bytes, at) {
        let flags = quote_or_backslash_lanes(word);
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        if b == b'"' || b == b'\\' {
            return at;
        }
        at += 1;
    }
    bytes.len()
}

/// Whether `text` starts with `prefix`, compared a word at a time.
pub fn starts_with(text: &[u8], prefix: &[u8]) -> bool {
    let Some(head) = text.get(..prefix.len()) else {
        return false;
    };
    let mut at = 0;
    while let (Some(a), Some(b)) = (word_at(head, at), word_at(prefix, at)) {
        if a != b {
            return false;
        }
        at += 8;
    }
    head.get(at..) == prefix.get(at..)
}

/// Whether `a` and `b` are the same bytes, compared a word at a time (what `==` on strings costs a
/// byte at a time in the module: ids, names and storage ids are compared on every echo).
pub fn equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && starts_with(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_quote_or_backslash_is_found_in_every_lane_and_in_the_tail() {
        for len in 0..40 {
            for at in 0..len {
                for c in [b'"', b'\\'] {
                    let mut text = vec![b'a'; len];
                    if let Some(b) = text.get_mut(at) {
                        *b = c;
                    }
                    assert_eq!(next_quote_or_backslash(&text, 0), at, "{len} {at}");
                    assert_eq!(next_quote_or_backslash(&text, at + 1), len, "{len} {at}");
                }
            }
            assert_eq!(next_quote_or_backslash(&vec![b'x'; len], 0), len);
        }
        // Bytes just above and below the ones looked for, and multi-byte UTF-8, flag nothing.
        let text = "#!]\u{e9}\u{1f600}[]\"".as_bytes();
        assert_eq!(next_quote_or_backslash(text, 0), text.len() - 1);
    }

    #[test]
    fn starts_with_agrees_with_the_slice_method() {
        let text = b"{\"id\":\"abcdefghijklmnop\",\"name\":\"n\"}, more";
        for n in 0..text.len() {
            let prefix = &text[..n];
            assert!(starts_with(text, prefix));
            let mut other = prefix.to_vec();
            if let Some(b) = other.last_mut() {
                *b ^= 1;
                assert!(!starts_with(text, &other), "{n}");
            }
        }
        assert!(!starts_with(b"short", b"shorter"));
        assert!(equal(b"abcdefghij", b"abcdefghij") && equal(b"", b""));
        assert!(!equal(b"abcdefghij", b"abcdefghi") && !equal(b"abcdefghij", b"abcdefghiJ"));
    }

    #[test]
    fn special_lanes_flag_quotes_backslashes_and_controls() {
        for b in 0u8..=255 {
            let word = u64::from_le_bytes([b, b'a', b'a', b'a', b'a', b'a', b'a', b'a']);
            let special = b == b'"' || b == b'\\' || b < 0x20;
            assert_eq!(special_lanes(word) & 0x80 != 0, special, "{b}");
        }
    }
}
