//! Unit tests (compiled only with `cfg(test)`; the crate allows unwrap, expect and panic there).
#![cfg(test)]

use super::text::lone_surrogate_at;
use super::*;

#[test]
fn lone_surrogates_are_found_by_a_linear_scan_at_any_depth() {
    let cases: [(&str, Option<usize>); 8] = [
        (r#""\ud83d\ude00""#, None),
        (r#""\ud83d""#, Some(1)),
        (r#""\ude00""#, Some(1)),
        (r#""a\\ud800""#, None),
        (r#"["\ud800x"]"#, Some(2)),
        (r#""\u0041\n\"""#, None),
        (r#""\ud83d\u0041""#, Some(1)),
        (r#"{"k":"\uDBFF\uDFFF","l":"\uDC01"}"#, Some(25)),
    ];
    for (text, at) in cases {
        assert_eq!(lone_surrogate_at(text.as_bytes()), at, "{text}");
    }
    // Deeper than any recursion could go: found all the same, without a stack.
    let deep = format!("{}\"\\ud800\"{}", "[".repeat(200_000), "]".repeat(200_000));
    assert_eq!(lone_surrogate_at(deep.as_bytes()), Some(200_001));
}
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Inner<'a> {
    #[serde(borrow)]
    id: Str<'a>,
}

#[derive(Debug, Deserialize)]
struct Args<'a> {
    #[serde(borrow)]
    files: Vec<Inner<'a>>,
}

fn err(text: &str) -> (ErrorCode, String) {
    let e = decode::<Args>(text, "").unwrap_err();
    (e.code, e.path)
}

#[test]
fn decode_borrows_unescaped_strings() -> GateResult<()> {
    let a: Args = decode(r#"{"files":[{"id":"x"},{"id":"a\nb"}]}"#, "")?;
    assert!(matches!(a.files[0].id, Str::Borrowed("x")));
    assert_eq!(a.files[1].id.as_str(), "a\nb");
    Ok(())
}

#[test]
fn decode_errors_name_the_offending_value() {
    assert_eq!(
        err(r#"{"files":[{"id":"x"},{"id":1}]}"#),
        (ErrorCode::InvalidType, "files[1].id".into())
    );
    assert_eq!(
        err(r#"{"files":[{}]}"#),
        (ErrorCode::MissingField, "files[0].id".into())
    );
    assert_eq!(
        err(r#"{"files":[{"id":"x","idd":2}]}"#),
        (ErrorCode::InvalidValue, "files[0].idd".into())
    );
    assert_eq!(
        err(r#"{"files":[{"id":"\udfff"}]}"#),
        (ErrorCode::LoneSurrogate, "files[0].id".into())
    );
    assert_eq!(
        err(r#"{"files":[{"id":"\ud800x"}]}"#),
        (ErrorCode::LoneSurrogate, "files[0].id".into())
    );
    assert_eq!(err(r#"{"files":[{"id":"x"}"#).0, ErrorCode::InvalidJson);
}

#[test]
fn records_refuse_what_is_not_an_object_where_it_stands() -> GateResult<()> {
    #[derive(Debug, Deserialize)]
    struct Records<'a> {
        #[serde(borrow)]
        files: Vec<Obj<Inner<'a>>>,
    }
    let refused = |text: &str| {
        let e = decode::<Records>(text, "results").unwrap_err();
        (e.code, e.path, e.message)
    };
    // A derived struct would read an array positionally; a record refuses it, named by its place.
    let (code, path, message) = refused(r#"{"files":[{"id":"a"},["b"]]}"#);
    assert_eq!(
        (code, path.as_str()),
        (ErrorCode::InvalidType, "results.files[1]")
    );
    assert_eq!(message, "expected an object, got array");
    let (code, path, message) = refused(r#"{"files":[{"id":"a"}, "b"]}"#);
    assert_eq!(
        (code, path.as_str()),
        (ErrorCode::InvalidType, "results.files[1]")
    );
    assert_eq!(message, "expected an object, got string");
    let (code, path, _) = refused(r#"{"files":[null]}"#);
    assert_eq!(
        (code, path.as_str()),
        (ErrorCode::InvalidType, "results.files[0]")
    );
    // Errors inside a record keep their own place.
    let (code, path, _) = refused(r#"{"files":[{"id":"a"},{"id":2}]}"#);
    assert_eq!(
        (code, path.as_str()),
        (ErrorCode::InvalidType, "results.files[1].id")
    );
    let ok: Records = decode(r#"{"files":[{"id":"a"},{"id":"b"}]}"#, "results")?;
    assert_eq!(ok.files[1].0.id.as_str(), "b");
    Ok(())
}

#[test]
fn parse_follows_json_parse_and_keeps_number_text() -> GateResult<()> {
    let v = parse(
        r#" {"b": [1, -2.50e1, true, null], "a": 1e400} "#,
        &Path::root("t"),
    )?;
    // Numbers keep their digits (serde_json spells the exponent sign out); JSON.parse reads the same.
    assert_eq!(v.to_string(), r#"{"b":[1,-2.50e+1,true,null],"a":1e+400}"#);
    for bad in ["", "{", "[1,]", "01", "1.", "NaN", "[1] x", "{a:1}", "'x'"] {
        assert_eq!(
            parse(bad, &Path::root("t")).unwrap_err().code,
            ErrorCode::InvalidJson,
            "{bad:?}"
        );
    }
    assert_eq!(
        parse(r#""\ud800""#, &Path::root("t")).unwrap_err().code,
        ErrorCode::LoneSurrogate
    );
    Ok(())
}

#[test]
fn depth_is_checked_before_parsing() {
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(parse(&ok, &Path::root("t")).is_ok());
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert_eq!(
        parse(&deep, &Path::root("t")).unwrap_err().code,
        ErrorCode::InvalidValue
    );
    let in_string = format!(r#"["{}"]"#, "[".repeat(MAX_DEPTH + 5));
    assert!(!nests_deeper_than(&in_string, MAX_DEPTH));
}

#[test]
fn numbers_from_doubles_print_as_javascript_reads_them() {
    assert_eq!(number_from_f64(15000.0).to_string(), "15000");
    assert_eq!(number_from_f64(-0.0).to_string(), "-0.0");
    assert_eq!(
        number_value(&Number::from_f64(1.5).unwrap_or_else(|| Number::from(0))),
        1.5
    );
}

#[test]
fn a_host_text_nesting_past_the_limit_is_refused_at_the_first_value_past_it() {
    let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
    assert!(check_host_depth(&nested(MAX_DEPTH), "results").is_ok());
    let e = check_host_depth(&nested(MAX_DEPTH + 1), "results").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidValue);
    assert_eq!(e.path, format!("results{}", "[0]".repeat(MAX_DEPTH)));
    // Brackets inside strings (escaped quotes included) do not nest.
    let in_strings = format!(
        r#"{{"a":"{}\"{}","b":[1]}}"#,
        "[".repeat(300),
        "{".repeat(300)
    );
    assert!(check_host_depth(&in_strings, "x").is_ok());
    let under_key = format!(r#"{{"a":[1],"k":{}}}"#, nested(MAX_DEPTH));
    let e = check_host_depth(&under_key, "artifact").unwrap_err();
    // `k`'s array is level 2, so the first level past the limit is 255 arrays inside it.
    assert_eq!(e.path, format!("artifact.k{}", "[0]".repeat(MAX_DEPTH - 1)));
}
