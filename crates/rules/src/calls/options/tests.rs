use super::*;
use crate::calls::artifact::{finish_artifact, read_fold_artifact};
use crate::config::Profile;

/// What the checked reader gives for `text` as `results` (`None`: it refuses).
fn checked(text: &str) -> Option<Vec<ToolResult<'_>>> {
    let read: Option<Vec<Obj<ToolResult<'_>>>> = json::decode(text, "results").ok()?;
    Some(read.unwrap_or_default().into_iter().map(|o| o.0).collect())
}

/// The options text read by the checked reading alone (what the one-pass reading is held to).
fn read_checked(text: &str) -> GateResult<Handling<'_>> {
    json::read_members::<CompleteEventBatchOptions<'_>>(Some(text), "options").map(|o| Handling {
        now: o.now,
        requests: o.requests,
        results: o.results,
        rejected: o.rejected,
        read_results: None,
    })
}

const COMPLETE: [&str; 4] = ["now", "requests", "results", "rejected"];

/// Every results text the scanner takes reads as the checked reader reads it; what it does not
/// take (escapes, repeated keys, odd values) is left to the checked reader.
#[test]
fn the_scanner_reads_results_as_the_checked_reader_does() {
    let artifact = r#"{"session_id":"e","files":[{"id":"f","name":"a\n.txt"}]}"#;
    let plain = r#"{"stdout":"x\ty","session_id":"e","files":[{"id":"f","name":"a.txt","inherited":true}]}"#;
    let cases = [
        format!(r#"[{{"toolCallId":"c1","status":"success","artifact":{plain}}}]"#),
        format!(r#"[{{"toolCallId":"c1","status":"success","artifact":{artifact}}},{{"toolCallId":"c2","status":"success","artifact":{{"session_id":"e","files":null,"deleted_files":["x"],"stdout":"a\"b"}}}}]"#),
        r#"[{"toolCallId":"c1","status":"success","artifact":{"files":"x","session_id":"e","deleted_files":[1]}}]"#.to_owned(),
        format!(r#"[{{"artifact":{artifact},"content":[{{"type":"text","text":"x\"y"}}],"status":"error","toolCallId":"c1"}}]"#),
        r#"[{"toolCallId":"c1","status":"success","artifact":null}]"#.to_owned(),
        r#"[{"toolCallId":"c1","status":"success"},{"toolCallId":"c2","status":"error","artifact":"text"}]"#.to_owned(),
        r#"[ { "toolCallId" : "c1" , "status" : "success" , "artifact" : [ 1 , { } ] } ]"#.to_owned(),
        r#"[]"#.to_owned(),
        r#"null"#.to_owned(),
        r#"{}"#.to_owned(),
        r#"[1]"#.to_owned(),
        r#"[[]]"#.to_owned(),
        r#"[{"toolCallId":"c1"}]"#.to_owned(),
        r#"[{"status":"success"}]"#.to_owned(),
        r#"[{"toolCallId":"c1","status":"done"}]"#.to_owned(),
        r#"[{"toolCallId":"c1","status":"success","status":"error"}]"#.to_owned(),
        r#"[{"toolCallId":"c1","toolCallId":"c2","status":"success"}]"#.to_owned(),
        r#"[{"toolCallId":"c1","status":"success","artifact":null,"artifact":{}}]"#.to_owned(),
        r#"[{"toolCallId":"c1","status":"success","x":1,"x":2}]"#.to_owned(),
        r#"[{"toolCallId":"c\u0031","status":"success"}]"#.to_owned(),
        r#"[{"toolCall\u0049d":"c1","status":"success"}]"#.to_owned(),
        r#"[{"toolCallId":null,"status":"success"}]"#.to_owned(),
        r#"[{"toolCallId":5,"status":"success"}]"#.to_owned(),
        r#"[{"toolCallId":"c1","status":null}]"#.to_owned(),
    ];
    let (mut plain, mut scanned_artifacts) = (0, 0);
    for text in &cases {
        let raw: &RawJson = serde_json::from_str(text).unwrap();
        let read = read_plain_results(raw);
        plain += usize::from(read.is_some());
        if let Some(read) = read {
            // An artifact read in place is the artifact its text reads as.
            for r in &read {
                let Some(scanned) = r.scanned.take() else {
                    continue;
                };
                let at = Path::root("artifact");
                let text = r.artifact.as_ref().unwrap().get();
                for profile in [Profile::V3_6, Profile::V3_9] {
                    let from_text = read_fold_artifact(text, profile, &at, None);
                    let again = ScannedArtifact::new(scanned.clone());
                    assert_eq!(
                        finish_artifact(again.take().unwrap(), profile, &at),
                        from_text
                    );
                }
                scanned_artifacts += 1;
            }
            assert_eq!(Some(read), checked(text), "{text}");
        }
    }
    assert_eq!(plain, 9, "the scanner took {plain} of the plain cases");
    assert_eq!(scanned_artifacts, 3, "artifacts read in place");
}

/// Through the options: the same handling, and the same refusal where the scanner gives up.
#[test]
fn options_handle_results_the_same_either_way() {
    let good =
        r#"{"results":[{"toolCallId":"c1","status":"success","artifact":{"session_id":"e"}}]}"#;
    let (_, HostAnswer::Resolved(results)) = CompleteEventBatchOptions::read(Some(good), None)
        .unwrap()
        .handling()
        .unwrap()
    else {
        panic!("resolved expected");
    };
    assert_eq!(results.len(), 1);
    assert_eq!(
        results[0].artifact.as_ref().map(CheckedText::get),
        Some(r#"{"session_id":"e"}"#)
    );
    let bad = r#"{"results":[{"toolCallId":"c1","status":"done"}]}"#;
    let e = CompleteEventBatchOptions::read(Some(bad), None)
        .unwrap()
        .handling()
        .unwrap_err();
    assert_eq!(e.path, "options.results[0].status");
}

/// The options read in one pass read as the checked reading reads them (`now`, the handling),
/// and anything unusual is left to the checked reading, which refuses what it refuses.
#[test]
fn options_read_in_one_pass_as_the_checked_reading_does() {
    let result = r#"{"toolCallId":"c1","status":"success","artifact":{"session_id":"e","files":[{"id":"f","name":"a.txt"}]}}"#;
    let cases = [
        format!(
            r#"{{"requests":[{{"id":"c1","unchanged":true}}],"results":[{result}],"now":5}}"#
        ),
        format!(
            r#"{{"results":[{result},{result}],"now":1e3,"codeSessionKey":"k","threadId":"t"}}"#
        ),
        format!(
            r#" {{ "now" : 5 , "results" : [ {result} ] , "other" : {{"deep":[1,"\ud83d\ude00"]}} }} "#
        ),
        format!(r#"{{"results":[{result}],"rejected":true,"now":5}}"#),
        r#"{"results":null,"now":null,"codeSessionKey":null}"#.to_owned(),
        r#"{"results":[{"toolCallId":"c1","status":"error","artifact":"text","x":[{}]}],"now":5}"#.to_owned(),
        r#"{"now":"soon","results":[]}"#.to_owned(),
        r#"{"now":5}"#.to_owned(),
        r#"{}"#.to_owned(),
        // Left to the checked reading (it reads or refuses each).
        format!(r#"{{"results":[{result}],"results":[],"now":5}}"#),
        r#"{"now":5,"now":6}"#.to_owned(),
        format!(r#"{{"reslts":[{result}],"now":5}}"#),
        r#"{"Now":5}"#.to_owned(),
        r#"{"n\u006fw":5}"#.to_owned(),
        r#"{"now":5,"other":"\ud800"}"#.to_owned(),
        r#"{"now":5,"other":[1,]}"#.to_owned(),
        r#"{"now":5,"results":[{"toolCallId":"c1","status":"done"}]}"#.to_owned(),
        r#"{"now":5,"results":{}}"#.to_owned(),
        r#"{"now":5,"results":[{"toolCallId":"c1","status":"success","artifact":{"files":[{"id":"f","name":"\ud800"}]}}]}"#.to_owned(),
        r#"{"now":5,"results":[{"toolCallId":"c1","status":"success","artifact":{"files":[1,]}}]}"#.to_owned(),
        r#"{"now":5} x"#.to_owned(),
        r#"{"now":5,"other":"a	b"}"#.to_owned(),
        r#"null"#.to_owned(),
        r#"[]"#.to_owned(),
    ];
    let mut in_one_pass = 0;
    for text in &cases {
        let checked = read_checked(text);
        let Some(one) = Handling::read_in_one_pass(text, None, &COMPLETE, true) else {
            let read = CompleteEventBatchOptions::read(Some(text), None)
                .map(|o| format!("{:?}", o.handling()));
            assert_eq!(
                read,
                checked.map(|o| format!("{:?}", o.handling())),
                "{text}"
            );
            continue;
        };
        in_one_pass += 1;
        let checked =
            checked.unwrap_or_else(|e| panic!("{text}: the checked reading refuses: {e:?}"));
        assert_eq!(
            format!("{:?}", one.now()),
            format!("{:?}", checked.now()),
            "{text}"
        );
        assert_eq!(
            format!("{:?}", one.handling()),
            format!("{:?}", checked.handling()),
            "{text}"
        );
    }
    assert_eq!(in_one_pass, 9, "read in one pass");
}

/// A key of another operation's options is an unknown key here: `settleEager` ignores `now` (of
/// `completeEventBatch`), which is passed over in one pass as in the checked reading, while a
/// misspelling of one of its own keys is refused.
#[test]
fn another_operations_key_is_an_unknown_key() {
    let read = SettleEagerOptions::read(Some(r#"{"now":"soon","rejected":true}"#), None).unwrap();
    assert!(matches!(read.handling(), Ok((_, HostAnswer::Rejected))));
    let checked: SettleEagerOptions<'_> =
        json::read_members(Some(r#"{"now":"soon","rejected":true}"#), "options").unwrap();
    assert!(checked.rejected.is_some() && checked.requests.is_none());
    let e = SettleEagerOptions::read(Some(r#"{"reslts":[]}"#), None).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("invalid_value", "options.reslts")
    );
    let e = CompleteEventBatchOptions::read(Some(r#"{"now":"soon"}"#), None)
        .unwrap()
        .now()
        .unwrap_err();
    assert_eq!(e.path, "options.now");
}
