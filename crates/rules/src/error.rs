//! The one error type of the gate: a stable code, the path of the offending input, and a message.
//!
//! Every refusal is decided before any state changes, so an `Err` always means "nothing happened".

use std::fmt;

/// Declares [`ErrorCode`] from one list of `Variant = "code"` entries: the enum, its stable strings
/// and [`ALL_CODES`], so that a code is written once.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal,)*) => {
        /// What kind of refusal this is. [`ErrorCode::as_str`] is the stable `code` hosts match on.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            /// The stable string form, e.g. `"invalid_type"`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }
        }

        /// Every code, in declaration order.
        pub const ALL_CODES: &[ErrorCode] = &[$(ErrorCode::$variant,)*];
    };
}

error_codes! {
    /// A value has the wrong type (a file `id` that is not a string, a tool list that is not an array).
    InvalidType = "invalid_type",
    /// A required key is absent.
    MissingField = "missing_field",
    /// A value has the right type but is not allowed (a non-finite `version`, an unknown profile).
    InvalidValue = "invalid_value",
    /// A string holds an unpaired UTF-16 surrogate, which cannot be compared faithfully.
    LoneSurrogate = "lone_surrogate",
    /// A JSON text does not parse.
    InvalidJson = "invalid_json",
    /// The request planner gave up on an event batch (a call with an empty id or name), as the SDK throws.
    PlanAborted = "plan_aborted",
    /// A batch id that is not pending (never begun, or already completed).
    UnknownBatch = "unknown_batch",
    /// An event batch consumed an eager prestart whose outcome was never settled.
    EagerUnsettled = "eager_unsettled",
    /// The programmatic tools could not select the tools the code may call.
    ToolSelection = "tool_selection",
    /// A tool factory parameter is refused (e.g. a malformed workspace id).
    InvalidFactory = "invalid_factory",
    /// The model's arguments do not fit the tool's schema.
    InvalidModelArgs = "invalid_model_args",
    /// The sandbox answered with an error or an unusable body.
    SandboxError = "sandbox_error",
    /// The module trapped earlier; the gate refuses every call from then on.
    Poisoned = "poisoned",
    /// The gate was freed (or its handle names no gate of this instance).
    Freed = "freed",
    /// The sandbox refused the request as malformed (HTTP 400 or 422).
    InvalidRequest = "invalid_request",
    /// The sandbox refused the credentials (HTTP 401).
    Unauthorized = "unauthorized",
    /// The sandbox refused a file reference of the request (HTTP 403).
    ForbiddenFileRef = "forbidden_file_ref",
    /// The sandbox runs another execution profile than the request expects (HTTP 409).
    ProfileMismatch = "profile_mismatch",
    /// The sandbox's runtime session is running another call (codeapi's 409 `runtime_session_busy`):
    /// retry once it ends.
    SandboxBusy = "sandbox_busy",
    /// The call's input files are more than the sandbox delivers (HTTP 413, codeapi's
    /// `session_input_too_large`).
    InputTooLarge = "input_too_large",
    /// One of the call's input files cannot be had (codeapi's 422 `session_input_unavailable`).
    InputUnavailable = "input_unavailable",
    /// The sandbox asks the caller to slow down (HTTP 429), possibly saying for how long.
    RateLimited = "rate_limited",
    /// The sandbox is failing or unreachable for now (HTTP 5xx, or an error body after a keep-alive).
    Unavailable = "unavailable",
    /// The sandbox's answer is not one the gate can read (not JSON, truncated, wrong shape, odd status).
    BadResponse = "bad_response",
    /// A snapshot was written under another configuration than the one it is loaded with.
    ConfigMismatch = "config_mismatch",
    /// A snapshot of a format version this build does not read.
    UnsupportedVersion = "unsupported_version",
    /// An input over one of the gate's limits ([`crate::limits`]).
    LimitExceeded = "limit_exceeded",
}

impl ErrorCode {
    /// The code whose [`ErrorCode::as_str`] is `s` (`invalid_value` for anything unknown).
    pub fn parse(s: &str) -> ErrorCode {
        ALL_CODES
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .unwrap_or(ErrorCode::InvalidValue)
    }
}

/// A refused input: `code`, the dotted `path` of the offending value (`"sessions[0][1].files[2].id"`),
/// and a sentence for humans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateError {
    /// The stable kind.
    pub code: ErrorCode,
    /// Where in the input the problem is; empty when it concerns the call as a whole.
    pub path: String,
    /// What is wrong, in words.
    pub message: String,
    /// For a sandbox's refusal: what it answered (HTTP status, retry-after).
    pub sandbox: Option<SandboxFailure>,
}

/// The HTTP facts of a sandbox's refusal, carried on its [`GateError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxFailure {
    /// The HTTP status (200 for an error body that arrived after a keep-alive).
    pub status: u16,
    /// Whole seconds to wait before retrying, when the sandbox said (rounded up).
    pub retry_after_seconds: Option<u64>,
}

impl GateError {
    /// An error of `code` at `path`.
    pub fn new(code: ErrorCode, path: &Path<'_>, message: impl Into<String>) -> Self {
        GateError {
            code,
            path: path.render(),
            message: message.into(),
            sandbox: None,
        }
    }

    /// An error of `code` that concerns a call as a whole (no path).
    pub fn general(code: ErrorCode, message: impl Into<String>) -> Self {
        GateError {
            code,
            path: String::new(),
            message: message.into(),
            sandbox: None,
        }
    }

    /// `expected <what>, got <type>` at `path`.
    pub fn expected(path: &Path<'_>, what: &str, got: &str) -> Self {
        GateError::new(
            ErrorCode::InvalidType,
            path,
            format!("expected {what}, got {got}"),
        )
    }

    /// A required key missing at `path`.
    pub fn missing(path: &Path<'_>) -> Self {
        GateError::new(ErrorCode::MissingField, path, "is required")
    }
}

impl fmt::Display for GateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for GateError {}

/// Result alias for fallible gate operations.
pub type GateResult<T> = Result<T, GateError>;

/// One step of a path.
#[derive(Debug, Clone, Copy)]
enum Segment<'a> {
    Root(&'a str),
    Key(&'a str),
    Index(usize),
}

/// The location of a value inside a call's input, built on the stack while validating and only rendered
/// into a string when an error is reported.
#[derive(Debug, Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
}

impl<'a> Path<'a> {
    /// A path starting at the argument called `name` (empty for "the call itself").
    pub fn root(name: &'a str) -> Path<'a> {
        Path {
            parent: None,
            segment: Segment::Root(name),
        }
    }

    /// The member `key` of this value.
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            segment: Segment::Key(key),
        }
    }

    /// The item `index` of this array.
    pub fn index(&'a self, index: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }

    /// The path as text: `sessions[0][1].files[2].id`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    fn render_into(&self, out: &mut String) {
        if let Some(parent) = self.parent {
            parent.render_into(out);
        }
        match self.segment {
            Segment::Root(name) => out.push_str(name),
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_keys_and_indices() {
        let root = Path::root("sessions");
        let pair = root.index(0);
        let entry = pair.index(1);
        let files = entry.key("files");
        let file = files.index(2);
        assert_eq!(file.key("id").render(), "sessions[0][1].files[2].id");
        assert_eq!(Path::root("").key("name").render(), "name");
    }

    #[test]
    fn display_prefixes_the_path() {
        let e = GateError::expected(&Path::root("file").key("id"), "a string", "number");
        assert_eq!(e.to_string(), "file.id: expected a string, got number");
        assert_eq!(e.code.as_str(), "invalid_type");
    }
}
