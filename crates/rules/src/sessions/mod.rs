//! The partitioned session map (`Graph.sessions` upstream): partition key → [`CodeSession`], and the
//! rules that write it: the merge ([`merge`]), request baselines ([`baseline`]) and seeding ([`seed`]).
//!
//! The SDK keeps one `Map` per run, shared by every agent, keyed by the agent's `codeSessionKey`
//! (default `execute_code`). Order matters to hosts that read it back: an updated key keeps its
//! position and a new key is appended, as with a JavaScript `Map`.

pub mod baseline;
pub mod changes;
pub mod merge;
pub mod seed;

use std::cell::{Cell, OnceCell};
use std::fmt;
use std::rc::Rc;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, SerializeTuple, Serializer};

use super::error::ErrorCode;
use super::files::narrow::{to_injected_file_ref, CodeEnvFile};
use super::files::FileRef;
use super::json::{self, RawJson, RawText, Str};

/// The TypeScript declarations of a partition's entry and a session map, derived from the types
/// that read and write them.
#[cfg(feature = "typescript")]
pub const DECLARATIONS: [&str; 2] = {
    use tsify::Tsify;
    [CodeSession::DECL, SessionPairs::DECL]
};

/// The default partition key (`Constants.EXECUTE_CODE`).
pub const DEFAULT_CODE_SESSION_KEY: &str = "execute_code";

/// One partition's entry (`CodeSessionContext`). `session_id` is absent only in malformed seeds,
/// which the SDK tolerates.
// The last exec session and the files it knows of. Strings borrow from a call's JSON text while it
// runs; a stored entry owns them. Read and written by hand (below); the TypeScript declaration is
// derived from the fields.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(
    feature = "typescript",
    derive(tsify::Tsify),
    tsify(rename = "CodeSessionContext")
)]
pub struct CodeSession<'a> {
    /// The exec session the partition last used.
    // Absent only in entries seeded without one, which the SDK tolerates (and then treats as `""` or
    // `undefined` depending on the site).
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    pub session_id: Option<Str<'a>>,
    /// The files.
    // `None` when the entry has no `files` key (which differs from `[]` on the eager path).
    #[cfg_attr(feature = "typescript", tsify(optional, type = "FileRef[]"))]
    pub files: Option<Vec<FileRef<'a>>>,
    /// Milliseconds since the epoch of the last write, as the host's clock said.
    #[cfg_attr(
        feature = "typescript",
        serde(rename = "lastUpdated"),
        tsify(optional, type = "number")
    )]
    pub last_updated: Option<RawText<'a>>,
    /// Other keys of the entry, as JSON text; seeds carry them, a fold drops them. (TypeScript: the
    /// record is open.)
    #[cfg_attr(feature = "typescript", serde(skip))]
    pub extra: Vec<(Str<'a>, RawText<'a>)>,
}

/// An owned, stored entry.
pub type StoredSession = CodeSession<'static>;

impl<'a> CodeSession<'a> {
    /// A freshly written entry `{session_id, files, lastUpdated}`.
    pub fn written(session_id: Str<'a>, files: Vec<FileRef<'a>>, now: RawText<'a>) -> Self {
        CodeSession {
            session_id: Some(session_id),
            files: Some(files),
            last_updated: Some(now),
            extra: Vec::new(),
        }
    }

    /// The files, or none.
    pub fn files(&self) -> &[FileRef<'a>] {
        self.files.as_deref().unwrap_or(&[])
    }

    /// The same entry owning its text.
    pub fn into_owned(self) -> StoredSession {
        CodeSession {
            session_id: self.session_id.map(Str::into_owned),
            files: self
                .files
                .map(|fs| fs.into_iter().map(FileRef::into_owned).collect()),
            last_updated: self.last_updated.map(RawText::into_owned),
            extra: self
                .extra
                .into_iter()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CodeSession<'a> {
    /// An object whose `session_id` is a string when present, `files` an array of files when present,
    /// `lastUpdated` a number when present; other keys ride along.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CodeSession<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a session object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut s = CodeSession::default();
                while let Some(key) = map.next_key::<Str<'de>>()? {
                    match key.as_str() {
                        "session_id" => s.session_id = Some(map.next_value()?),
                        "files" => s.files = Some(map.next_value()?),
                        "lastUpdated" => {
                            s.last_updated = Some(map.next_value::<Millis<'de>>()?.0);
                        }
                        _ => {
                            let raw: &'de RawJson = map.next_value()?;
                            // Carried unread, yet handed back to hosts: the same text rules apply.
                            json::check_surrogates(raw)?;
                            s.extra.push((key, RawText::Borrowed(raw)));
                        }
                    }
                }
                Ok(s)
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for CodeSession<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(id) = &self.session_id {
            m.serialize_entry("session_id", id)?;
        }
        if let Some(files) = &self.files {
            m.serialize_entry("files", files)?;
        }
        if let Some(t) = &self.last_updated {
            m.serialize_entry("lastUpdated", t)?;
        }
        for (k, v) in &self.extra {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// A partition, the generation of its last write, and its narrowed files once someone asked for them.
#[derive(Debug, Clone)]
pub struct Partition {
    /// The entry.
    pub session: StoredSession,
    /// Bumped on every write, unique across the gate's lifetime (never 0): what a cache of the
    /// partition's narrowed files compares against.
    pub generation: u64,
    narrowed: OnceCell<Rc<[CodeEnvFile<'static>]>>,
    /// `Some(true)` when the fold that wrote the entry knows no two of its files share an identity
    /// (what the next fold's walk in step needs, [`merge`]); `None` when nobody has looked.
    distinct_identities: Cell<Option<bool>>,
}

impl PartialEq for Partition {
    fn eq(&self, other: &Self) -> bool {
        self.session == other.session && self.generation == other.generation
    }
}

impl Partition {
    fn new(session: StoredSession, generation: u64) -> Self {
        Partition {
            session,
            generation,
            narrowed: OnceCell::new(),
            distinct_identities: Cell::new(None),
        }
    }

    /// Whether no two of the entry's files share an identity, when the write that made it knew.
    pub fn distinct_identities(&self) -> Option<bool> {
        self.distinct_identities.get()
    }

    /// The entry's files narrowed against its own `session_id` (what every context builder sends),
    /// computed once per write: a partition that has not changed is never narrowed twice. Narrowing
    /// shares the stored text, so it allocates only the list.
    pub fn narrowed(&self) -> Rc<[CodeEnvFile<'static>]> {
        self.narrowed
            .get_or_init(|| {
                let exec = self.session.session_id.as_ref();
                self.session
                    .files()
                    .iter()
                    .map(|f| to_injected_file_ref(f, exec))
                    .collect()
            })
            .clone()
    }
}

/// The session map: ordered partitions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionMap {
    partitions: Vec<(Str<'static>, Partition)>,
    last_generation: u64,
}

impl SessionMap {
    /// An empty map.
    pub fn new() -> Self {
        SessionMap::default()
    }

    /// An empty map whose generations continue after `previous`'s, so that a cache keyed by generation
    /// never mistakes a new partition for an old one.
    pub fn following(previous: u64) -> Self {
        SessionMap {
            partitions: Vec::new(),
            last_generation: previous,
        }
    }

    /// The last generation handed out.
    pub fn last_generation(&self) -> u64 {
        self.last_generation
    }

    /// The entry of `key`.
    pub fn get(&self, key: &str) -> Option<&StoredSession> {
        self.partition(key).map(|p| &p.session)
    }

    /// The partition of `key`, with its generation.
    pub fn partition(&self, key: &str) -> Option<&Partition> {
        self.partitions
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, p)| p)
    }

    /// Whether `key` has an entry.
    pub fn contains(&self, key: &str) -> bool {
        self.partition(key).is_some()
    }

    /// Takes the files out of partition `key` (leaving it empty) for a write that will replace it.
    pub fn take_files(&mut self, key: &str) -> Vec<FileRef<'static>> {
        self.partitions
            .iter_mut()
            .find(|(k, _)| k.as_str() == key)
            .and_then(|(_, p)| p.session.files.take())
            .unwrap_or_default()
    }

    /// `map.set(key, session)`: replaces in place or appends, and bumps the generation.
    pub fn set(&mut self, key: &str, session: StoredSession) {
        self.set_known(key, session, None);
    }

    /// [`SessionMap::set`], recording what the writer knows of the files' identities (see
    /// [`Partition::distinct_identities`]).
    pub fn set_known(&mut self, key: &str, session: StoredSession, distinct: Option<bool>) {
        self.last_generation += 1;
        let partition = Partition::new(session, self.last_generation);
        partition.distinct_identities.set(distinct);
        match self.partitions.iter_mut().find(|(k, _)| k.as_str() == key) {
            Some((_, p)) => *p = partition,
            None => self.partitions.push((Str::from(key.to_owned()), partition)),
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &StoredSession)> {
        self.partitions
            .iter()
            .map(|(k, p)| (k.as_str(), &p.session))
    }

    /// The number of partitions.
    pub fn len(&self) -> usize {
        self.partitions.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.partitions.is_empty()
    }

    /// A map of these entries, in order (a repeated key keeps its first position, last entry).
    pub fn from_entries(entries: Vec<(Str<'_>, CodeSession<'_>)>) -> Self {
        let mut map = SessionMap::new();
        for (key, entry) in entries {
            map.set(&key, entry.into_owned());
        }
        map
    }
}

/// A session map as ordered `[partitionKey, entry]` pairs (the order of a JavaScript `Map`).
// How hosts write a session map (the vectors' and snapshots' form of a `Map`).
#[derive(Debug, Default)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify), serde(transparent))]
pub struct SessionPairs<'a>(
    #[cfg_attr(feature = "typescript", tsify(type = "[string, CodeSessionContext][]"))]
    pub  Vec<(Str<'a>, CodeSession<'a>)>,
);

impl SessionPairs<'_> {
    /// The map these pairs describe.
    pub fn into_map(self) -> SessionMap {
        SessionMap::from_entries(self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for SessionPairs<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Pair<'a>(Str<'a>, CodeSession<'a>);
        impl<'de: 'a, 'a> Deserialize<'de> for Pair<'a> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Pair<'de>;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a [key, session] pair")
                    }
                    fn visit_seq<A: SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> Result<Pair<'de>, A::Error> {
                        let key = seq.next_element::<Str<'de>>()?;
                        let entry = match key {
                            Some(_) => seq.next_element::<CodeSession<'de>>()?,
                            None => None,
                        };
                        let extra = seq.next_element::<IgnoredAny>()?.is_some();
                        match (key, entry, extra) {
                            (Some(k), Some(e), false) => Ok(Pair(k, e)),
                            _ => Err(json::refuse(
                                ErrorCode::InvalidType,
                                "expected a [key, session] pair",
                            )),
                        }
                    }
                }
                d.deserialize_seq(V)
            }
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SessionPairs<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of [key, session] pairs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(Pair(k, e)) = seq.next_element::<Pair<'de>>()? {
                    out.push((k, e));
                }
                Ok(SessionPairs(out))
            }
        }
        d.deserialize_seq(V)
    }
}

impl Serialize for SessionMap {
    /// `[[key, entry], …]`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Pair<'p>(&'p str, &'p StoredSession);
        impl Serialize for Pair<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut t = s.serialize_tuple(2)?;
                t.serialize_element(self.0)?;
                t.serialize_element(self.1)?;
                t.end()
            }
        }
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for (k, entry) in self.iter() {
            seq.serialize_element(&Pair(k, entry))?;
        }
        seq.end()
    }
}

/// A time in milliseconds (`lastUpdated`, a writing call's `now`), kept as written (the gate never reads a
/// clock, and never reformats the host's number).
#[derive(Debug, Clone, PartialEq)]
pub struct Millis<'a>(pub RawText<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for Millis<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de RawJson>::deserialize(d)?;
        match json::raw_type_name(raw) {
            "number" => Ok(Millis(RawText::Borrowed(raw))),
            _ => Err(json::expected_raw("a number", raw)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_keeps_position_and_bumps_generation() {
        let mut m = SessionMap::new();
        m.set("a", CodeSession::default());
        m.set("b", CodeSession::default());
        let g_before = m.partition("a").map(|p| p.generation);
        m.set(
            "a",
            CodeSession::written(Str::from("s"), vec![], RawText::Borrowed(json_num("1"))),
        );
        let keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_ne!(m.partition("a").map(|p| p.generation), g_before);
    }

    fn json_num(text: &'static str) -> &'static RawJson {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn pairs_round_trip_and_refuse_bad_shapes() {
        let text = r#"[["a",{"session_id":"s","files":[{"id":"f","name":"n"}],"lastUpdated":1,"x":[1]}],["b",{}]]"#;
        let pairs: SessionPairs = json::decode(text, "sessions").unwrap();
        let map = pairs.into_map();
        assert_eq!(json::to_text(&map), text);
        for (bad, path, code) in [
            (
                r#"[["k",{"session_id":null}]]"#,
                "sessions[0][1].session_id",
                ErrorCode::InvalidType,
            ),
            (r#"[["k"]]"#, "sessions[0]", ErrorCode::InvalidType),
            (r#"[["k",{},1]]"#, "sessions[0]", ErrorCode::InvalidType),
            (r#"{"k":{}}"#, "sessions", ErrorCode::InvalidType),
            (r#"[[5,{}]]"#, "sessions[0][0]", ErrorCode::InvalidType),
            (
                r#"[["k",{"files":null}]]"#,
                "sessions[0][1].files",
                ErrorCode::InvalidType,
            ),
            (
                r#"[["k",{"lastUpdated":"1"}]]"#,
                "sessions[0][1].lastUpdated",
                ErrorCode::InvalidType,
            ),
        ] {
            let e = json::decode::<SessionPairs>(bad, "sessions").unwrap_err();
            assert_eq!((e.path.as_str(), e.code), (path, code), "{bad}");
        }
    }
}
