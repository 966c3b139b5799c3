//! Property 3: `toInjectedFileRef` (the static operation) is total and well typed on any FileRef-ish
//! JSON: random strings (empty, non-ASCII, NUL, escaped lone surrogates), numbers (negative zero,
//! exponents, values beyond f64), `null`, booleans, arrays, objects, missing keys, extra keys and
//! repeated keys.
//!
//! The answer is checked against an oracle of the README's rules, and its shape on its own: either a
//! refusal with a code and the path of the first offending value, or a `CodeEnvFile` with exactly the
//! wire keys, `kind` in {skill, agent, user}, a `version` (a finite number) only on a skill,
//! `resource_id` and `storage_session_id` strings.

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value};

use super::driver::call_static;

/// One generated input: the `file` and `execSessionId` argument texts (`None`: `undefined`).
#[derive(Debug, Clone)]
pub struct Input {
    pub file: Option<String>,
    pub exec: Option<String>,
}

const STRINGS: [&str; 12] = [
    "\"\"",
    "\"f1\"",
    "\"a.txt\"",
    "\"skill\"",
    "\"agent\"",
    "\"user\"",
    "\"Skill\"",
    "\"é/𝄞\"",
    "\"a\\u0000b\"",
    "\"\\\"q\\\"\"",
    "\"\\ud800\"",
    "\"x\\udc00y\"",
];
/// JSON numbers as a host may write them (`1E400` and `-1e400` are valid JSON texts beyond f64).
pub const NUMBERS: [&str; 9] = [
    "0",
    "-0",
    "7",
    "2.50",
    "1e3",
    "-3",
    "12345678901234567890123",
    "1E400",
    "-1e400",
];
const OTHERS: [&str; 6] = ["null", "true", "false", "[]", "{}", "[\"f1\",{\"a\":null}]"];
const KEYS: [&str; 11] = [
    "id",
    "name",
    "resource_id",
    "storage_session_id",
    "kind",
    "version",
    "path",
    "inherited",
    "note",
    "__proto__",
    "extra_1",
];

fn value(
    strings: &'static [&'static str],
    numbers: &'static [&'static str],
) -> BoxedStrategy<String> {
    prop_oneof![
        6 => select(strings).prop_map(str::to_owned),
        3 => select(numbers).prop_map(str::to_owned),
        2 => select(&OTHERS[..]).prop_map(str::to_owned),
    ]
    .boxed()
}

/// A FileRef-ish argument: mostly objects whose known keys usually hold what they should.
///
/// Includes what the gate once mishandled (see the regression tests in tests/properties.rs): a lone
/// surrogate in a key the gate does not read, and a number beyond f64 (`1E400`) as a version.
pub fn input() -> BoxedStrategy<Input> {
    let numbers: &'static [&'static str] = &NUMBERS;
    let typed = (select(&KEYS[..6]), select(&STRINGS[1..8]))
        .prop_map(|(k, v)| (k.to_owned(), v.to_owned()));
    let read = (select(&KEYS[..6]), value(&STRINGS, numbers)).prop_map(|(k, v)| (k.to_owned(), v));
    let extra_strings: &'static [&'static str] = &STRINGS;
    let extra =
        (select(&KEYS[6..]), value(extra_strings, numbers)).prop_map(|(k, v)| (k.to_owned(), v));
    let version = select(numbers).prop_map(|v| ("version".to_owned(), v.to_owned()));
    let object = (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(
            prop_oneof![4 => typed, 2 => read, 2 => extra, 1 => version],
            0..6,
        ),
    )
        .prop_map(|(id_first, name, pairs)| {
            let mut all = Vec::new();
            if id_first {
                all.push(("id".to_owned(), "\"f1\"".to_owned()));
            }
            if name {
                all.push(("name".to_owned(), "\"a.txt\"".to_owned()));
            }
            all.extend(pairs);
            let body: Vec<String> = all.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", body.join(","))
        });
    let file = prop_oneof![
        12 => object.prop_map(Some),
        1 => value(&STRINGS, numbers).prop_map(Some),
        1 => Just(None),
    ];
    let exec = prop_oneof![
        8 => select(&STRINGS[..]).prop_map(|s| Some(s.to_owned())),
        1 => Just(None),
        1 => select(&OTHERS[..3]).prop_map(|s| Some(s.to_owned())),
        1 => select(numbers).prop_map(|s| Some(s.to_owned())),
    ];
    (file, exec)
        .prop_map(|(file, exec)| Input { file, exec })
        .boxed()
}

fn has_lone_surrogate(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_err()
}

/// The oracle: `Err((code, path))` or the narrowed ref.
fn oracle(input: &Input) -> Result<Value, (String, String)> {
    let refuse = |code: &str, path: &str| Err((code.to_owned(), path.to_owned()));
    let Some(file) = &input.file else {
        return refuse("missing_field", "file");
    };
    if has_lone_surrogate(file) && !file.starts_with('{') {
        return refuse("lone_surrogate", "file");
    }
    // The object's pairs in order, read one at a time (a repeated key: the last one counts).
    let Some(pairs) = pairs_of(file) else {
        return refuse("invalid_type", "file");
    };
    let mut known: Map<String, Value> = Map::new();
    for (k, raw) in &pairs {
        let path = format!("file.{k}");
        let v = match serde_json::from_str::<Value>(raw) {
            Ok(v) => v,
            // A version is refused for being a string before its text is read.
            Err(_) if k == "version" => return refuse("invalid_type", &path),
            Err(_) => return refuse("lone_surrogate", &path),
        };
        // A version's number text must be a finite double (1E400 is valid JSON, Infinity in JavaScript).
        if k == "version" && v.is_number() && !raw.trim().parse::<f64>().is_ok_and(f64::is_finite) {
            return refuse("invalid_value", &path);
        }
        let ok = match k.as_str() {
            "id" | "name" => v.is_string(),
            "resource_id" | "storage_session_id" | "kind" => v.is_string() || v.is_null(),
            "version" => v.is_number() || v.is_null(),
            _ => true,
        };
        if !ok {
            return refuse("invalid_type", &path);
        }
        known.insert(k.clone(), v);
    }
    for k in ["id", "name"] {
        if !known.contains_key(k) {
            return refuse("missing_field", &format!("file.{k}"));
        }
    }
    let exec = match &input.exec {
        None => return refuse("invalid_type", "execSessionId"),
        Some(t) => match serde_json::from_str::<Value>(t) {
            Err(_) => return refuse("lone_surrogate", "execSessionId"),
            Ok(Value::String(s)) => s,
            Ok(_) => return refuse("invalid_type", "execSessionId"),
        },
    };
    let get = |k: &str| known.get(k).filter(|v| !v.is_null()).cloned();
    let id = known["id"].clone();
    let mut out = Map::new();
    out.insert("id".into(), id.clone());
    out.insert("resource_id".into(), get("resource_id").unwrap_or(id));
    out.insert("name".into(), known["name"].clone());
    out.insert(
        "storage_session_id".into(),
        get("storage_session_id").unwrap_or(Value::String(exec)),
    );
    let kind = get("kind");
    let version = get("version");
    match (kind.as_ref().and_then(Value::as_str), version) {
        (Some("skill"), Some(v)) => {
            out.insert("kind".into(), "skill".into());
            out.insert("version".into(), v);
        }
        (Some("agent"), _) => {
            out.insert("kind".into(), "agent".into());
        }
        _ => {
            out.insert("kind".into(), "user".into());
        }
    }
    Ok(Value::Object(out))
}

/// The `"key": raw value` pairs of a generated object text (`None`: not an object).
fn pairs_of(text: &str) -> Option<Vec<(String, String)>> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?;
    if inner.is_empty() {
        return Some(Vec::new());
    }
    // Generated objects are flat at the top: split on the commas that separate pairs by re-reading
    // each value with a streaming parser.
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let rest_key = rest.strip_prefix('"')?;
        let end = rest_key.find('"')?;
        let key = rest_key[..end].to_owned();
        let after = rest_key[end + 1..].strip_prefix(':')?;
        let len = value_len(after)?;
        out.push((key, after[..len].to_owned()));
        rest = after[len..].strip_prefix(',').unwrap_or(&after[len..]);
    }
    Some(out)
}

/// The byte length of the JSON value at the start of `text` (lone surrogates allowed in strings).
fn value_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                b',' if depth == 0 => return Some(i),
                _ => {}
            }
        }
        i += 1;
    }
    Some(bytes.len())
}

/// Runs the operation and checks the answer against the oracle and the shape rules.
pub fn check(input: &Input) -> Result<(), String> {
    let args = [input.file.as_deref(), input.exec.as_deref()];
    let got = call_static("toInjectedFileRef", &args);
    let want = oracle(input);
    match (&got, &want) {
        (Err(r), Err((code, path))) => {
            if r.code != *code || r.path != *path {
                return Err(format!("refused with {r:?}, expected {code} at {path}"));
            }
            Ok(())
        }
        (Ok(text), Ok(want)) => {
            let v: Value =
                serde_json::from_str(text).map_err(|e| format!("answer not JSON: {e}"))?;
            well_typed(&v)?;
            if v != *want {
                return Err(format!("narrowed to {v}, expected {want}"));
            }
            // Wire keys in the SDK's order.
            let keys: Vec<&str> = v
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k.as_str())
                .collect();
            let order = [
                "id",
                "resource_id",
                "name",
                "storage_session_id",
                "kind",
                "version",
            ];
            if keys != order[..keys.len()] {
                return Err(format!("keys {keys:?}"));
            }
            Ok(())
        }
        _ => Err(format!("got {got:?}, expected {want:?}")),
    }
}

/// The shape of a `CodeEnvFile`, on its own.
fn well_typed(v: &Value) -> Result<(), String> {
    let m = v.as_object().ok_or("not an object")?;
    for k in ["id", "resource_id", "name", "storage_session_id"] {
        if !m.get(k).is_some_and(Value::is_string) {
            return Err(format!("{k} is not a string in {v}"));
        }
    }
    let kind = m.get("kind").and_then(Value::as_str).ok_or("no kind")?;
    if !["skill", "agent", "user"].contains(&kind) {
        return Err(format!("kind {kind:?}"));
    }
    match (kind, m.get("version")) {
        ("skill", Some(Value::Number(n))) => {
            let finite = n.to_string().parse::<f64>().is_ok_and(f64::is_finite);
            if !finite {
                return Err(format!("a skill's version {n} is not a finite number"));
            }
        }
        ("skill", other) => return Err(format!("a skill without a numeric version: {other:?}")),
        (_, Some(v)) => return Err(format!("a {kind} ref carries a version {v}")),
        (_, None) => {}
    }
    if m.len() != 5 + usize::from(kind == "skill") {
        return Err(format!("extra keys in {v}"));
    }
    Ok(())
}
