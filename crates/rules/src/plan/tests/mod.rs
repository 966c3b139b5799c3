//! Unit tests (compiled only with `cfg(test)`; the crate allows unwrap, expect and panic there).
#![cfg(test)]

use super::*;
use crate::json::RawJson;

fn v(text: &str) -> Json {
    json::parse(text, &Path::root("t")).unwrap()
}

fn raw(text: &str) -> &'static RawJson {
    Box::leak(RawJson::from_string(text.to_owned()).unwrap())
}

fn raw_string(text: &str) -> &'static RawJson {
    raw(&serde_json::to_string(text).unwrap())
}

fn obj(text: &str) -> JsonMap {
    match v(text) {
        Json::Object(o) => o,
        other => panic!("not an object: {other:?}"),
    }
}

fn num(v: &Json) -> f64 {
    match v {
        Json::Number(n) => json::number_value(n),
        other => panic!("not a number: {other:?}"),
    }
}

fn call(
    id: Option<&'static str>,
    name: &'static str,
    args: &'static RawJson,
) -> PlanCall<'static, Json> {
    PlanCall {
        id: id.map(Str::from),
        name: Str::from(name),
        args: Some(args),
        code_session_context: None,
        runtime_session_hint: None,
    }
}

fn no_schema(_: &str) -> Option<&'static Json> {
    None
}

/// The coercion of `{"v": <value>}` against `{"type":"object","properties":{"v": <schema>}}`.
fn coerce_v(schema: &str, value: &str) -> Json {
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
        coerce_record_args(raw(r#"{"a":1}"#)).unwrap(),
        Some(obj(r#"{"a":1}"#))
    );
    assert_eq!(
        coerce_record_args(raw(r#""{\"a\":1}""#)).unwrap(),
        Some(obj(r#"{"a":1}"#))
    );
    // A JSON string whose parse is again a JSON text of an object.
    let twice = raw_string(r#""{\"a\":[1]}""#);
    assert_eq!(
        coerce_record_args(twice).unwrap(),
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
        assert_eq!(coerce_record_args(raw(invalid)).unwrap(), None, "{invalid}");
    }
}

#[test]
fn record_args_refuse_what_the_parser_cannot_judge() {
    let lone = raw_string(r#"{"a":"\ud800"}"#);
    assert_eq!(
        coerce_record_args(lone).unwrap_err().code,
        ErrorCode::LoneSurrogate
    );
    let deep = raw_string(&("[".repeat(json::MAX_DEPTH + 1) + &"]".repeat(json::MAX_DEPTH + 1)));
    assert_eq!(
        coerce_record_args(deep).unwrap_err().code,
        ErrorCode::InvalidValue
    );
    // Brackets inside strings do not count.
    let text = format!(r#"{{"a":"{}"}}"#, "[".repeat(json::MAX_DEPTH + 5));
    assert!(coerce_record_args(raw_string(&text)).unwrap().is_some());
}

#[test]
fn planner_gives_up_on_empty_id_or_name_in_any_mode() {
    for behavior in [InvalidArgsBehavior::Abort, InvalidArgsBehavior::ErrorResult] {
        for bad in [
            call(Some(""), "t", raw("{}")),
            call(None, "t", raw("{}")),
            call(Some("c"), "", raw("{}")),
        ] {
            let calls = vec![call(Some("ok"), "t", raw("{}")), bad];
            let plan = build_request_plan(Profile::V3_9, calls, behavior, &no_schema).unwrap();
            assert!(plan.is_none());
        }
    }
}

#[test]
fn abort_mode_gives_up_on_any_invalid_args_even_after_an_undecidable_one() {
    let calls = vec![
        call(Some("a"), "t", raw_string(r#"{"x":"\udc00"}"#)),
        call(Some("b"), "t", raw("[1]")),
    ];
    let plan = build_request_plan(Profile::V3_9, calls, InvalidArgsBehavior::Abort, &no_schema);
    assert_eq!(plan, Ok(None));
}

#[test]
fn error_result_mode_rejects_with_empty_args_and_keeps_fields() {
    let mut bad = call(Some("c1"), "t", raw(r#""[1,2]""#));
    bad.code_session_context = Some(v(r#"{"session_id":"s"}"#));
    bad.runtime_session_hint = Some("h".to_owned());
    let mut good = call(Some("c2"), "t", raw(r#""{\"q\":\"1\"}""#));
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
            vec![call(Some("c"), "t", raw(r#"{"n":"5"}"#))],
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
    assert_eq!(num(&coerce_v(i, r#""42""#)), 42.0);
    assert_eq!(
        num(&coerce_v(i, r#""-9007199254740991""#)),
        -9_007_199_254_740_991.0
    );
    let neg_zero = num(&coerce_v(i, r#""-0""#));
    assert!(neg_zero == 0.0 && neg_zero.is_sign_negative());
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
    assert_eq!(coerce_v(i, "7"), v("7")); // not a string: untouched
}

#[test]
fn number_rules() {
    for ty in [r#"{"type":"number"}"#, r#"{"type":"float"}"#] {
        assert_eq!(num(&coerce_v(ty, r#""2.5""#)), 2.5);
        assert_eq!(num(&coerce_v(ty, r#""1e+21""#)), 1e21);
        assert_eq!(num(&coerce_v(ty, r#""-0.000001""#)), -0.000_001);
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
    let table = include_str!("../../../../../tests/fixtures/js-number-coerce.tsv");
    let (mut rows, mut converted) = (0, 0);
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (text, flag) = line.rsplit_once('\t').unwrap();
        let got = coerce::coerce_number(text.to_owned());
        let want = flag == "1";
        match &got {
            Json::Number(n) => assert!(
                want && text.parse::<f64>().ok() == Some(json::number_value(n)),
                "{text:?} converted"
            ),
            Json::String(s) => assert!(!want && s == text, "{text:?} kept"),
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
        Json::Bool(true)
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
    let s =
        v(r#"{"type":"object","properties":{"a":null},"additionalProperties":{"type":"integer"}}"#);
    assert_eq!(
        coerce_args_for_schema(v(r#"{"a":"1"}"#), Some(&s)),
        v(r#"{"a":1}"#)
    );
}

#[test]
fn inherited_members_block_the_fallback() {
    let args =
        v(r#"{"constructor":"1","toString":"1","__proto__":"1","length":"1","0":"1","plain":"1"}"#);
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
        v(r#"{"0":"1","constructor":"1","toString":"1","__proto__":"1","length":"1","plain":1}"#)
    );
    // String: characters and "length" inert.
    assert_eq!(
        with_props(r#""ab""#),
        v(r#"{"0":"1","constructor":"1","toString":"1","__proto__":"1","length":"1","plain":1}"#)
    );
    // Own keys win over the prototype.
    assert_eq!(
        with_props(r#"{"constructor":{"type":"integer"}}"#)
            .as_object()
            .unwrap()
            .get("constructor"),
        Some(&v("1"))
    );
}

#[test]
fn rebuilt_objects_follow_object_entries_order() {
    let s = v(r#"{"type":"object"}"#);
    let out = coerce_args_for_schema(v(r#"{"b":1,"4294967295":2,"10":3,"2":4,"01":5}"#), Some(&s));
    let keys: Vec<&str> = out
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
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
        assert_eq!(
            (coerce::is_integer_text(s), coerce::is_number_text(s)),
            (int, num),
            "{s:?}"
        );
    }
}

#[test]
fn stable_stringify_equality() {
    assert!(record_args_equal(
        &v(r#"{"a":1,"b":[1,{"c":null}]}"#),
        &v(r#"{"b":[1,{"c":null}],"a":1}"#)
    ));
    assert!(record_args_equal(&v("-0"), &v("0")));
    assert!(record_args_equal(&v("-0.0"), &v("0")));
    assert!(record_args_equal(&v("1e400"), &Json::Null));
    assert!(record_args_equal(&v("1e400"), &v("-1e400")));
    assert!(record_args_equal(&v("1.0"), &v("1")));
    assert!(!record_args_equal(&v(r#"{"a":1}"#), &v(r#"{"a":1,"b":1}"#)));
    assert!(!record_args_equal(&v(r#"{"a":"1"}"#), &v(r#"{"a":1}"#)));
    assert!(!record_args_equal(&v("[1,2]"), &v("[2,1]")));
    assert!(!record_args_equal(&v("{}"), &v("[]")));
    assert!(record_args_equal(
        &v("0.30000000000000004"),
        &v("0.300000000000000044")
    ));
}
