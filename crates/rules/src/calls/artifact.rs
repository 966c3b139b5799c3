//! A result's artifact as the fold reads it (`session_id`, `files`, 3.9's `deleted_files`), from its JSON
//! text: by the scanner when it has the plain shape sandboxes write, else by the checked reader, which
//! names every refusal. Both give the same artifact (the tests hold them to each other).

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::config::Profile;
use crate::error::{GateResult, Path};
use crate::files::recall::ReadMemo;
use crate::files::scan::{read_whole, Scan};
use crate::files::FileRef;
use crate::json::{self, RawJson, Str};
use crate::sessions::merge::Artifact;

/// The parts of an artifact the fold reads, decoded from its JSON text (a value checked when it was
/// captured: [`crate::json::CheckedText`], [`crate::json::RawText`]): `None` when it has no usable
/// `session_id` (missing, `null`, `""`, or the artifact is not an object) — then `files` are ignored and
/// nothing is validated, as the SDK never looks at them.
/// Its files are read against `memo` when given (see [`crate::files::recall::ReadMemo`]).
pub fn read_fold_artifact<'a>(
    artifact: &'a str,
    profile: Profile,
    path: &Path<'_>,
    memo: Option<&ReadMemo>,
) -> GateResult<Option<Artifact<'a>>> {
    if !artifact.starts_with('{') {
        return Ok(None);
    }
    let read: ArtifactInput<'a> = match read_plain_artifact(artifact, memo) {
        Some(read) => read,
        None => json::decode(artifact, &path.render())?,
    };
    finish_artifact(read, profile, path)
}

/// An artifact of the plain shape (no escape in its keys or its `session_id`, plain files: see
/// [`crate::files::scan::read_plain_object`]) read in one pass, its files with it, as [`ArtifactInput`]'s `Deserialize`
/// reads it; `None` for anything else, which the checked reader then reads and refuses by name.
fn read_plain_artifact<'a>(text: &'a str, memo: Option<&ReadMemo>) -> Option<ArtifactInput<'a>> {
    read_whole(text, |s| read_plain_artifact_at(s, memo))
}

/// [`read_plain_artifact`] of the object at the scanner (which is left past it), its files read
/// against `memo` when given.
// One copy for its callers (a whole artifact text, one in place among results): the module's size.
#[inline(never)]
pub(super) fn read_plain_artifact_at<'a>(
    s: &mut Scan<'a>,
    memo: Option<&ReadMemo>,
) -> Option<ArtifactInput<'a>> {
    let mut out = ArtifactInput {
        session_id: None,
        files: None,
        deleted_files: None,
    };
    s.object(|key, s| {
        if key == "files" && s.peek()? == b'[' {
            out.files = Some(FilesInput::Read(s.files_remembered(memo)?));
            return Some(());
        }
        if !matches!(key, "session_id" | "files" | "deleted_files") {
            s.skip()?;
            return Some(());
        }
        let raw = s.raw_value()?;
        match key {
            "session_id" if json::is_null(raw) => out.session_id = None,
            "session_id" => {
                let id = raw.get().strip_prefix('"')?.strip_suffix('"')?;
                if id.contains('\\') {
                    return None;
                }
                out.session_id = (!id.is_empty()).then_some(Str::Borrowed(id));
            }
            "files" => out.files = (!json::is_null(raw)).then_some(FilesInput::Later(raw)),
            "deleted_files" => out.deleted_files = (!json::is_null(raw)).then_some(raw),
            _ => {}
        }
        Some(())
    })?;
    Some(out)
}

/// The artifact of an [`ArtifactInput`] (`path`: its path, for refusals in the parts read late).
pub(super) fn finish_artifact<'a>(
    read: ArtifactInput<'a>,
    profile: Profile,
    path: &Path<'_>,
) -> GateResult<Option<Artifact<'a>>> {
    let Some(exec) = read.session_id else {
        return Ok(None);
    };
    let files = match read.files {
        Some(FilesInput::Read(files)) => files,
        Some(FilesInput::Later(raw)) => json::decode(raw.get(), &path.key("files").render())?,
        None => Vec::new(),
    };
    let deleted_files = match (profile, read.deleted_files) {
        (Profile::V3_9, Some(raw)) => {
            let names: Option<Vec<Str<'a>>> =
                json::decode(raw.get(), &path.key("deleted_files").render())?;
            names.unwrap_or_default()
        }
        _ => Vec::new(),
    };
    Ok(Some(Artifact {
        exec_session_id: exec,
        files,
        deleted_files,
    }))
}

/// An artifact the scanner read where it stood in the host's results (see
/// `calls::options::Handling::handling`), so that the fold does not read its text a second time. Taken
/// once: a result read again (or never read in place) is read from its text, which stays the truth.
#[derive(Clone, Default)]
pub struct ScannedArtifact<'a>(Rc<Cell<Option<ArtifactInput<'a>>>>);

impl<'a> ScannedArtifact<'a> {
    /// An artifact read in place.
    pub(super) fn new(read: ArtifactInput<'a>) -> Self {
        ScannedArtifact(Rc::new(Cell::new(Some(read))))
    }

    /// The artifact read in place, if it is still there (`None` after the first take).
    pub(super) fn take(&self) -> Option<ArtifactInput<'a>> {
        self.0.take()
    }

    /// A new holder of what this one holds, which is taken from it (a copy that goes on to the fold
    /// carries the artifact; the original keeps only its text).
    pub(super) fn hand_on<'b>(&self) -> ScannedArtifact<'b>
    where
        'a: 'b,
    {
        self.take().map(ScannedArtifact::new).unwrap_or_default()
    }
}

/// A cache of the result's own text: results are equal whatever it holds.
impl PartialEq for ScannedArtifact<'_> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for ScannedArtifact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ScannedArtifact")
    }
}

/// `files` as read: typed when the usable `session_id` came first, else kept as text until it is known
/// whether the fold reads them at all.
#[derive(Clone)]
pub(super) enum FilesInput<'a> {
    Read(Vec<FileRef<'a>>),
    Later(&'a RawJson),
}

/// An artifact as the fold reads it.
// Read by hand (below); the TypeScript declaration is derived from the fields.
#[derive(Clone)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "SessionArtifact")
)]
pub(super) struct ArtifactInput<'a> {
    #[cfg_attr(feature = "typescript", serde(default), tsify(type = "string | null"))]
    session_id: Option<Str<'a>>,
    #[cfg_attr(
        feature = "typescript",
        serde(default),
        tsify(type = "FileRef[] | null")
    )]
    files: Option<FilesInput<'a>>,
    #[cfg_attr(
        feature = "typescript",
        serde(default),
        tsify(type = "string[] | null")
    )]
    deleted_files: Option<&'a RawJson>,
}

impl<'de: 'a, 'a> Deserialize<'de> for ArtifactInput<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ArtifactInput<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an artifact object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = ArtifactInput {
                    session_id: None,
                    files: None,
                    deleted_files: None,
                };
                let mut seen_session = false;
                while let Some(key) = map.next_key::<Str<'de>>()? {
                    match key.as_str() {
                        "session_id" => {
                            seen_session = true;
                            let id: Option<Str<'de>> = map.next_value()?;
                            out.session_id = id.filter(|s| !s.is_empty());
                        }
                        "files" if seen_session && out.session_id.is_some() => {
                            let files: Option<Vec<FileRef<'de>>> = map.next_value()?;
                            out.files = files.map(FilesInput::Read);
                        }
                        "files" => {
                            let raw: &'de RawJson = map.next_value()?;
                            out.files = (!json::is_null(raw)).then_some(FilesInput::Later(raw));
                        }
                        "deleted_files" => {
                            let raw: &'de RawJson = map.next_value()?;
                            out.deleted_files = (!json::is_null(raw)).then_some(raw);
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The artifact (or the refusal) the checked reader alone gives.
    fn checked(text: &str, profile: Profile) -> GateResult<Option<Artifact<'_>>> {
        let path = Path::root("artifact");
        let read: ArtifactInput<'_> = json::decode(text, &path.render())?;
        finish_artifact(read, profile, &path)
    }

    /// Every artifact the scanner takes reads as the checked reader reads it, and what it does not take
    /// (escapes, odd values, broken files) is left to the checked reader and its refusals.
    #[test]
    fn the_scanner_reads_artifacts_as_the_checked_reader_does() {
        let file = r#"{"id":"f","name":"a.txt","storage_session_id":"s","inherited":true}"#;
        let cases = [
            format!(r#"{{"session_id":"e","files":[{file}],"stdout":"x"}}"#),
            format!(r#"{{"files":[{file}],"session_id":"e"}}"#),
            format!(r#"{{"session_id":"","files":[{file}]}}"#),
            format!(r#"{{"session_id":null,"files":[{file}]}}"#),
            format!(r#"{{"files":[{file}]}}"#),
            r#"{"session_id":"e","files":null,"deleted_files":["a.txt"]}"#.to_owned(),
            r#"{"session_id":"e","files":"no","deleted_files":null}"#.to_owned(),
            r#"{"files":"no","session_id":"e"}"#.to_owned(),
            r#"{"files":"no"}"#.to_owned(),
            r#"{"session_id":"e","files":[{"id":1,"name":"a"}]}"#.to_owned(),
            r#"{"files":[{"id":1,"name":"a"}]}"#.to_owned(),
            r#"{"session_id":"e\u0041","files":[]}"#.to_owned(),
            r#"{"session_id":"e\ud800","files":[]}"#.to_owned(),
            r#"{"session_id":5,"files":[]}"#.to_owned(),
            format!(r#"{{"session_id":"e","files":[{file}],"files":[],"session_id":"e2"}}"#),
            format!(r#"{{"session_id":"e","files":[{{"id":"g","name":"b\n"}}],"files":[{file}]}}"#),
            r#"{"session_id":"e","deleted_files":[1],"files":[]}"#.to_owned(),
            r#"{"se\u0073sion_id":"e","files":[]}"#.to_owned(),
            r#"{}"#.to_owned(),
        ];
        let mut plain = 0;
        for text in &cases {
            plain += usize::from(read_plain_artifact(text, None).is_some());
            for profile in [Profile::V3_6, Profile::V3_9] {
                let raw: &RawJson = serde_json::from_str(text).unwrap();
                let read = read_fold_artifact(raw.get(), profile, &Path::root("artifact"), None);
                assert_eq!(read, checked(text, profile), "{text} ({profile:?})");
            }
        }
        assert!(plain >= 8, "the scanner took only {plain} of the cases");
    }
}
