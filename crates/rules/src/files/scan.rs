//! A file list read by a scanner of its own, for the shape sandboxes answer with: objects whose keys
//! and string values hold no escape. It gives exactly what [`FileRef`]'s `Deserialize` gives for such
//! a list, without serde's per-value machinery (a sandbox's answer echoes every file of the partition
//! on every call, so this is the hot part of reading one). Anything else — an escape, a value of a
//! type the field does not take, a malformed number — makes it give up (`None`), and the caller reads
//! the list the checked way, which decides and names every refusal.

use super::recall::{KnownFiles, ReadMemo, Recall};
use super::{Extra, Field, FileRef, ID, KIND, NAME, RESOURCE_ID, STORAGE_SESSION_ID, VERSION};
use crate::json::lanes::{self, special_lanes};
use crate::json::{RawJson, RawText, Str};

/// Reads `text`, a JSON array, as file refs; `None` when it is not of the plain shape this reader takes
/// (or not JSON: whatever it reads is valid JSON, its strings and structure checked here, every other
/// value by serde).
pub fn read_plain_files(text: &str) -> Option<Vec<FileRef<'_>>> {
    let mut s = Scan {
        text,
        at: 0,
        checked: false,
    };
    let files = s.files()?;
    s.end()?;
    Some(files)
}

/// Reads `text` as one JSON object whose keys hold no escape, handing each key to `member` with the
/// scanner at its value, which `member` must read; `None` when the text is not such an object, or
/// `member` gave up.
pub fn read_plain_object<'a>(
    text: &'a str,
    member: impl FnMut(&'a str, &mut Scan<'a>) -> Option<()>,
) -> Option<()> {
    read_whole(text, |s| s.object(member))
}

/// `read` over all of `text` (nothing but whitespace after what it read).
pub fn read_whole<'a, T>(
    text: &'a str,
    read: impl FnOnce(&mut Scan<'a>) -> Option<T>,
) -> Option<T> {
    let mut s = Scan {
        text,
        at: 0,
        checked: false,
    };
    let got = read(&mut s)?;
    s.end()?;
    Some(got)
}

/// Reads `raw` as one JSON array, handing the scanner to `element` at each element, which `element`
/// must read; `None` when it is not an array or `element` gave up. The text was checked when it was
/// captured, so [`Scan::skip_checked`] may pass over its values.
pub fn read_checked_array<'a>(
    raw: &'a RawJson,
    element: impl FnMut(&mut Scan<'a>) -> Option<()>,
) -> Option<()> {
    let mut s = Scan {
        text: raw.get(),
        at: 0,
        checked: true,
    };
    s.array(element)?;
    s.end()
}

/// A reader of plain JSON text (see [`read_plain_files`], [`read_plain_object`]).
pub struct Scan<'a> {
    text: &'a str,
    at: usize,
    /// The text is known to be valid JSON (captured and checked before): values passed over are not
    /// checked again.
    checked: bool,
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
        self.files_recalling(&KnownFiles::NONE, None)
    }

    /// [`Scan::files`] read against the files `memo` knows (when given), which then knows these.
    pub fn files_remembered(&mut self, memo: Option<&ReadMemo>) -> Option<Vec<FileRef<'a>>> {
        match memo {
            Some(memo) => memo.read_list(|known, recall| self.files_recalling(known, Some(recall))),
            None => self.files(),
        }
    }

    /// [`Scan::files`], taking a file written exactly as the known file at its place was (see
    /// [`super::recall`]) without reading it; `recall`, when given, gets where each file came from.
    pub fn files_recalling(
        &mut self,
        known: &KnownFiles,
        mut recall: Option<&mut Vec<Recall<'a>>>,
    ) -> Option<Vec<FileRef<'a>>> {
        self.expect(b'[')?;
        let mut files = Vec::new();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(files);
        }
        let first = self.at;
        loop {
            let at = files.len();
            let start = self.at;
            let same = known.get(at).filter(|(text, _)| {
                self.bytes()
                    .get(start..)
                    .is_some_and(|b| lanes::starts_with(b, text.as_bytes()))
            });
            let (file, read) = match same {
                Some((text, file)) => {
                    self.at += text.len();
                    (file.clone(), Recall::Known(at))
                }
                None => {
                    let file = self.file()?;
                    (file, Recall::Read(self.text.get(start..self.at)?))
                }
            };
            if at == 0 {
                // An answer's files are much alike (echoes of the partition): room for as many more
                // as the rest of the text would hold at the first one's length, rather than a vector
                // grown (and copied) seven times on the way to hundreds. Bounded, as the rest may be
                // a long output.
                let rest = self.text.len().saturating_sub(self.at);
                // Rounded up: a fold's few files (an echo, then shorter new outputs) otherwise fell
                // one short and grew the vector for the last one.
                let foreseen = 1 + rest
                    .div_ceil(self.at.saturating_sub(first).max(1))
                    .min(MAX_FORESEEN_FILES);
                files.reserve(foreseen);
                if let Some(r) = recall.as_deref_mut() {
                    r.reserve(foreseen);
                }
            }
            files.push(file);
            if let Some(r) = recall.as_deref_mut() {
                r.push(read);
            }
            match self.next_byte()? {
                b',' => continue,
                b']' => {
                    // The rest of the text was not all this list (a list read inside a larger text,
                    // such as one result's artifact among many): give back the room foreseen.
                    if files.capacity() > 2 * files.len() + 8 {
                        files.shrink_to_fit();
                    }
                    return Some(files);
                }
                _ => return None,
            }
        }
    }

    /// A JSON object whose keys hold no escape, `member` called at each value (which it must read).
    pub fn object(
        &mut self,
        mut member: impl FnMut(&'a str, &mut Scan<'a>) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.plain_string()?;
            self.expect(b':')?;
            member(key, self)?;
            match self.next_byte()? {
                b',' => continue,
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// A JSON array, `element` called at each element (which it must read).
    pub fn array(&mut self, mut element: impl FnMut(&mut Scan<'a>) -> Option<()>) -> Option<()> {
        self.expect(b'[')?;
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            element(self)?;
            match self.next_byte()? {
                b',' => continue,
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// The next value's text, passed over: checked by serde unless the whole text was checked when
    /// it was captured (see [`read_checked_array`]).
    pub fn skip(&mut self) -> Option<&'a str> {
        if self.checked {
            self.value()
        } else {
            self.raw_value().map(RawJson::get)
        }
    }

    /// `read` at the next value, or, when it gives up, the value passed over as by [`Scan::skip`];
    /// with the value's text either way.
    pub fn read_or_skip<T>(
        &mut self,
        read: impl FnOnce(&mut Scan<'a>) -> Option<T>,
    ) -> Option<(Option<T>, &'a str)> {
        self.peek()?;
        let start = self.at;
        let got = read(self);
        if got.is_none() {
            self.at = start;
            self.skip()?;
        }
        Some((got, self.text.get(start..self.at)?))
    }

    /// The next value when it is a string without escapes or control characters (`None` for
    /// anything else).
    pub fn plain_str(&mut self) -> Option<&'a str> {
        self.plain_string()
    }

    /// The next value when it is `null` (`Some(None)`) or a string as [`Scan::plain_str`] takes
    /// (`Some(Some(..))`); `None` for anything else.
    pub fn nullable_str(&mut self) -> Option<Option<&'a str>> {
        self.nullable_string()
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
        // Compact JSON (what sandboxes write) has the byte right here: no whitespace to skip.
        if self.bytes().get(self.at) == Some(&c) {
            self.at += 1;
            return Some(());
        }
        (self.next_byte()? == c).then_some(())
    }

    /// A string without escapes or control characters (`None` for anything else).
    fn plain_string(&mut self) -> Option<&'a str> {
        let (start, end) = self.plain_span()?;
        self.text.get(start..end)
    }

    /// Where the body of the next value, a string without escapes or control characters, starts and
    /// ends (`None` for anything else); the scanner moves past its closing quote.
    fn plain_span(&mut self) -> Option<(usize, usize)> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.at + 1;
        let rest = self.bytes().get(start..)?;
        // Eight bytes at a time: the lowest flagged lane of a word is its first byte that stops a
        // plain string (a flag above it may be false, never one below).
        let mut from = 0;
        let len = loop {
            match rest.get(from..from + 8) {
                Some(chunk) => {
                    let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).ok()?);
                    let flags = special_lanes(word);
                    if flags != 0 {
                        break from + (flags.trailing_zeros() / 8) as usize;
                    }
                    from += 8;
                }
                None => {
                    break from
                        + rest
                            .get(from..)?
                            .iter()
                            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?
                }
            }
        };
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        self.at = start + len + 1;
        Some((start, start + len))
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

    /// The next key of a file object: a known one is matched by its bytes where it lies (the keys
    /// of an echo are all known), any other read as a plain string.
    fn key(&mut self) -> Option<Key<'a>> {
        if self.peek()? != b'"' {
            return None;
        }
        let rest = self.bytes().get(self.at + 1..)?;
        let (text, key) = match rest.first()? {
            b'i' if rest.get(1) == Some(&b'd') => (ID, Key::Id),
            b'i' => (INHERITED, Key::Other(INHERITED)),
            b'n' => (NAME, Key::Name),
            b'r' => (RESOURCE_ID, Key::ResourceId),
            b's' => (STORAGE_SESSION_ID, Key::StorageSessionId),
            b'k' => (KIND, Key::Kind),
            b'v' => (VERSION, Key::Version),
            _ => ("", Key::Other("")),
        };
        let n = text.len();
        if n == 0 || rest.get(..n) != Some(text.as_bytes()) || rest.get(n) != Some(&b'"') {
            // Only the candidate of its first bytes could be this key: it is none of the known.
            return self.plain_string().map(Key::Other);
        }
        self.at += n + 2;
        Some(key)
    }

    /// The next value when it is a literal (`true`, `false`, `null`) that [`Scan::value`] would read
    /// whole, read by its bytes; `None` (nothing read) for anything else.
    fn literal_here(&mut self) -> Option<&'static RawJson> {
        let literal = match self.peek()? {
            b't' => RawJson::TRUE,
            b'f' => RawJson::FALSE,
            b'n' => RawJson::NULL,
            _ => return None,
        };
        let end = self.at + literal.get().len();
        let b = self.bytes();
        let whole = matches!(
            b.get(end),
            None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
        );
        if !whole || b.get(self.at..end)? != literal.get().as_bytes() {
            return None;
        }
        self.at = end;
        Some(literal)
    }

    /// Past the closing quote of a string whose opening quote is behind.
    fn skip_string_body(&mut self) -> Option<()> {
        let b = self.bytes();
        loop {
            self.at = lanes::next_quote_or_backslash(b, self.at);
            match *b.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                // An escape: its next byte is never the end.
                _ => self.at += 2,
            }
        }
    }

    /// `null` (`Some(None)`), a string without escapes (`Some(Some(..))`), or anything else (`None`).
    fn nullable_string(&mut self) -> Option<Option<&'a str>> {
        if self.peek()? == b'"' {
            return self.plain_string().map(Some);
        }
        self.literal_here()
            .filter(|l| l.get() == "null")
            .map(|_| None)
    }

    fn file(&mut self) -> Option<FileRef<'a>> {
        self.expect(b'{')?;
        // Each key in a local, the file made once at the end (nothing built to be overwritten).
        let (mut id, mut name) = (None, None);
        let (mut resource_id, mut storage_session_id, mut kind) =
            (Field::Absent, Field::Absent, Field::Absent);
        let mut version = Field::Absent;
        let mut extra = Vec::new();
        if self.peek()? == b'}' {
            return None;
        }
        loop {
            let key = self.key()?;
            self.expect(b':')?;
            let field = |v: Option<&'a str>| match v {
                Some(s) => Field::Set(Str::Borrowed(s)),
                None => Field::Null,
            };
            match key {
                Key::Id => id = Some(self.plain_string()?),
                Key::Name => name = Some(self.plain_string()?),
                Key::ResourceId => resource_id = field(self.nullable_string()?),
                Key::StorageSessionId => storage_session_id = field(self.nullable_string()?),
                Key::Kind => kind = field(self.nullable_string()?),
                Key::Version => {
                    let text = self.value()?;
                    version = match text.as_bytes().first()? {
                        b'n' if text == "null" => Field::Null,
                        b'-' | b'0'..=b'9' if text.parse::<f64>().is_ok_and(f64::is_finite) => {
                            Field::Set(RawText::Borrowed(raw(text)?))
                        }
                        _ => return None,
                    };
                }
                Key::Other(key) => {
                    let value = match self.literal_here() {
                        Some(l) => l,
                        None => {
                            let text = self.value()?;
                            // An escape may hide an unpaired surrogate: the checked reader decides.
                            if text.contains('\\') {
                                return None;
                            }
                            raw(text)?
                        }
                    };
                    let entry = (Str::Borrowed(key), RawText::Borrowed(value));
                    if extra.is_empty() {
                        // Most files carry one extra key (`inherited`): room for just it, allocated
                        // once, rather than a growing vector's first four.
                        extra = vec![entry];
                    } else {
                        extra.push(entry);
                    }
                }
            }
            match self.next_byte()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
        Some(FileRef {
            id: Str::Borrowed(id?),
            name: Str::Borrowed(name?),
            resource_id,
            storage_session_id,
            kind,
            version,
            extra: Extra::List(extra),
        })
    }
}

/// A key of a file object (see [`Scan::key`]).
enum Key<'a> {
    Id,
    Name,
    ResourceId,
    StorageSessionId,
    Kind,
    Version,
    /// Any other key, kept in `extra`.
    Other(&'a str),
}

/// The extra key of every echo.
const INHERITED: &str = "inherited";

/// The most files [`Scan::files`] makes room for ahead of reading them.
const MAX_FORESEEN_FILES: usize = 512;

/// `text` (one JSON value) as a raw value, checked by serde.
fn raw(text: &str) -> Option<&RawJson> {
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

    /// Whatever the scanner reads, it reads as the checked reader does; it gives up only on what it does
    /// not take (an escape, or what the checked reader refuses).
    fn agrees(text: &str) {
        let checked = checked(text);
        match read_plain_files(text) {
            Some(files) => assert_eq!(Some(files), checked, "{text}"),
            None => assert!(
                text.contains('\\') || checked.is_none(),
                "gave up on {text}"
            ),
        }
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
            r#"[{"id":"a","name":"n","x":false,"y":null,"z":true}]"#,
            r#"[{"id":"a","name":"n","x":true ,"y":null
}]"#,
            r#"[{"id":"a","name":"n","kind":true}]"#,
            r#"[{"id":"a","name":"n","kind":false}]"#,
            r#"[{"id":"a","name":"n","kind":null }]"#,
            r#"[{"id":"a","name":"n","kind":nullx}]"#,
            r#"[{"id":"a","name":"n","x":"true"}]"#,
            r#"[{"i":0,"idx":1,"id":"a","name":"n","inherit":2,"inheritedx":3,"nam":4,"names":5,"kinds":6,"k":7,"versio":8,"resource":9,"storage_session_idx":10,"s":11,"r":12,"v":13,"n":14,"":15}]"#,
            r#"[{"id":"a","name":"n","inherited":true,"inherited":false,"ID":"b","Name":"m"}]"#,
        ];
        for text in cases {
            agrees(text);
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
            r#"[{"id":"a","name":"n","version":nul}]"#,
            r#"[{"id":"a","name":"n","version":nope}]"#,
            r#"[{"id":"a","name":"n","x":truex}]"#,
            r#"[{"id":"a","name":"n","x":true1}]"#,
            r#"[{"id":"a","name":"n","x":t}]"#,
            r#"[{"id":"a","name":"n","x":nul}]"#,
            r#"[{"id":"a","name":"n","x":fals}]"#,
            r#"[{"id":"a","name":"n","kind":nul}]"#,
            r#"[{"id":"a","name":"n","x":true"#,
            r#"[{"id":"a","name":"n","x":tr"#,
            r#"[{"id"#,
            r#"[{"i"#,
            r#"[{"id":"a","name":"n","inherited"#,
            r#"[{"id":"a","name":"n","storage_session_id"#,
            r#"[{"id":"a","name":"n","storage_session_i"#,
            r#"[{"id":"a","name":"n","storage_session_id""#,
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

    /// Texts near the plain shape, one byte changed or added at a time: whatever the scanner reads, the
    /// checked reader reads alike.
    #[test]
    fn mutated_texts_read_as_the_checked_reader_reads() {
        let templates = [
            r#"[{"id":"F-1-_________________","name":"dir/data-1.csv","storage_session_id":"S-1-________________","inherited":true},{"id":"a","name":"n","kind":null,"version":12,"x":[1,{"y":"z"}],"f":false}]"#,
            r#"[ {"id" : "abcdefgh" , "name":"ijklmnop", "resource_id":"r","path":"/mnt/data/x"} ]"#,
        ];
        let alphabet: [&str; 16] = [
            "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "t", "n", "1", "é", "\u{1}", "e", "-",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n.max(1)
        };
        for template in templates {
            for _ in 0..4000 {
                let mut text = template.to_owned();
                for _ in 0..1 + next(2) {
                    let mut at = next(text.len() + 1);
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    let piece = alphabet.get(next(alphabet.len())).copied().unwrap_or("");
                    if next(2) == 0 && at < text.len() {
                        let mut end = at + 1;
                        while !text.is_char_boundary(end) {
                            end += 1;
                        }
                        text.replace_range(at..end, piece);
                    } else {
                        text.insert_str(at, piece);
                    }
                }
                if let Some(files) = read_plain_files(&text) {
                    assert_eq!(Some(files), checked(&text), "{text}");
                }
            }
        }
    }

    /// The eight-byte scan against the checked reader: a quote, an escape, a control byte or a
    /// non-ASCII character at every place of the words of a string, in keys and values, and strings
    /// that end the text (no whole word left to read).
    /// A list read inside a larger text keeps no more room than it needs: 10^4 one-file lists in
    /// one text must not each hold room for the hundreds the rest of the text would fit.
    #[test]
    fn a_list_inside_a_larger_text_keeps_only_its_room() {
        let one = r#"{"files":[{"id":"a","name":"n"}]}"#;
        let text = format!("[{}]", vec![one; 10_000].join(","));
        let mut lists = Vec::new();
        read_whole(&text, |s| {
            s.array(|s| s.object(|_, s| s.files().map(|f| lists.push(f))))
        })
        .unwrap();
        assert_eq!(lists.len(), 10_000);
        assert!(lists.iter().all(|f| f.len() == 1 && f.capacity() <= 10));
    }

    #[test]
    fn stops_where_the_checked_reader_does() {
        let stops = [
            "\\\"", "\\n", "\\u0041", "\u{1}", "\u{1f}", "\t", "é", "€", "😀", "\u{7f}", " ",
        ];
        let mut texts = Vec::new();
        for n in 0..20 {
            for stop in stops {
                for at in 0..=n {
                    let mut s = "y".repeat(n);
                    s.insert_str(at, stop);
                    texts.push(format!(r#"[{{"id":"{s}","name":"n"}}]"#));
                    texts.push(format!(r#"[{{"id":"a","name":"n","{s}":1}}]"#));
                    texts.push(format!(r#"[{{"id":"a","{s}":"n","name":"{s}"}}]"#));
                }
            }
            // Cut short: the string (or the text) ends without its quote.
            let s = "z".repeat(n);
            texts.push(format!(r#"[{{"id":"a","name":"{s}"#));
            texts.push(format!(r#"[{{"id":"a","name":"{s}""#));
            texts.push(format!(r#"[{{"id":"a","name":"{s}"}}]"#));
        }
        for text in &texts {
            agrees(text);
        }
        // The same through objects (the answer's top level).
        for n in 0..20 {
            for stop in ["", "\"", "\\n", "\u{1}", "é"] {
                let key = format!("{}{stop}", "k".repeat(n));
                let text = format!(r#"{{"{key}":1}}"#);
                let mut keys = Vec::new();
                let read = read_plain_object(&text, |k, s| {
                    keys.push(k);
                    s.raw_value().map(drop)
                });
                let plain = !stop.contains(['"', '\\', '\u{1}']);
                assert_eq!(read.is_some(), plain, "{text}");
                if plain {
                    assert_eq!(keys, [key.as_str()], "{text}");
                }
            }
        }
    }
}
