//! The tool request planner, `buildToolExecutionRequestPlan` (`tools/eagerEventExecution`): how a batch
//! of model tool calls becomes requests, which calls are refused for their arguments, and (3.8.0+) how
//! string arguments are coerced to the types the tool's schema declares.
//!
//! The rules, as the SDK applies them per call, in order:
//!
//! - A call with a missing or empty `id`, or an empty `name`, makes the planner give up on the whole
//!   batch (it returns `undefined`; here `None`), whatever the mode.
//! - The arguments must be a JSON object: an object is taken as is; a string is `JSON.parse`d, again and
//!   again while the result is a string; anything else (an array, `null`, a number, unparsable text) is
//!   invalid. In [`InvalidArgsBehavior::Abort`] mode an invalid call also gives up on the batch; in
//!   [`InvalidArgsBehavior::ErrorResult`] mode it becomes a rejected request with `{}` as args, answered
//!   with [`REJECTED_ARGS_MESSAGE`] and never dispatched.
//! - Profile 3.9 only: accepted args are coerced against the tool's parameter schema
//!   ([`coerce_args_for_schema`]). 3.6 has no coercion.
//! - The request carries the call's `codeSessionContext` when it is not null/undefined and its
//!   `runtimeSessionHint` when it is non-empty; rejected requests keep both.
//!
//! What is not modelled: the per-name `turn` counter and `stepId` (bookkeeping of the host's graph).

mod jsnum;

pub use jsnum::js_number_prints_as;

use super::config::Profile;
use super::error::{ErrorCode, GateError, GateResult, Path};
use super::json::{self, MAX_DEPTH};
use super::value::{Object, Value};

/// The error text the SDK answers a rejected call with.
pub const REJECTED_ARGS_MESSAGE: &str = "Invalid tool call arguments: expected a JSON object.";

/// What the planner does with a call whose arguments are not a JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InvalidArgsBehavior {
    /// Give up on the whole batch (the SDK's default, used by the eager prestart path).
    #[default]
    Abort,
    /// Keep the call as a rejected request answered with an error result (what the ToolNode uses).
    ErrorResult,
}

/// One model tool call handed to the planner. `C` is the host's code-session context type.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanCall<C> {
    /// The tool call id; `None` stands for null/undefined.
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// The arguments: an object, a JSON text of one, or anything else (which is invalid). Absent
    /// arguments are invalid too; pass [`Value::Null`] for them.
    pub args: Value,
    /// The code-session context computed for the call; `None` stands for null/undefined (a context
    /// type that can express null must map it to `None`, since the planner drops only absent ones).
    pub code_session_context: Option<C>,
    /// The runtime session hint; `None` or `""` is not attached.
    pub runtime_session_hint: Option<String>,
}

/// One planned request, in call order; rejected calls included.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRequest<C> {
    /// The call id (never empty).
    pub id: String,
    /// The tool name (never empty).
    pub name: String,
    /// The arguments after parsing and (3.9) coercion; `{}` for a rejected call.
    pub args: Object,
    /// The call's context, carried verbatim.
    pub code_session_context: Option<C>,
    /// The call's hint, only when non-empty.
    pub runtime_session_hint: Option<String>,
    /// The args were not a JSON object: the request is answered with [`REJECTED_ARGS_MESSAGE`] and not
    /// dispatched.
    pub rejected: bool,
}

/// `buildToolExecutionRequestPlan`: the requests for `calls`, or `None` when the planner gives up (the SDK
/// returns `undefined`). `schema_for(name)` is the tool's declared parameter schema (3.9 only).
///
/// `Err` only when an argument string cannot be judged faithfully (see [`coerce_record_args`]) and the
/// outcome depends on it: in abort mode a definitely invalid call anywhere in the batch still gives
/// `Ok(None)`, as the SDK would give up either way.
pub fn build_request_plan<'s, C>(
    profile: Profile,
    calls: Vec<PlanCall<C>>,
    behavior: InvalidArgsBehavior,
    schema_for: &dyn Fn(&str) -> Option<&'s Value>,
) -> GateResult<Option<Vec<PlannedRequest<C>>>> {
    // Giving up has no side effect in the SDK, so checking every id first is the same as its in-loop check.
    if calls
        .iter()
        .any(|c| c.id.as_deref().is_none_or(str::is_empty) || c.name.is_empty())
    {
        return Ok(None);
    }
    let mut heads = Vec::with_capacity(calls.len());
    let mut args = Vec::with_capacity(calls.len());
    for call in calls {
        args.push((call.name.clone(), call.args));
        heads.push((
            call.id,
            call.name,
            call.code_session_context,
            call.runtime_session_hint,
        ));
    }
    let Some(planned) = plan_args(profile, args, behavior, schema_for)? else {
        return Ok(None);
    };
    Ok(Some(
        heads
            .into_iter()
            .zip(planned)
            .map(
                |((id, name, context, hint), (args, rejected))| PlannedRequest {
                    id: id.unwrap_or_default(),
                    name,
                    args,
                    code_session_context: context,
                    runtime_session_hint: hint.filter(|h| !h.is_empty()),
                    rejected,
                },
            )
            .collect(),
    ))
}

/// The args part of the plan, kept out of the generic function so that it is compiled once: each
/// call's final args and whether it is rejected, or `None` when abort mode gives up.
fn plan_args<'s>(
    profile: Profile,
    calls: Vec<(String, Value)>,
    behavior: InvalidArgsBehavior,
    schema_for: &dyn Fn(&str) -> Option<&'s Value>,
) -> GateResult<Option<Vec<(Object, bool)>>> {
    let root = Path::root("calls");
    let records: Vec<(String, GateResult<Option<Object>>)> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, args))| {
            let at = root.index(i);
            let record = record_args(args, &at.key("args"));
            (name, record)
        })
        .collect();
    if behavior == InvalidArgsBehavior::Abort && records.iter().any(|(_, r)| matches!(r, Ok(None)))
    {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(records.len());
    for (name, record) in records {
        out.push(match record? {
            None => (Object::new(), true),
            Some(record) if profile.is_3_9() => (coerce_object(record, schema_for(&name)), false),
            Some(record) => (record, false),
        });
    }
    Ok(Some(out))
}

/// `coerceRecordArgs`: the arguments as a JSON object, or `None` when they are not one.
///
/// `Err` where the JSON parser cannot reproduce `JSON.parse`: an escaped lone surrogate (`"\ud800"`,
/// which `JSON.parse` accepts but a Rust string cannot hold) gives [`ErrorCode::LoneSurrogate`], and a
/// text nesting deeper than [`MAX_DEPTH`] gives [`ErrorCode::InvalidValue`].
pub fn coerce_record_args(args: &Value) -> GateResult<Option<Object>> {
    record_args(args.clone(), &Path::root("args"))
}

fn record_args(args: Value, path: &Path<'_>) -> GateResult<Option<Object>> {
    let mut current = args;
    loop {
        match current {
            Value::Object(record) => return Ok(Some(record)),
            Value::String(text) => match json::parse(&text, path) {
                Ok(parsed) => current = parsed,
                Err(e) if e.code == ErrorCode::LoneSurrogate => return Err(e),
                Err(_) if nests_deeper_than(&text, MAX_DEPTH) => {
                    return Err(GateError::new(
                        ErrorCode::InvalidValue,
                        path,
                        format!("JSON text nests deeper than {MAX_DEPTH} levels"),
                    ))
                }
                Err(_) => return Ok(None),
            },
            _ => return Ok(None),
        }
    }
}

/// Whether brackets outside string literals nest deeper than `limit`: the parser refuses such text
/// although `JSON.parse` may accept it, so a failure then says nothing about validity.
fn nests_deeper_than(text: &str, limit: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// `coerceArgsForSchema` (3.8.0+): converts string values to the types `schema` declares.
///
/// Only strings convert: `integer` takes `-?(0|[1-9]\d*)` within ±(2^53−1) (`"-0"` gives −0); `number`
/// and `float` take `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` when the finite value prints back as the
/// very same text ([`js_number_prints_as`]); `boolean` takes exactly `"true"`/`"false"`. `array` recurses
/// into `items`; `object` rebuilds the object, each value against `properties[key]`, or, when that is
/// null/undefined, against `additionalProperties` if that is an object. Everything else passes through.
///
/// Lookups behave like JavaScript property reads: a schema that is not an object does nothing; `type`
/// must be exactly the string; `properties[key]` also finds what `properties` inherits (an object's
/// `constructor`, `toString`, `__proto__`…; an array's items, `length` and methods; a string's
/// characters), and such a non-null, typeless value blocks the `additionalProperties` fallback.
///
/// A rebuilt object lists its keys as `Object.entries` does (array-index keys ascending, then the others
/// in order); objects that are not rebuilt keep the order they came in.
pub fn coerce_args_for_schema(args: Value, schema: Option<&Value>) -> Value {
    let Some(Value::Object(schema)) = schema else {
        return args;
    };
    match (schema.get("type").and_then(Value::as_str), args) {
        (Some("integer"), Value::String(s)) => coerce_integer(s),
        (Some("number" | "float"), Value::String(s)) => coerce_number(s),
        (Some("boolean"), Value::String(s)) => match s.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(s),
        },
        (Some("array"), Value::Array(items)) => Value::Array(
            items
                .into_iter()
                .map(|item| coerce_args_for_schema(item, schema.get("items")))
                .collect(),
        ),
        (Some("object"), Value::Object(record)) => Value::Object(rebuild_object(record, schema)),
        (_, other) => other,
    }
}

/// The coercion of an object: only an object schema changes it.
fn coerce_object(record: Object, schema: Option<&Value>) -> Object {
    match schema {
        Some(Value::Object(s)) if s.get("type").and_then(Value::as_str) == Some("object") => {
            rebuild_object(record, s)
        }
        _ => record,
    }
}

fn rebuild_object(record: Object, schema: &Object) -> Object {
    let properties = schema.get("properties");
    // `typeof additionalProperties === "object"` also admits null and arrays; both are inert schemas.
    let additional = schema
        .get("additionalProperties")
        .filter(|v| matches!(v, Value::Object(_) | Value::Array(_) | Value::Null));
    entries_in_js_order(record)
        .into_iter()
        .map(|(key, value)| {
            let sub = match property_of(properties, &key) {
                Lookup::Nullish => additional,
                Lookup::Found(v) => Some(v),
                Lookup::Inert => None,
            };
            let value = coerce_args_for_schema(value, sub);
            (key, value)
        })
        .collect()
}

/// `Object.entries` order: array-index keys (canonical, up to 2^32−2) ascending, then insertion order.
fn entries_in_js_order(record: Object) -> Vec<(String, Value)> {
    // Index keys are few and keys are unique: placing each by binary search is smaller code than a sort.
    let mut indexed: Vec<(u32, String, Value)> = Vec::new();
    let mut named = Vec::with_capacity(record.len());
    for (k, v) in record {
        match array_index(&k) {
            Some(i) => {
                let at = indexed.partition_point(|(j, _, _)| *j < i);
                indexed.insert(at, (i, k, v));
            }
            None => named.push((k, v)),
        }
    }
    indexed
        .into_iter()
        .map(|(_, k, v)| (k, v))
        .chain(named)
        .collect()
}

/// The array index `key` names, if it is one (`"0"`, `"17"`; not `"01"`, `"-0"`, `"4294967295"`).
fn array_index(key: &str) -> Option<u32> {
    let canonical = !key.is_empty()
        && key.len() <= 10
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'));
    if !canonical {
        return None;
    }
    key.parse::<u64>()
        .ok()
        .filter(|&n| n <= 4_294_967_294)
        .and_then(|n| u32::try_from(n).ok())
}

/// What `properties?.[key]` yields.
enum Lookup<'a> {
    /// `null` or `undefined`: the `additionalProperties` fallback applies.
    Nullish,
    /// A value of the schema document (used as the sub-schema; non-objects are inert).
    Found(&'a Value),
    /// Something JavaScript finds that is not data (a method, `length`, a character): inert, no fallback.
    Inert,
}

/// The own and inherited string-keyed members of `Object.prototype` (Node 20 / V8).
const OBJECT_PROTO: [&str; 12] = [
    "constructor",
    "__defineGetter__",
    "__defineSetter__",
    "hasOwnProperty",
    "__lookupGetter__",
    "__lookupSetter__",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "valueOf",
    "__proto__",
    "toLocaleString",
];

/// `Array.prototype`'s members plus an array's own `length`.
const ARRAY_PROTO: [&str; 40] = [
    "length",
    "constructor",
    "at",
    "concat",
    "copyWithin",
    "fill",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "lastIndexOf",
    "pop",
    "push",
    "reverse",
    "shift",
    "unshift",
    "slice",
    "sort",
    "splice",
    "includes",
    "indexOf",
    "join",
    "keys",
    "entries",
    "values",
    "forEach",
    "filter",
    "flat",
    "flatMap",
    "map",
    "every",
    "some",
    "reduce",
    "reduceRight",
    "toLocaleString",
    "toString",
    "toReversed",
    "toSorted",
    "toSpliced",
    "with",
];

/// `String.prototype`'s members plus a string's own `length`.
const STRING_PROTO: [&str; 53] = [
    "length",
    "constructor",
    "anchor",
    "at",
    "big",
    "blink",
    "bold",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "concat",
    "endsWith",
    "fontcolor",
    "fontsize",
    "fixed",
    "includes",
    "indexOf",
    "isWellFormed",
    "italics",
    "lastIndexOf",
    "link",
    "localeCompare",
    "match",
    "matchAll",
    "normalize",
    "padEnd",
    "padStart",
    "repeat",
    "replace",
    "replaceAll",
    "search",
    "slice",
    "small",
    "split",
    "strike",
    "sub",
    "substr",
    "substring",
    "sup",
    "startsWith",
    "toString",
    "toWellFormed",
    "trim",
    "trimStart",
    "trimLeft",
    "trimEnd",
    "trimRight",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "toLowerCase",
    "toUpperCase",
    "valueOf",
    "toLocaleString",
];

/// `Number.prototype`'s members.
const NUMBER_PROTO: [&str; 7] = [
    "constructor",
    "toExponential",
    "toFixed",
    "toPrecision",
    "toString",
    "valueOf",
    "toLocaleString",
];

/// `schema.properties?.[key]` with JavaScript's property lookup on the value's prototype chain.
fn property_of<'a>(properties: Option<&'a Value>, key: &str) -> Lookup<'a> {
    let inherited = |own: &[&str]| {
        if own.contains(&key) || OBJECT_PROTO.contains(&key) {
            Lookup::Inert
        } else {
            Lookup::Nullish
        }
    };
    let found = |v: Option<&'a Value>| match v {
        None | Some(Value::Null) => Lookup::Nullish,
        Some(v) => Lookup::Found(v),
    };
    match properties {
        None | Some(Value::Null) => Lookup::Nullish,
        Some(Value::Object(o)) => match o.get(key) {
            Some(v) => found(Some(v)),
            None => inherited(&[]),
        },
        Some(Value::Array(items)) => match array_index(key).and_then(|i| usize::try_from(i).ok()) {
            Some(i) if i < items.len() => found(items.get(i)),
            _ => inherited(&ARRAY_PROTO),
        },
        Some(Value::String(s)) => match array_index(key).and_then(|i| usize::try_from(i).ok()) {
            Some(i) if i < s.encode_utf16().count() => Lookup::Inert,
            _ => inherited(&STRING_PROTO),
        },
        Some(Value::Number(_)) => inherited(&NUMBER_PROTO),
        Some(Value::Bool(_)) => inherited(&["constructor", "toString", "valueOf"]),
    }
}

/// The largest safe integer, 2^53 − 1.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

fn coerce_integer(s: String) -> Value {
    if !is_integer_text(&s) {
        return Value::String(s);
    }
    match s.parse::<f64>() {
        Ok(n) if n.abs() <= MAX_SAFE_INTEGER => Value::Number(n),
        _ => Value::String(s),
    }
}

fn coerce_number(s: String) -> Value {
    if !is_number_text(&s) {
        return Value::String(s);
    }
    match s.parse::<f64>() {
        Ok(n) if n.is_finite() && js_number_prints_as(n, &s) => Value::Number(n),
        _ => Value::String(s),
    }
}

/// Reads `-?(0|[1-9]\d*)` from the start of `b`; the rest after it.
fn integer_part(b: &[u8]) -> Option<&[u8]> {
    let b = b.strip_prefix(b"-").unwrap_or(b);
    match b.first() {
        Some(b'0') => b.get(1..),
        Some(b'1'..=b'9') => {
            let end = b
                .iter()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(b.len());
            b.get(end..)
        }
        _ => None,
    }
}

/// `^-?(?:0|[1-9]\d*)$`.
fn is_integer_text(s: &str) -> bool {
    integer_part(s.as_bytes()).is_some_and(<[u8]>::is_empty)
}

/// `^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$`.
fn is_number_text(s: &str) -> bool {
    let Some(mut rest) = integer_part(s.as_bytes()) else {
        return false;
    };
    let digits = |b: &[u8]| {
        b.iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len())
    };
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = digits(frac);
        if n == 0 {
            return false;
        }
        rest = frac.get(n..).unwrap_or(&[]);
    }
    if let Some(exp) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exp = exp
            .strip_prefix(b"+")
            .or_else(|| exp.strip_prefix(b"-"))
            .unwrap_or(exp);
        let n = digits(exp);
        return n > 0 && n == exp.len();
    }
    rest.is_empty()
}

/// `recordArgsEqual`: whether the two values print the same under the SDK's `stableStringify` (sorted
/// keys, `JSON.stringify` leaves), decided structurally. Key order never matters; numbers are equal when
/// `JSON.stringify` prints them alike, so `-0` equals `0` and every non-finite number equals `null`.
pub fn record_args_equal(a: &Value, b: &Value) -> bool {
    let prints_null = |v: &Value| match v {
        Value::Null => true,
        Value::Number(n) => !n.is_finite(),
        _ => false,
    };
    match (a, b) {
        _ if prints_null(a) || prints_null(b) => prints_null(a) && prints_null(b),
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| record_args_equal(p, q))
        }
        // Keys are unique, so the sorted key lists match exactly when the key sets do.
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| record_args_equal(v, w)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Value {
        json::parse(text, &Path::root("t")).unwrap()
    }

    fn obj(text: &str) -> Object {
        match v(text) {
            Value::Object(o) => o,
            other => panic!("not an object: {other:?}"),
        }
    }

    fn call(id: Option<&str>, name: &str, args: Value) -> PlanCall<Value> {
        PlanCall {
            id: id.map(str::to_owned),
            name: name.to_owned(),
            args,
            code_session_context: None,
            runtime_session_hint: None,
        }
    }

    fn no_schema(_: &str) -> Option<&'static Value> {
        None
    }

    /// The coercion of `{"v": <value>}` against `{"type":"object","properties":{"v": <schema>}}`.
    fn coerce_v(schema: &str, value: &str) -> Value {
        let schema = v(&format!(
            r#"{{"type":"object","properties":{{"v":{schema}}}}}"#
        ));
        let out = coerce_args_for_schema(v(&format!(r#"{{"v":{value}}}"#)), Some(&schema));
        out.as_object().and_then(|o| o.get("v")).cloned().unwrap()
    }

    #[test]
    fn record_args_follow_json_parse() {
        // coerceRecordArgs: objects pass, strings parse (recursively), the rest is invalid.
        assert_eq!(
            coerce_record_args(&v(r#"{"a":1}"#)).unwrap(),
            Some(obj(r#"{"a":1}"#))
        );
        assert_eq!(
            coerce_record_args(&v(r#""{\"a\":1}""#)).unwrap(),
            Some(obj(r#"{"a":1}"#))
        );
        // A JSON string whose parse is again a JSON text of an object.
        let twice = Value::String(r#""{\"a\":[1]}""#.to_owned());
        assert_eq!(
            coerce_record_args(&twice).unwrap(),
            Some(obj(r#"{"a":[1]}"#))
        );
        for invalid in [
            r#""[1,2]""#,
            r#""null""#,
            r#""5""#,
            r#""not json""#,
            "[1]",
            "null",
            "true",
            "3",
            r#""""#,
        ] {
            assert_eq!(coerce_record_args(&v(invalid)).unwrap(), None, "{invalid}");
        }
    }

    #[test]
    fn record_args_refuse_what_the_parser_cannot_judge() {
        let lone = Value::String(r#"{"a":"\ud800"}"#.to_owned());
        assert_eq!(
            coerce_record_args(&lone).unwrap_err().code,
            ErrorCode::LoneSurrogate
        );
        let deep = Value::String("[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1));
        assert_eq!(
            coerce_record_args(&deep).unwrap_err().code,
            ErrorCode::InvalidValue
        );
        // Brackets inside strings do not count.
        let text = format!(r#"{{"a":"{}"}}"#, "[".repeat(MAX_DEPTH + 5));
        assert!(coerce_record_args(&Value::String(text)).unwrap().is_some());
    }

    #[test]
    fn planner_gives_up_on_empty_id_or_name_in_any_mode() {
        for behavior in [InvalidArgsBehavior::Abort, InvalidArgsBehavior::ErrorResult] {
            for bad in [
                call(Some(""), "t", v("{}")),
                call(None, "t", v("{}")),
                call(Some("c"), "", v("{}")),
            ] {
                let calls = vec![call(Some("ok"), "t", v("{}")), bad];
                let plan = build_request_plan(Profile::V3_9, calls, behavior, &no_schema).unwrap();
                assert!(plan.is_none());
            }
        }
    }

    #[test]
    fn abort_mode_gives_up_on_any_invalid_args_even_after_an_undecidable_one() {
        let calls = vec![
            call(
                Some("a"),
                "t",
                Value::String(r#"{"x":"\udc00"}"#.to_owned()),
            ),
            call(Some("b"), "t", v("[1]")),
        ];
        let plan = build_request_plan(Profile::V3_9, calls, InvalidArgsBehavior::Abort, &no_schema);
        assert_eq!(plan, Ok(None));
    }

    #[test]
    fn error_result_mode_rejects_with_empty_args_and_keeps_fields() {
        let mut bad = call(Some("c1"), "t", v(r#""[1,2]""#));
        bad.code_session_context = Some(v(r#"{"session_id":"s"}"#));
        bad.runtime_session_hint = Some("h".to_owned());
        let mut good = call(Some("c2"), "t", v(r#""{\"q\":\"1\"}""#));
        good.runtime_session_hint = Some(String::new());
        let plan = build_request_plan(
            Profile::V3_6,
            vec![bad, good],
            InvalidArgsBehavior::ErrorResult,
            &no_schema,
        )
        .unwrap()
        .unwrap();
        assert_eq!(plan.len(), 2);
        assert!(plan[0].rejected && plan[0].args.is_empty());
        assert_eq!(
            plan[0].code_session_context,
            Some(v(r#"{"session_id":"s"}"#))
        );
        assert_eq!(plan[0].runtime_session_hint.as_deref(), Some("h"));
        assert!(!plan[1].rejected);
        assert_eq!(plan[1].args, obj(r#"{"q":"1"}"#));
        assert_eq!(plan[1].runtime_session_hint, None);
    }

    #[test]
    fn coercion_is_3_9_only() {
        let schema = v(r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#);
        let lookup = |name: &str| if name == "t" { Some(&schema) } else { None };
        for (profile, want) in [
            (Profile::V3_6, r#"{"n":"5"}"#),
            (Profile::V3_9, r#"{"n":5}"#),
        ] {
            let plan = build_request_plan(
                profile,
                vec![call(Some("c"), "t", v(r#"{"n":"5"}"#))],
                InvalidArgsBehavior::Abort,
                &lookup,
            )
            .unwrap()
            .unwrap();
            assert_eq!(plan[0].args, obj(want));
        }
    }

    #[test]
    fn integer_rules() {
        let i = r#"{"type":"integer"}"#;
        assert_eq!(coerce_v(i, r#""42""#), Value::Number(42.0));
        assert_eq!(
            coerce_v(i, r#""-9007199254740991""#),
            Value::Number(-9_007_199_254_740_991.0)
        );
        let neg_zero = coerce_v(i, r#""-0""#);
        assert!(matches!(neg_zero, Value::Number(z) if z == 0.0 && z.is_sign_negative()));
        for keep in [
            r#""9007199254740992""#,
            r#""01""#,
            r#""1.0""#,
            r#""1e3""#,
            r#""+1""#,
            r#"" 1""#,
            r#""""#,
            r#""-""#,
        ] {
            assert_eq!(coerce_v(i, keep), v(keep), "{keep}");
        }
        assert_eq!(coerce_v(i, "7"), Value::Number(7.0)); // not a string: untouched
    }

    #[test]
    fn number_rules() {
        for ty in [r#"{"type":"number"}"#, r#"{"type":"float"}"#] {
            assert_eq!(coerce_v(ty, r#""2.5""#), Value::Number(2.5));
            assert_eq!(coerce_v(ty, r#""1e+21""#), Value::Number(1e21));
            assert_eq!(coerce_v(ty, r#""-0.000001""#), Value::Number(-0.000_001));
            for keep in [
                r#""1.50""#,
                r#""1e3""#,
                r#""-0""#,
                r#""1e21""#,
                r#""0.30000000000000003""#,
                r#""1E+21""#,
                r#""Infinity""#,
                r#""1e+400""#,
                r#"".5""#,
            ] {
                assert_eq!(coerce_v(ty, keep), v(keep), "{keep}");
            }
        }
    }

    #[test]
    fn number_coercion_agrees_with_node() {
        // Rows `<text>\t<1 if the SDK's number rule converts it>`, judged by Node (gen-js-number-print.mjs).
        let table = include_str!("../../tests/fixtures/js-number-coerce.tsv");
        let (mut rows, mut converted) = (0, 0);
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let (text, flag) = line.rsplit_once('\t').unwrap();
            let got = coerce_number(text.to_owned());
            let want = flag == "1";
            match &got {
                Value::Number(n) => assert!(
                    want && text.parse::<f64>().ok() == Some(*n),
                    "{text:?} converted"
                ),
                Value::String(s) => assert!(!want && s == text, "{text:?} kept"),
                other => panic!("{text:?} gave {other:?}"),
            }
            rows += 1;
            converted += usize::from(want);
        }
        assert!(
            rows > 3_000 && converted > 1_000,
            "{rows} rows, {converted} converted"
        );
    }

    #[test]
    fn boolean_and_type_must_match_exactly() {
        assert_eq!(
            coerce_v(r#"{"type":"boolean"}"#, r#""true""#),
            Value::Bool(true)
        );
        assert_eq!(
            coerce_v(r#"{"type":"boolean"}"#, r#""True""#),
            v(r#""True""#)
        );
        assert_eq!(coerce_v(r#"{"type":["integer"]}"#, r#""1""#), v(r#""1""#));
        assert_eq!(coerce_v(r#"{"type":"Integer"}"#, r#""1""#), v(r#""1""#));
        assert_eq!(coerce_v(r#""integer""#, r#""1""#), v(r#""1""#));
    }

    #[test]
    fn arrays_and_additional_properties() {
        let schema = v(
            r#"{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}},"meta":{"type":"object","properties":{"ok":{"type":"boolean"}},"additionalProperties":{"type":"integer"}}}}"#,
        );
        let out = coerce_args_for_schema(
            v(r#"{"ids":["1","2","x"],"meta":{"k":"3","ok":"false"}}"#),
            Some(&schema),
        );
        assert_eq!(out, v(r#"{"ids":[1,2,"x"],"meta":{"k":3,"ok":false}}"#));
        // Non-object additionalProperties never applies; a null property falls back.
        let s = v(r#"{"type":"object","properties":{"a":null},"additionalProperties":true}"#);
        assert_eq!(
            coerce_args_for_schema(v(r#"{"a":"1"}"#), Some(&s)),
            v(r#"{"a":"1"}"#)
        );
        let s = v(
            r#"{"type":"object","properties":{"a":null},"additionalProperties":{"type":"integer"}}"#,
        );
        assert_eq!(
            coerce_args_for_schema(v(r#"{"a":"1"}"#), Some(&s)),
            v(r#"{"a":1}"#)
        );
    }

    #[test]
    fn inherited_members_block_the_fallback() {
        let args = v(
            r#"{"constructor":"1","toString":"1","__proto__":"1","length":"1","0":"1","plain":"1"}"#,
        );
        let with_props = |props: &str| {
            let s = v(&format!(
                r#"{{"type":"object","properties":{props},"additionalProperties":{{"type":"integer"}}}}"#
            ));
            coerce_args_for_schema(args.clone(), Some(&s))
        };
        // Object: prototype members are inert; "length" and "0" are not on Object.prototype.
        assert_eq!(
            with_props("{}"),
            v(r#"{"0":1,"constructor":"1","toString":"1","__proto__":"1","length":1,"plain":1}"#)
        );
        // Array: "length" and methods inert, index "0" is the item (null → fallback).
        assert_eq!(
            with_props("[null]"),
            v(r#"{"0":1,"constructor":"1","toString":"1","__proto__":"1","length":"1","plain":1}"#)
        );
        assert_eq!(
            with_props(r#"[{"type":"boolean"}]"#),
            v(
                r#"{"0":"1","constructor":"1","toString":"1","__proto__":"1","length":"1","plain":1}"#
            )
        );
        // String: characters and "length" inert.
        assert_eq!(
            with_props(r#""ab""#),
            v(
                r#"{"0":"1","constructor":"1","toString":"1","__proto__":"1","length":"1","plain":1}"#
            )
        );
        // Own keys win over the prototype.
        assert_eq!(
            with_props(r#"{"constructor":{"type":"integer"}}"#)
                .as_object()
                .unwrap()
                .get("constructor"),
            Some(&Value::Number(1.0))
        );
    }

    #[test]
    fn rebuilt_objects_follow_object_entries_order() {
        let s = v(r#"{"type":"object"}"#);
        let out =
            coerce_args_for_schema(v(r#"{"b":1,"4294967295":2,"10":3,"2":4,"01":5}"#), Some(&s));
        let keys: Vec<&str> = out.as_object().unwrap().iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["2", "10", "b", "4294967295", "01"]);
    }

    #[test]
    fn regexes() {
        for (s, int, num) in [
            ("0", true, true),
            ("-0", true, true),
            ("01", false, false),
            ("1.5", false, true),
            ("1.", false, false),
            ("1e5", false, true),
            ("1E+5", false, true),
            ("1e", false, false),
            ("-", false, false),
            ("", false, false),
            ("1.5e-3", false, true),
            ("--1", false, false),
            ("1.5.5", false, false),
            ("١", false, false),
        ] {
            assert_eq!((is_integer_text(s), is_number_text(s)), (int, num), "{s:?}");
        }
    }

    #[test]
    fn stable_stringify_equality() {
        assert!(record_args_equal(
            &v(r#"{"a":1,"b":[1,{"c":null}]}"#),
            &v(r#"{"b":[1,{"c":null}],"a":1}"#)
        ));
        assert!(record_args_equal(&Value::Number(-0.0), &Value::Number(0.0)));
        assert!(record_args_equal(&Value::Number(f64::NAN), &Value::Null));
        assert!(record_args_equal(
            &Value::Number(f64::INFINITY),
            &Value::Number(f64::NAN)
        ));
        assert!(!record_args_equal(&v(r#"{"a":1}"#), &v(r#"{"a":1,"b":1}"#)));
        assert!(!record_args_equal(&v(r#"{"a":"1"}"#), &v(r#"{"a":1}"#)));
        assert!(!record_args_equal(&v("[1,2]"), &v("[2,1]")));
        assert!(!record_args_equal(&v("{}"), &v("[]")));
        assert!(record_args_equal(
            &Value::Number(0.1 + 0.2),
            &Value::Number(0.300_000_000_000_000_04)
        ));
    }
}
