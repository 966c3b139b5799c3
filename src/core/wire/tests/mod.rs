use super::identifiers::{normalize_to_bash_identifier, normalize_to_python_identifier};
use super::*;
use crate::core::json::{self, Json, JsonMap};

fn j(text: &str) -> Json {
    json::parse(text, &Path::root("test")).unwrap()
}

fn build(
    profile: Profile,
    tool: &str,
    factory: &str,
    call: &str,
    args: &str,
) -> GateResult<ExecRequest> {
    build_exec_request(profile, tool, &j(factory), &j(call), &j(args))
}

fn ok(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> ExecRequest {
    match build(profile, tool, factory, call, args) {
        Ok(r) => r,
        Err(e) => panic!("{tool} {factory} {call} {args}: {e}"),
    }
}

fn err(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> GateError {
    match build(profile, tool, factory, call, args) {
        Ok(r) => panic!("expected an error, got {r:?}"),
        Err(e) => e,
    }
}

fn body(r: &ExecRequest) -> Json {
    Json::Object(r.body.clone())
}

fn header<'r>(r: &'r ExecRequest, name: &str) -> Option<&'r str> {
    r.headers
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.as_str())
}

fn keys(o: &JsonMap) -> Vec<&str> {
    o.iter().map(|(k, _)| k.as_str()).collect()
}

fn read(
    profile: Profile,
    tool: &str,
    factory: &str,
    endpoint: Option<&str>,
    resp: &str,
) -> GateResult<ExecOutcome> {
    read_exec_response(profile, tool, &j(factory), endpoint, &j(resp))
}

fn artifact(
    profile: Profile,
    tool: &str,
    factory: &str,
    endpoint: Option<&str>,
    resp: &str,
) -> Json {
    match read(profile, tool, factory, endpoint, resp) {
        Ok(ExecOutcome::Completed { artifact }) => Json::Object(artifact),
        other => panic!("expected an artifact, got {other:?}"),
    }
}

const BOTH: [Profile; 2] = [Profile::V3_6, Profile::V3_9];
const HELPER: &str = r#"{"toolDefs":[{"name":"h"}]}"#;
const GUARD: &str = ": &\nwait \"$!\"\n";

mod answers;
mod bodies;
mod programmatic;
