//! Files and sessions: the wire ref, the stored file, a partition's entry and a session map.

use super::OtherKeys;

/// Fields every wire file ref carries.
#[derive(tsify::Tsify)]
pub(crate) struct CodeEnvFileBase {
    /// Storage file id.
    id: String,
    /// Owner of the file's storage session (skill `_id`, agent id; informational for `user`).
    resource_id: String,
    /// File name (path under /mnt/data).
    name: String,
    /// Long-lived storage bucket of the file (not the exec session).
    storage_session_id: String,
}

/// The wire shape of one input file: a skill file is pinned to a `version`; agent and user files
/// carry none.
#[derive(tsify::Tsify)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum CodeEnvFile {
    Skill {
        #[serde(flatten)]
        base: CodeEnvFileBase,
        version: f64,
    },
    Agent {
        #[serde(flatten)]
        base: CodeEnvFileBase,
        #[tsify(optional, type = "never")]
        version: Option<()>,
    },
    User {
        #[serde(flatten)]
        base: CodeEnvFileBase,
        #[tsify(optional, type = "never")]
        version: Option<()>,
    },
}

/// A file the session knows of, as stored in a partition (`FileRef`). Unknown keys ride along.
#[derive(tsify::Tsify)]
pub(crate) struct FileRef {
    id: String,
    name: String,
    #[serde(default)]
    resource_id: Option<String>,
    #[serde(default)]
    storage_session_id: Option<String>,
    #[serde(default)]
    #[tsify(type = "CodeEnvKind | (string & {}) | null")]
    kind: Option<String>,
    #[serde(default)]
    version: Option<f64>,
    #[tsify(optional)]
    path: Option<String>,
    #[tsify(optional, type = "true")]
    inherited: Option<bool>,
    #[serde(flatten)]
    other: OtherKeys,
}

/// One partition's entry (`CodeSessionContext`). `session_id` is absent only in malformed seeds,
/// which the SDK tolerates.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CodeSessionContext {
    #[tsify(optional)]
    #[serde(rename = "session_id")]
    session_id: Option<String>,
    #[tsify(optional)]
    files: Option<Vec<FileRef>>,
    #[tsify(optional)]
    last_updated: Option<f64>,
    #[serde(flatten)]
    other: OtherKeys,
}

/// A session map as ordered `[partitionKey, entry]` pairs (the order of a JavaScript `Map`).
#[derive(tsify::Tsify)]
#[serde(transparent)]
pub(crate) struct SessionPairs(Vec<(String, CodeSessionContext)>);

/// An artifact as the fold reads it.
#[derive(tsify::Tsify)]
pub(crate) struct SessionArtifact {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    files: Option<Vec<FileRef>>,
    #[serde(default)]
    deleted_files: Option<Vec<String>>,
    #[serde(flatten)]
    other: OtherKeys,
}
