//! Writing JSON text by hand where a value's shape is fixed and its writing is hot (a request's body
//! with hundreds of refs): keys are literals, and a string is copied as it is unless it holds a byte
//! JSON must escape, in which case it is escaped as `serde_json` (and `JSON.stringify`) escape it.

use super::lanes::special_lanes;

/// Whether any of the eight bytes of `x` is `"`, `\\` or a control character (below 0x20): the bytes a
/// JSON string cannot hold as they are.
pub fn special_word(x: u64) -> bool {
    special_lanes(x) != 0
}

/// Whether `s` holds a byte JSON must escape (`"`, `\\`, a control character), eight bytes at a time.
pub fn needs_escape(s: &str) -> bool {
    let special = special_word;
    let mut chunks = s.as_bytes().chunks_exact(8);
    for chunk in &mut chunks {
        if let Ok(c) = <[u8; 8]>::try_from(chunk) {
            if special(u64::from_le_bytes(c)) {
                return true;
            }
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Appends `s` as a JSON string.
pub fn push_str(out: &mut String, s: &str) {
    if needs_escape(s) {
        push_json(out, s);
    } else {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

/// Appends `n` in decimal.
pub fn push_u64(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    for &d in digits.get(at..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// Appends `n` in decimal.
pub fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Appends `text` (JSON text, a literal) and `value` (a string known to need no escape) as they are.
/// Not inlined: one call where each ref's fields are written is smaller than two copies.
#[inline(never)]
pub fn push_raw(out: &mut String, text: &str, value: &str) {
    out.push_str(text);
    out.push_str(value);
}

/// Appends `,"key":` (without the comma for the first member of an object, `first`). `key` is one of
/// the crate's own member names (a literal: nothing in it to escape), copied as it is.
pub fn push_key(out: &mut String, key: &'static str, first: bool) {
    out.reserve(key.len() + 4);
    if !first {
        out.push(',');
    }
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
}

/// Appends `value` as serde writes it. (Through [`super::to_text`]: one writer type for serde, whose
/// code every serialised type would otherwise carry twice in the module.)
pub fn push_json<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    out.push_str(&super::to_text(value));
}

/// Adds member `key` with `value` (JSON text) to `object`, the JSON text of an object written by serde or
/// by hand (it ends in `}`): how an answer gets a hand-written member after its serde-written ones.
pub fn append_member(object: &mut String, key: &str, value: &str) {
    if object.ends_with('}') {
        object.pop();
        if !object.ends_with('{') {
            object.push(',');
        }
        push_str(object, key);
        object.push(':');
        object.push_str(value);
        object.push('}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_appended_to_written_objects() {
        let mut o = String::from("{}");
        append_member(&mut o, "a", "1");
        append_member(&mut o, "b", "\"x\"");
        assert_eq!(o, r#"{"a":1,"b":"x"}"#);
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0i64, 7, 10, 99, 100, -1, -10, i64::MAX, i64::MIN, 1 << 53] {
            let mut out = String::new();
            push_i64(&mut out, n);
            assert_eq!(out, n.to_string());
        }
        let mut out = String::new();
        push_u64(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string());
    }

    #[test]
    fn escapes_are_found_in_any_lane() {
        for n in 0..24 {
            for c in ['"', '\\', '\n', '\u{1f}'] {
                let mut s = "a".repeat(n);
                assert!(!needs_escape(&s));
                s.push(c);
                s.push_str("bcdefghij");
                assert!(needs_escape(&s), "{s:?}");
            }
        }
        assert!(!needs_escape("é€😀 ~\u{7f}"));
    }

    #[test]
    fn values_are_appended_as_serde_writes_them() {
        let value = serde_json::json!({
            "a": [1, 2.5, -0.0, 1e300, null, true],
            "é\"q": { "s": "tab\t\u{1}😀</x>", "n": {} },
            "": "",
        });
        let mut out = String::from("x:");
        push_json(&mut out, &value);
        assert_eq!(out, format!("x:{}", serde_json::to_string(&value).unwrap()));
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for s in [
            "",
            "a.py",
            "dir/x y.csv",
            "q\"uote",
            "back\\slash",
            "tab\tnl\ncr\r",
            "\u{1}\u{1f}",
            "é€😀",
            "</script>",
        ] {
            let mut out = String::new();
            push_str(&mut out, s);
            assert_eq!(out, serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }
}
