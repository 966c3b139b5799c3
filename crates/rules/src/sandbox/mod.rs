//! Forwarding a call to a sandbox server ourselves (additive: the SDK has no such layer). A host that
//! is not the SDK (an edge worker, a devtools page) asks the gate for a call's context as usual, then:
//!
//! - [`build_sandbox_request`] turns the call into the `/exec` request of one of two server
//!   [`Dialect`]s, for built-in code tools and host-declared session tools alike: the host says what
//!   runs, the gate supplies the session, the files and the runtime hint from the context it built.
//!   Fields only the gate may set are dropped from the model's arguments ([`trusted`]), and every file
//!   ref is checked against the server's rules first: what the server would refuse is repaired where
//!   the servers' rules say how, or left out, and reported ([`refs`]) — one bad file never fails a call;
//! - [`read_sandbox_response`] reads the HTTP status and body text into the artifact to fold, or into
//!   a typed refusal ([`ErrorCode::InvalidRequest`] … [`ErrorCode::BadResponse`]) that folds nothing.
//!
//! The two dialects (`../shared/spec/hosts-and-wire.md` §3.3):
//! - `codeapi` (the official Code API): mints a fresh exec session per call and ignores a request
//!   `session_id`, so continuity is only the `files` refs; it validates and authorizes every ref
//!   (`kind`, `resource_id`, `version` decide its storage key); auth is `Authorization: Bearer`.
//! - `librecodeinterpreter` (self-hosted): reuses the request `session_id` and mounts every file
//!   already in it; refs need only `id`, `name` and a storage session; auth is `x-api-key`.
//!
//! [`ErrorCode::InvalidRequest`]: super::error::ErrorCode::InvalidRequest
//! [`ErrorCode::BadResponse`]: super::error::ErrorCode::BadResponse

mod options;
pub mod refs;
mod request;
mod response;
pub mod trusted;
pub mod written;

pub use options::{
    ForwardRequestOptions, SandboxInput, SandboxRequestOptions, Target, ANSWER_FLAGS,
};
pub use request::{
    build_forwarded_request, build_sandbox_request, ExecBody, PlannedSession, SandboxRequest,
    DIRECT_KEYS, EVENT_KEYS,
};
pub use response::{
    read_sandbox_response, read_sandbox_response_recalling, ArtifactOut, RunReport, RunStop,
    SandboxAnswer,
};

/// The TypeScript declarations of the sandbox requests' options and of the requests and answers,
/// derived from the types that read and write them.
#[cfg(feature = "typescript")]
pub const DECLARATIONS: [&str; 8] = {
    use tsify::Tsify;
    [
        SandboxRequestOptions::DECL,
        request::Run::DECL,
        request::Context::DECL,
        ForwardRequestOptions::DECL,
        SandboxRequest::DECL,
        refs::RefNote::DECL,
        refs::SentRef::DECL,
        RunReport::DECL,
    ]
};

use super::error::{ErrorCode, GateError, GateResult, Path};

crate::names::named! {
    /// Which server `/exec` speaks to.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Dialect;
    /// The dialect's name.
    fn as_str {
        /// The official Code API (`LibreChat-AI/code-interpreter`).
        CodeApi = "codeapi",
        /// `usnavy13/LibreCodeInterpreter`.
        LibreCodeInterpreter = "librecodeinterpreter",
    }
}

impl Dialect {
    /// Reads `"codeapi"` or `"librecodeinterpreter"`.
    pub fn parse(name: &str, path: &Path<'_>) -> GateResult<Dialect> {
        match name {
            "codeapi" => Ok(Dialect::CodeApi),
            "librecodeinterpreter" => Ok(Dialect::LibreCodeInterpreter),
            other => Err(GateError::new(
                ErrorCode::InvalidValue,
                path,
                format!("unknown sandbox dialect {other:?} (known: \"codeapi\", \"librecodeinterpreter\")"),
            )),
        }
    }
}

#[cfg(test)]
mod tests;
