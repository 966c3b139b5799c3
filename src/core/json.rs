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

/// Parses `text` as one JSON value; `path` names the input in errors.
pub fn parse(text: &str, path: &Path<'_>) -> GateResult<Value> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        text,
        at: 0,
        path,
    };
    p.skip_ws();
    let v = p.value(0)?;
    p.skip_ws();
    if p.at != p.bytes.len() {
        return Err(p.fail("unexpected text after the JSON value"));
    }
    Ok(v)
}

struct Parser<'t, 'p> {
    bytes: &'t [u8],
    text: &'t str,
    at: usize,
    path: &'p Path<'p>,
}

impl Parser<'_, '_> {
    fn fail(&self, what: &str) -> GateError {
        GateError::new(
            ErrorCode::InvalidJson,
            self.path,
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
            let key = self.string()?;
            self.skip_ws();
            if !self.eat(b':') {
                return Err(self.fail("expected ':'"));
            }
            self.skip_ws();
            let v = self.value(depth)?;
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
            items.push(self.value(depth)?);
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
        GateError::new(
            ErrorCode::LoneSurrogate,
            self.path,
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

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(p(&deep).err().map(|e| e.code), Some(ErrorCode::InvalidJson));
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(p(&ok).is_ok());
    }
}
