//! CONTRIBUTING's recipe for a new operation, followed for one that is not in the registry (the
//! hardest case: new options and a new answer), to show that it takes nothing but the rule, the
//! function that runs it and its registry entry: `countFiles(key, options?)` counts the files of a
//! partition whose name ends in `options.suffix`. Its options and its answer are declared beside its
//! function (in the real registry: in its handler's file, listed in that file's `DECLARATIONS`), the
//! registry writes its dispatch and the reading of its arguments, and the generator its TypeScript
//! signature, its declarations and (being `[plain]`) its `Gate` method, with no edit anywhere else.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use code_session_gate::core::error::{GateError, GateResult};
use code_session_gate::core::json::{self, Raw, Str};
use code_session_gate::params::{Options, Params};
use code_session_gate::GateSession;

/// `countFiles`' options.
#[derive(Debug, Default, Deserialize, Tsify)]
pub struct CountOptions<'a> {
    /// Count only the files whose name ends so.
    #[serde(default, borrow)]
    #[tsify(type = "string")]
    suffix: Option<Raw<'a>>,
}

code_session_gate::core::from_members!(CountOptions { suffix });

/// `countFiles`' answer.
#[derive(Serialize, Tsify)]
pub struct FileCount {
    /// The files counted.
    files: usize,
}

/// The rule: how many of partition `key`'s files have a name that ends in `suffix`.
fn count(s: &GateSession, key: &str, suffix: &str) -> usize {
    let files = s
        .gate
        .sessions()
        .and_then(|m| m.get(key))
        .map(|e| e.files());
    files.map_or(0, |f| f.iter().filter(|f| f.name.ends_with(suffix)).count())
}

/// The function that runs it, its arguments typed as its registry entry reads them.
fn count_files(s: &mut GateSession, key: Str<'_>, options: CountOptions<'_>) -> GateResult<String> {
    let suffix: Option<Str<'_>> = options
        .suffix
        .map(|r| json::decode_member(r.get(), "options", "suffix"))
        .transpose()?;
    let files = count(s, &key, suffix.as_deref().unwrap_or(""));
    Ok(json::to_text(&FileCount { files }))
}

code_session_gate::registry! {
    gate {
        /// How many files partition `key` holds (those whose name ends in `options.suffix`).
        [plain]
        countFiles(key: Str<'_> as "string", #[optional] options: Options<CountOptions<'_>> as "CountOptions")
        -> "FileCount" => count_files;
    }
    core {}
    sandbox {}
}

/// A gate whose default partition holds `a.py` and `b.txt`.
fn session() -> Result<GateSession, GateError> {
    let config = r#"{"sessions":[["execute_code",{"session_id":"e","files":[{"id":"f1","name":"a.py"},{"id":"f2","name":"b.txt"}]}]]}"#;
    Ok(code_session_gate::new_gate(&[Some(config)])?.0)
}

/// What a test of the recipe fails with: a refusal where an answer was due, or the reverse.
type Outcome = Result<(), Box<dyn std::error::Error>>;

/// `countFiles(texts…)` as the module runs it.
/// (`Err` only when the registry does not hold the operation.)
fn call(s: &mut GateSession, texts: &[Option<&str>]) -> Result<GateResult<String>, String> {
    let at = GATE_OPS
        .iter()
        .position(|n| *n == "countFiles")
        .ok_or("countFiles is not in the registry")?;
    let names = GATE_PARAMS.get(at).ok_or("countFiles has no parameters")?;
    let op = u32::try_from(at).map_err(|e| e.to_string())?;
    run_gate(op, s, &Params::new(texts, names)).ok_or_else(|| format!("no gate operation {op}"))
}

/// The refusal of `answer`, or an error saying the call was answered.
fn refused(answer: GateResult<String>) -> Result<GateError, String> {
    match answer {
        Ok(text) => Err(format!("expected a refusal, got {text}")),
        Err(e) => Ok(e),
    }
}

#[test]
fn the_new_operation_runs_on_typed_arguments() -> Outcome {
    let mut s = session()?;
    let all = call(&mut s, &[Some(r#""execute_code""#), None])??;
    assert_eq!(all, r#"{"files":2}"#);
    let py = call(
        &mut s,
        &[Some(r#""execute_code""#), Some(r#"{"suffix":".py"}"#)],
    )??;
    assert_eq!(py, r#"{"files":1}"#);
    let e = refused(call(&mut s, &[None, None])?)?;
    assert_eq!((e.code.as_str(), e.path.as_str()), ("invalid_type", "key"));
    Ok(())
}

#[test]
fn its_options_follow_the_key_policy() -> Outcome {
    let mut s = session()?;
    // Another operation's key (or any other) is ignored; a misspelling of its own is refused.
    let other = call(&mut s, &[Some(r#""execute_code""#), Some(r#"{"now":5}"#)])??;
    assert_eq!(other, r#"{"files":2}"#);
    let e = refused(call(
        &mut s,
        &[Some(r#""execute_code""#), Some(r#"{"sufix":".py"}"#)],
    )?)?;
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("invalid_value", "options.sufix")
    );
    Ok(())
}

#[test]
fn the_generator_declares_it_from_the_entry_and_the_types() -> Outcome {
    let op = GATE.first().ok_or("the registry holds no gate operation")?;
    assert_eq!(
        crate::typescript::signature(op),
        "countFiles(key: string, options?: CountOptions): FileCount"
    );
    assert_eq!(
        crate::typescript::plain_method(op),
        "\n  countFiles(key, options) {\n    return callOp(this, 'countFiles', [key, options]);\n  }\n"
    );
    assert!(
        CountOptions::DECL.contains("suffix?: string;"),
        "{}",
        CountOptions::DECL
    );
    assert!(
        FileCount::DECL.contains("files: number;"),
        "{}",
        FileCount::DECL
    );
    assert_eq!(GATE_PARAMS.first().copied(), Some(&["key", "options"][..]));
    Ok(())
}
