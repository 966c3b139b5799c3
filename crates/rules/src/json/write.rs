//! Writing JSON text by hand where a value's shape is fixed and its writing is hot (a request's body
//! with hundreds of refs): keys are literals, and a string is copied as it is unless it holds a byte
//! JSON must escape, in which case it is escaped as `serde_json` (and `JSON.stringify`) escape it.

/// Appends `s` as a JSON string.
pub fn push_str(out: &mut String, s: &str) {
    // No early exit: a loop over every byte without a branch per byte is the fast one.
    let plain = s
        .bytes()
        .fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
    if plain {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&super::to_text(s));
    }
}

/// Appends `,"key":` (without the comma for the first member of an object, `first`).
pub fn push_key(out: &mut String, key: &str, first: bool) {
    if !first {
        out.push(',');
    }
    push_str(out, key);
    out.push(':');
}

#[cfg(test)]
mod tests {
    use super::*;

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
