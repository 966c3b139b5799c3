//! A file list read by a scanner of its own, for the shape sandboxes answer with: objects whose keys
//! and string values hold no escape. It gives exactly what [`FileRef`]'s `Deserialize` gives for such
//! a list, without serde's per-value machinery (a sandbox's answer echoes every file of the partition
//! on every call, so this is the hot part of reading one). Anything else — an escape, a value of a
//! type the field does not take, a malformed number — makes it give up (`None`), and the caller reads
//! the list the checked way, which decides and names every refusal.

use std::sync::OnceLock;

use super::{Field, FileRef, ID, KIND, NAME, RESOURCE_ID, STORAGE_SESSION_ID, VERSION};
use crate::json::write::special_word;
use crate::json::{RawJson, RawText, Str};

/// Reads `text`, a JSON array, as file refs; `None` when it is not of the plain shape this reader takes
/// (or not JSON: whatever it reads is valid JSON, its strings and structure checked here, every other
/// value by serde).
pub fn read_plain_files(text: &str) -> Option<Vec<FileRef<'_>>> {
    let mut s = Scan { text, at: 0 };
    let files = s.files()?;
    s.end()?;
    Some(files)
}

/// Reads `text` as one JSON object whose keys hold no escape, handing each key to `member` with the
/// scanner at its value, which `member` must read; `None` when the text is not such an object, or
/// `member` gave up.
pub fn read_plain_object<'a>(
    text: &'a str,
    mut member: impl FnMut(&'a str, &mut Scan<'a>) -> Option<()>,
) -> Option<()> {
    let mut s = Scan { text, at: 0 };
    s.expect(b'{')?;
    if s.peek()? == b'}' {
        s.at += 1;
        return s.end();
    }
    loop {
        let key = s.plain_string()?;
        s.expect(b':')?;
        member(key, &mut s)?;
        match s.next_byte()? {
            b',' => continue,
            b'}' => return s.end(),
            _ => return None,
        }
    }
}

/// A reader of plain JSON text (see [`read_plain_files`], [`read_plain_object`]).
pub struct Scan<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scan<'a> {
    /// Only whitespace left.
    fn end(&mut self) -> Option<()> {
        match self.peek() {
            None => Some(()),
            Some(_) => None,
        }
    }

    /// A JSON array of plain file objects.
    pub fn files(&mut self) -> Option<Vec<FileRef<'a>>> {
        self.expect(b'[')?;
        let mut files = Vec::new();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(files);
        }
        loop {
            files.push(self.file()?);
            match self.next_byte()? {
                b',' => continue,
                b']' => return Some(files),
                _ => return None,
            }
        }
    }

    /// The next value as a raw value (checked by serde).
    pub fn raw_value(&mut self) -> Option<&'a RawJson> {
        let text = self.value()?;
        raw(text)
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte that is not whitespace, not consumed.
    pub fn peek(&mut self) -> Option<u8> {
        let b = self.bytes();
        while let Some(c) = b.get(self.at) {
            if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(*c);
            }
            self.at += 1;
        }
        None
    }

    fn next_byte(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next_byte()? == c).then_some(())
    }

    /// A string without escapes or control characters (`None` for anything else).
    fn plain_string(&mut self) -> Option<&'a str> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.at + 1;
        let rest = self.bytes().get(start..)?;
        // Eight bytes at a time up to the chunk that holds the closing quote (or a byte that stops it).
        let mut from = 0;
        while let Some(chunk) = rest.get(from..from + 8) {
            let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).ok()?);
            if special_word(word) {
                break;
            }
            from += 8;
        }
        let len = from
            + rest
                .get(from..)?
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        self.at = start + len + 1;
        self.text.get(start..start + len)
    }

    /// The text of the next value (of any type, escapes included), skipped.
    fn value(&mut self) -> Option<&'a str> {
        let start = self.at;
        let b = self.bytes();
        match self.peek()? {
            b'"' => {
                self.at += 1;
                self.skip_string_body()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *b.get(self.at)? {
                        b'"' => {
                            self.at += 1;
                            self.skip_string_body()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                while let Some(c) = b.get(self.at) {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        break;
                    }
                    self.at += 1;
                }
            }
        }
        self.text.get(start..self.at).map(str::trim_start)
    }

    /// Past the closing quote of a string whose opening quote is behind.
    fn skip_string_body(&mut self) -> Option<()> {
        let b = self.bytes();
        loop {
            match *b.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// `null` (`Some(None)`), a string without escapes (`Some(Some(..))`), or anything else (`None`).
    fn nullable_string(&mut self) -> Option<Option<&'a str>> {
        if self.peek()? == b'"' {
            return self.plain_string().map(Some);
        }
        (self.value()? == "null").then_some(None)
    }

    fn file(&mut self) -> Option<FileRef<'a>> {
        self.expect(b'{')?;
        let (mut id, mut name) = (None, None);
        let mut file = FileRef::new("", "");
        if self.peek()? == b'}' {
            return None;
        }
        loop {
            let key = self.plain_string()?;
            self.expect(b':')?;
            let field = |v: Option<&'a str>| match v {
                Some(s) => Field::Set(Str::Borrowed(s)),
                None => Field::Null,
            };
            match key {
                ID => id = Some(self.plain_string()?),
                NAME => name = Some(self.plain_string()?),
                RESOURCE_ID => file.resource_id = field(self.nullable_string()?),
                STORAGE_SESSION_ID => file.storage_session_id = field(self.nullable_string()?),
                KIND => file.kind = field(self.nullable_string()?),
                VERSION => {
                    let text = self.value()?;
                    file.version = match text.as_bytes().first()? {
                        b'n' => Field::Null,
                        b'-' | b'0'..=b'9' if text.parse::<f64>().is_ok_and(f64::is_finite) => {
                            Field::Set(RawText::Borrowed(raw(text)?))
                        }
                        _ => return None,
                    };
                }
                _ => {
                    let text = self.value()?;
                    // An escape may hide an unpaired surrogate: the checked reader decides.
                    if text.contains('\\') {
                        return None;
                    }
                    file.extra
                        .push((Str::Borrowed(key), RawText::Borrowed(raw(text)?)));
                }
            }
            match self.next_byte()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
        file.id = Str::Borrowed(id?);
        file.name = Str::Borrowed(name?);
        Some(file)
    }
}

/// `text` (one JSON value) as a raw value: the literals (`inherited: true` is on every echo) as raw
/// values made once, anything else borrowing `text`.
fn raw(text: &str) -> Option<&RawJson> {
    static LITERALS: OnceLock<Option<[Box<RawJson>; 3]>> = OnceLock::new();
    let literals = LITERALS.get_or_init(|| {
        let make = |t: &str| RawJson::from_string(t.to_owned()).ok();
        Some([make("true")?, make("false")?, make("null")?])
    });
    if let Some(literal) = literals.iter().flatten().find(|l| l.get() == text) {
        return Some(literal);
    }
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    /// What the checked reader gives (`None`: it refuses).
    fn checked(text: &str) -> Option<Vec<FileRef<'_>>> {
        json::decode(text, "files").ok()
    }

    #[test]
    fn reads_what_the_checked_reader_reads_or_gives_up() {
        let cases = [
            r#"[]"#,
            r#" [ { "id" : "a" , "name" : "n" } ] "#,
            r#"[{"id":"a","name":"n","storage_session_id":"s","kind":"skill","version":3,"resource_id":"r"}]"#,
            r#"[{"id":"a","name":"n","kind":null,"version":null,"resource_id":null,"storage_session_id":null}]"#,
            r#"[{"id":"a","name":"n","inherited":true,"path":"/mnt/data/n","meta":{"a":[1,"]}"]},"n":-1.5e3}]"#,
            r#"[{"id":"a","name":"n","id":"b","x":1,"x":2}]"#,
            r#"[{"id":"a","name":"n"},{"id":"b","name":"m","session_id":"e"}]"#,
            r#"[{"id":"a","name":"n","version":1e400}]"#,
            r#"[{"id":"a","name":"n","version":"3"}]"#,
            r#"[{"id":"a","name":"n","kind":5}]"#,
            r#"[{"id":"a"}]"#,
            r#"[{"name":"n"}]"#,
            r#"[{}]"#,
            r#"[5]"#,
            r#"[{"id":"a\u00e9","name":"n"}]"#,
            r#"[{"id":"a","name":"n","x":"\ud800"}]"#,
            r#"[{"id":"a","na\u006de":"n"}]"#,
            r#"[{"id":"a","name":"n","extra":"q\"uote"}]"#,
        ];
        for text in cases {
            let checked = checked(text);
            match read_plain_files(text) {
                // Whatever it reads, it reads as the checked reader does.
                Some(files) => assert_eq!(Some(files), checked, "{text}"),
                // It gives up only on what it does not take; the plain cases it must take.
                None => assert!(
                    text.contains('\\') || checked.is_none(),
                    "gave up on {text}"
                ),
            }
        }
        assert!(read_plain_files(r#"[{"id":"a","name":"n","inherited":true}]"#).is_some());
        // Not JSON: never read.
        for text in [
            r#"[{"id":"a","name":"n","x":tru}]"#,
            r#"[{"id":"a","name":"n"}"#,
            r#"[{"id":"a","name":"n"},]"#,
            r#"[{"id":"a","name":"n",}]"#,
            r#"[{"id":"a","name":"n"}] x"#,
            "[{\"id\":\"a\u{1}\",\"name\":\"n\"}]",
            r#"[{"id":"a","name":"n","v":01}]"#,
            r#"[{"id":"a","name":"n","version":1.}]"#,
            r#"[{"id":"a" "name":"n"}]"#,
        ] {
            assert_eq!(read_plain_files(text), None, "{text}");
        }
        // Long strings: the eight-byte scan finds the quote in any lane.
        for n in 0..40 {
            let id = "x".repeat(n);
            let text = format!(r#"[{{"id":"{id}","name":"n"}}]"#);
            assert_eq!(
                read_plain_files(&text).map(|f| f[0].id.len()),
                Some(n),
                "{n}"
            );
        }
    }
}
