//! A strict JSON parser with `JSON.parse` semantics.
//!
//! The SDK parses string-typed tool arguments with `JSON.parse`; the gate does the same here so that an
//! argument string is accepted or rejected exactly as upstream does. Differences, both refusals rather
//! than guesses: an escaped unpaired surrogate (`"\ud800"`) is refused with
//! [`ErrorCode::LoneSurrogate`], and nesting deeper than [`MAX_DEPTH`] is refused with
//! [`ErrorCode::InvalidJson`] instead of exhausting the stack.

use super::error::{ErrorCode, GateError, GateResult, Path};
use super::value::{Object, Value};

/// The deepest nesting of arrays and objects accepted, here and at the JavaScript boundary.
pub const MAX_DEPTH: usize = 256;

/// Parses `text` as one JSON value; `path` names the input in errors, which also name the member or
/// item where the text went wrong (`args.files[2].name`).
pub fn parse(text: &str, path: &Path<'_>) -> GateResult<Value> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        text,
        at: 0,
        path,
        trail: Vec::new(),
    };
    p.skip_ws();
    let v = p.value(0)?;
    p.skip_ws();
    if p.at != p.bytes.len() {
        return Err(p.fail("unexpected text after the JSON value"));
    }
    Ok(v)
}

/// Where the parser is below the root: a member (its key's byte range in the text) or an item.
#[derive(Clone, Copy)]
enum Step {
    Key(usize, usize),
    Item(usize),
}

struct Parser<'t, 'p> {
    bytes: &'t [u8],
    text: &'t str,
    at: usize,
    path: &'p Path<'p>,
    // Offsets only: the path text is built when an error needs it, never on the way.
    trail: Vec<Step>,
}

impl Parser<'_, '_> {
    fn error(&self, code: ErrorCode, message: String) -> GateError {
        let mut path = self.path.render();
        for step in &self.trail {
            match *step {
                Step::Key(a, b) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(self.text.get(a..b).unwrap_or("?"));
                }
                Step::Item(i) => {
                    path.push('[');
                    path.push_str(&i.to_string());
                    path.push(']');
                }
            }
        }
        GateError {
            code,
            path,
            message,
        }
    }

    fn fail(&self, what: &str) -> GateError {
        self.error(
            ErrorCode::InvalidJson,
            format!("invalid JSON at offset {}: {what}", self.at),
        )
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> GateResult<Value> {
        let end = self.at + word.len();
        if self.bytes.get(self.at..end) == Some(word.as_bytes()) {
            self.at = end;
            Ok(v)
        } else {
            Err(self.fail("unexpected character"))
        }
    }

    fn value(&mut self, depth: usize) -> GateResult<Value> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.fail("unexpected character")),
            None => Err(self.fail("unexpected end of input")),
        }
    }

    fn object(&mut self, depth: usize) -> GateResult<Value> {
        if depth > MAX_DEPTH {
            return Err(self.fail("nested too deeply"));
        }
        self.at += 1;
        let mut obj = Object::new();
        self.skip_ws();
        if self.eat(b'}') {
            return Ok(Value::Object(obj));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.fail("expected a string key"));
            }
            let key_start = self.at + 1;
            let key = self.string()?;
            let key_end = self.at.saturating_sub(1).max(key_start);
            self.skip_ws();
            if !self.eat(b':') {
                return Err(self.fail("expected ':'"));
            }
            self.skip_ws();
            self.trail.push(Step::Key(key_start, key_end));
            let v = self.value(depth)?;
            self.trail.pop();
            obj.insert(key, v);
            self.skip_ws();
            if self.eat(b',') {
                continue;
            }
            if self.eat(b'}') {
                return Ok(Value::Object(obj));
            }
            return Err(self.fail("expected ',' or '}'"));
        }
    }

    fn array(&mut self, depth: usize) -> GateResult<Value> {
        if depth > MAX_DEPTH {
            return Err(self.fail("nested too deeply"));
        }
        self.at += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.eat(b']') {
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            self.trail.push(Step::Item(items.len()));
            items.push(self.value(depth)?);
            self.trail.pop();
            self.skip_ws();
            if self.eat(b',') {
                continue;
            }
            if self.eat(b']') {
                return Ok(Value::Array(items));
            }
            return Err(self.fail("expected ',' or ']'"));
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> GateResult<Value> {
        let start = self.at;
        self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.fail("expected a digit")),
        }
        if self.eat(b'.') && self.digits() == 0 {
            return Err(self.fail("expected a digit after '.'"));
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if self.digits() == 0 {
                return Err(self.fail("expected an exponent digit"));
            }
        }
        let lexeme = self.text.get(start..self.at).unwrap_or("");
        lexeme
            .parse::<f64>()
            .map(Value::Number)
            .map_err(|_| self.fail("malformed number"))
    }

    fn hex4(&mut self) -> GateResult<u32> {
        let mut n = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.fail("expected four hex digits")),
            };
            n = n * 16 + u32::from(d);
            self.at += 1;
        }
        Ok(n)
    }

    fn lone_surrogate(&self) -> GateError {
        self.error(
            ErrorCode::LoneSurrogate,
            format!(
                "JSON string escapes an unpaired UTF-16 surrogate near offset {}",
                self.at
            ),
        )
    }

    fn string(&mut self) -> GateResult<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let run_start = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            out.push_str(self.text.get(run_start..self.at).unwrap_or(""));
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let esc = self
                        .peek()
                        .ok_or_else(|| self.fail("unterminated escape"))?;
                    self.at += 1;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if !(self.eat(b'\\') && self.eat(b'u')) {
                                    return Err(self.lone_surrogate());
                                }
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.lone_surrogate());
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.lone_surrogate());
                            } else {
                                hi
                            };
                            out.push(char::from_u32(code).ok_or_else(|| self.lone_surrogate())?);
                        }
                        _ => return Err(self.fail("unknown escape")),
                    }
                }
                Some(_) => return Err(self.fail("control character in string")),
                None => return Err(self.fail("unterminated string")),
            }
        }
    }
}

/// The largest magnitude up to which every integer is a double, so its digits are also the shortest
/// text JavaScript prints for it.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// Writes `v` as JSON text that `JSON.parse` reads back to the same value. Integral numbers up to 2^53
/// are printed here (`-0` as `-0`, which `JSON.parse` keeps), infinities as `±1e999`; every other
/// number is printed by `number`, so that the library never links float formatting: the wasm boundary
/// asks JavaScript's own `String(x)`.
pub fn write(v: &Value, out: &mut String, number: &dyn Fn(f64, &mut String)) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(*n, out, number),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out, number);
            }
            out.push(']');
        }
        Value::Object(o) => write_object(o, out, number),
    }
}

/// [`write`] for an object.
pub fn write_object(o: &Object, out: &mut String, number: &dyn Fn(f64, &mut String)) {
    out.push('{');
    for (i, (k, item)) in o.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(k, out);
        out.push(':');
        write(item, out, number);
    }
    out.push('}');
}

fn write_number(n: f64, out: &mut String, number: &dyn Fn(f64, &mut String)) {
    if n.is_nan() {
        out.push_str("null");
    } else if n.is_infinite() {
        out.push_str(if n > 0.0 { "1e999" } else { "-1e999" });
    } else if n.fract() == 0.0 && n.abs() <= EXACT_INTEGERS {
        if n == 0.0 && n.is_sign_negative() {
            out.push('-');
        }
        // Exact: |n| <= 2^53 fits an i64 without rounding.
        out.push_str(&(n as i64).to_string());
    } else {
        number(n, out);
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    // Copy runs of characters that need no escape in one go.
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0..=0x1f => Some(""),
            _ => None,
        };
        let Some(escape) = escape else { continue };
        out.push_str(s.get(run..i).unwrap_or(""));
        run = i + 1;
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(*HEX.get(usize::from(b >> 4)).unwrap_or(&b'0')));
            out.push(char::from(*HEX.get(usize::from(b & 15)).unwrap_or(&b'0')));
        } else {
            out.push_str(escape);
        }
    }
    out.push_str(s.get(run..).unwrap_or(""));
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> GateResult<Value> {
        parse(s, &Path::root("args"))
    }

    #[test]
    fn parses_nested_values_in_order() {
        let v = p(r#" {"b": [1, -2.5e1, true, null], "a": "x\u00e9\ud83d\ude00"} "#);
        let Ok(Value::Object(o)) = v else {
            unreachable!("expected an object, got {v:?}")
        };
        let keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(o.get("a"), Some(&Value::String("xé😀".into())));
        assert_eq!(
            o.get("b"),
            Some(&Value::Array(vec![
                Value::Number(1.0),
                Value::Number(-25.0),
                Value::Bool(true),
                Value::Null
            ]))
        );
    }

    #[test]
    fn duplicate_key_keeps_first_position_last_value() {
        let Ok(Value::Object(o)) = p(r#"{"a":1,"b":2,"a":3}"#) else {
            unreachable!()
        };
        let got: Vec<(&str, &Value)> = o.iter().collect();
        assert_eq!(
            got,
            [("a", &Value::Number(3.0)), ("b", &Value::Number(2.0))]
        );
    }

    #[test]
    fn refuses_what_json_parse_refuses() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            ".5",
            "+1",
            "'x'",
            "\"a\nb\"",
            "NaN",
            "[1] x",
            "{a:1}",
            "\"\\x\"",
            "tru",
        ] {
            let e = p(bad).err().map(|e| e.code);
            assert_eq!(e, Some(ErrorCode::InvalidJson), "{bad:?} should be refused");
        }
    }

    #[test]
    fn refuses_escaped_lone_surrogates() {
        for bad in [r#""\ud800""#, r#""\udc00x""#, r#""\ud800\u0041""#] {
            assert_eq!(p(bad).err().map(|e| e.code), Some(ErrorCode::LoneSurrogate));
        }
    }

    #[test]
    fn big_exponents_overflow_like_number() {
        assert_eq!(p("1e400").ok(), Some(Value::Number(f64::INFINITY)));
        assert_eq!(p("-0").ok(), Some(Value::Number(-0.0)));
    }

    fn written(v: &Value) -> String {
        let mut out = String::new();
        write(v, &mut out, &|n, o| o.push_str(&format!("<{n:e}>")));
        out
    }

    #[test]
    fn writes_what_json_parse_reads_back() {
        let text = r#"{"a":[1,-0,true,null,"q\"\\\n\u0001é😀"],"b":{"c":9007199254740992,"d":2.5,"e":1e300}}"#;
        let v = p(text).unwrap();
        let out = written(&v);
        assert_eq!(
            out,
            r#"{"a":[1,-0,true,null,"q\"\\\n\u0001é😀"],"b":{"c":9007199254740992,"d":<2.5e0>,"e":<1e300>}}"#
        );
        let back = written(&Value::Number(f64::NEG_INFINITY));
        assert_eq!(back, "-1e999");
        assert_eq!(
            p(&written(&p(r#"["\u001f",-0]"#).unwrap())).unwrap(),
            p(r#"["\u001f",-0]"#).unwrap()
        );
    }

    #[test]
    fn errors_name_the_member_that_went_wrong() {
        let e = p(r#"{"files":[{"id":"a"},{"id":"\ud800"}]}"#)
            .err()
            .unwrap();
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::LoneSurrogate, "args.files[1].id")
        );
        let e = p(r#"[1,[2,]]"#).err().unwrap();
        assert_eq!(e.path, "args[1][1]");
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(p(&deep).err().map(|e| e.code), Some(ErrorCode::InvalidJson));
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(p(&ok).is_ok());
    }
}
