//! The partitioned session map (`Graph.sessions` upstream): partition key → [`CodeSession`].
//!
//! The SDK keeps one `Map` per run, shared by every agent, keyed by the agent's `codeSessionKey`
//! (default `execute_code`). Order matters to hosts that read it back: an updated key keeps its
//! position and a new key is appended, as with a JavaScript `Map`.

use std::cell::OnceCell;
use std::rc::Rc;

use super::error::{GateError, GateResult, Path};
use super::file_ref::{files_from_value, FileRef};
use super::narrow::{to_injected_file_ref, CodeEnvFile};
use super::value::{Object, Value};

/// The default partition key (`Constants.EXECUTE_CODE`).
pub const DEFAULT_CODE_SESSION_KEY: &str = "execute_code";

/// One partition's entry (`CodeSessionContext`): the last exec session and the files it knows of.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CodeSession {
    /// The exec session the partition last used. Absent only in entries seeded without one, which the
    /// SDK tolerates (and then treats as `""` or `undefined` depending on the site).
    pub session_id: Option<String>,
    /// The files; `None` when the entry has no `files` key (which differs from `[]` on the eager path).
    pub files: Option<Vec<FileRef>>,
    /// Milliseconds since the epoch of the last write, as the host's clock said.
    pub last_updated: Option<f64>,
    /// Other keys of the entry; seeds carry them, a fold drops them.
    pub extra: Object,
}

impl CodeSession {
    /// A freshly written entry `{session_id, files, lastUpdated}`.
    pub fn written(session_id: String, files: Vec<FileRef>, now: f64) -> Self {
        CodeSession {
            session_id: Some(session_id),
            files: Some(files),
            last_updated: Some(now),
            extra: Object::new(),
        }
    }

    /// The files, or none.
    pub fn files(&self) -> &[FileRef] {
        self.files.as_deref().unwrap_or(&[])
    }

    /// Reads an entry from host data. `session_id` must be a string when present, `files` an array of
    /// files (or absent), `lastUpdated` a number (or absent).
    pub fn from_value(v: &Value, path: &Path<'_>) -> GateResult<CodeSession> {
        let Value::Object(obj) = v else {
            return Err(GateError::expected(path, "a session object", v.type_name()));
        };
        let mut s = CodeSession::default();
        for (key, value) in obj.iter() {
            let at = path.key(key);
            match key {
                "session_id" => match value {
                    Value::String(id) => s.session_id = Some(id.clone()),
                    other => return Err(GateError::expected(&at, "a string", other.type_name())),
                },
                "files" => s.files = Some(files_from_value(value, &at)?),
                "lastUpdated" => match value {
                    Value::Number(n) => s.last_updated = Some(*n),
                    other => return Err(GateError::expected(&at, "a number", other.type_name())),
                },
                _ => s.extra.insert(key, value.clone()),
            }
        }
        Ok(s)
    }

    /// The entry as host data.
    pub fn to_value(&self) -> Value {
        let mut o = Object::new();
        if let Some(id) = &self.session_id {
            o.insert("session_id", Value::String(id.clone()));
        }
        if let Some(files) = &self.files {
            o.insert(
                "files",
                Value::Array(files.iter().map(FileRef::to_value).collect()),
            );
        }
        if let Some(t) = self.last_updated {
            o.insert("lastUpdated", Value::Number(t));
        }
        for (k, v) in self.extra.iter() {
            o.insert(k, v.clone());
        }
        Value::Object(o)
    }
}

/// A partition, the generation of its last write, and its narrowed files once someone asked for them.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// The entry.
    pub session: CodeSession,
    /// Bumped on every write, unique across the map's lifetime: what a cache of the partition's narrowed
    /// files compares against.
    pub generation: u64,
    narrowed: OnceCell<Rc<[CodeEnvFile]>>,
}

impl Partition {
    fn new(session: CodeSession, generation: u64) -> Self {
        Partition {
            session,
            generation,
            narrowed: OnceCell::new(),
        }
    }

    /// The entry's files narrowed against its own `session_id` (what every context builder sends),
    /// computed once per write: a partition that has not changed is never narrowed twice.
    pub fn narrowed(&self) -> Rc<[CodeEnvFile]> {
        self.narrowed
            .get_or_init(|| {
                let exec = self.session.session_id.as_deref();
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
    partitions: Vec<(String, Partition)>,
    next_generation: u64,
}

impl SessionMap {
    /// An empty map.
    pub fn new() -> Self {
        SessionMap::default()
    }

    /// The entry of `key`.
    pub fn get(&self, key: &str) -> Option<&CodeSession> {
        self.partition(key).map(|p| &p.session)
    }

    /// The partition of `key`, with its generation.
    pub fn partition(&self, key: &str) -> Option<&Partition> {
        self.partitions
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, p)| p)
    }

    /// Whether `key` has an entry.
    pub fn contains(&self, key: &str) -> bool {
        self.partition(key).is_some()
    }

    /// `map.set(key, session)`: replaces in place or appends, and bumps the generation.
    pub fn set(&mut self, key: &str, session: CodeSession) {
        self.next_generation += 1;
        let generation = self.next_generation;
        match self.partitions.iter_mut().find(|(k, _)| k == key) {
            Some((_, p)) => *p = Partition::new(session, generation),
            None => self
                .partitions
                .push((key.to_owned(), Partition::new(session, generation))),
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &CodeSession)> {
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

    /// Reads `[[key, entry], …]` pairs (the vectors' and snapshots' form of a `Map`).
    pub fn from_pairs(v: &Value, path: &Path<'_>) -> GateResult<SessionMap> {
        let Value::Array(pairs) = v else {
            return Err(GateError::expected(
                path,
                "an array of [key, session] pairs",
                v.type_name(),
            ));
        };
        let mut map = SessionMap::new();
        for (i, pair) in pairs.iter().enumerate() {
            let at = path.index(i);
            let (key, entry) = match pair.as_array() {
                Some([Value::String(k), entry]) => (k, entry),
                Some([other, _]) => {
                    return Err(GateError::expected(
                        &at.index(0),
                        "a string key",
                        other.type_name(),
                    ))
                }
                _ => {
                    return Err(GateError::expected(
                        &at,
                        "a [key, session] pair",
                        pair.type_name(),
                    ))
                }
            };
            map.set(key, CodeSession::from_value(entry, &at.index(1))?);
        }
        Ok(map)
    }

    /// The map as `[[key, entry], …]` pairs.
    pub fn to_pairs(&self) -> Value {
        Value::Array(
            self.iter()
                .map(|(k, s)| Value::Array(vec![Value::String(k.to_owned()), s.to_value()]))
                .collect(),
        )
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
        m.set("a", CodeSession::written("s".into(), vec![], 1.0));
        let keys: Vec<&str> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_ne!(m.partition("a").map(|p| p.generation), g_before);
    }

    #[test]
    fn session_id_must_be_a_string_when_present() {
        let v = Value::Object(
            [("session_id".to_owned(), Value::Null)]
                .into_iter()
                .collect(),
        );
        let e = CodeSession::from_value(&v, &Path::root("s")).err();
        assert_eq!(e.map(|e| e.path), Some("s.session_id".to_owned()));
        let empty = Value::Object(Object::new());
        assert_eq!(
            CodeSession::from_value(&empty, &Path::root("s")).ok(),
            Some(CodeSession::default())
        );
    }
}
