//! Initial-session seeding (`utils/toolSessions` upstream; identical in 3.6 and 3.9).
//!
//! Seeds are cloned (each file's missing storage filled from its own context's `session_id`) and merged
//! into existing partitions by `(storage, id)` without name replacement; the existing `session_id` and
//! `lastUpdated` win.

use crate::table::HashSet;

use super::{SessionMap, StoredSession, DEFAULT_CODE_SESSION_KEY};
use crate::files::{identity_key, Field, StoredFile};
use crate::json::Str;

/// An agent of a run (`codeSessionKey` only) or of a subagent child plan (with its own seeds).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeedAgent {
    /// `codeSessionKey` (`None` = default partition).
    pub code_session_key: Option<String>,
    /// `initialSessions` (agent mode only).
    pub initial_sessions: Option<SessionMap>,
}

/// `file.storage_session_id ?? session_id` where the result may itself be absent.
fn fill_storage(file: &StoredFile, session_id: Option<&Str<'static>>) -> StoredFile {
    let mut f = file.clone();
    if f.storage_session_id.get().is_none() {
        f.storage_session_id = match session_id {
            Some(s) => Field::Set(s.clone()),
            None => Field::Absent,
        };
    }
    f
}

/// The seed key of a file: `` `${storage ?? fallback}\0${id}` ``, where a missing value interpolates as
/// `"undefined"` exactly as the SDK's template literal does.
fn seed_key(file: &StoredFile, fallback: Option<&str>) -> String {
    let storage = file
        .storage_session_id
        .as_deref()
        .or(fallback)
        .unwrap_or("undefined");
    identity_key(storage, &file.id)
}

/// `cloneToolSessionContext`.
fn clone_context(context: &StoredSession) -> StoredSession {
    let mut c = context.clone();
    if let Some(files) = &context.files {
        let sid = context.session_id.as_ref();
        c.files = Some(files.iter().map(|f| fill_storage(f, sid)).collect());
    }
    c
}

/// `mergeToolSessionContext`: store a clone under a new key; for an existing key append only incoming
/// files whose `(storage, id)` is not present yet.
fn merge_context(sessions: &mut SessionMap, key: &str, context: &StoredSession) {
    let Some(existing) = sessions.get(key) else {
        sessions.set(key, clone_context(context));
        return;
    };
    let incoming = context.files();
    if incoming.is_empty() {
        return;
    }
    let existing_sid = existing.session_id.as_deref();
    let mut seen: HashSet<String> = existing
        .files()
        .iter()
        .map(|f| seed_key(f, existing_sid))
        .collect();
    let mut updated = existing.clone();
    let mut files: Vec<StoredFile> = updated.files.take().unwrap_or_default();
    let sid = context.session_id.as_ref();
    for file in incoming {
        if seen.insert(seed_key(file, sid.map(|s| s.as_str()))) {
            files.push(fill_storage(file, sid));
        }
    }
    updated.files = Some(files);
    sessions.set(key, updated);
}

/// `seedRunInitialSessions`: merge every seed under its own key; then, when there is a legacy
/// `execute_code` seed, give each agent with a custom key that has no seed and no entry an independent
/// clone of it.
pub fn seed_run(sessions: &mut SessionMap, initial: &SessionMap, agents: &[SeedAgent]) {
    for (key, context) in initial.iter() {
        merge_context(sessions, key, context);
    }
    let Some(legacy) = initial.get(DEFAULT_CODE_SESSION_KEY) else {
        return;
    };
    for agent in agents {
        let key = agent
            .code_session_key
            .as_deref()
            .unwrap_or(DEFAULT_CODE_SESSION_KEY);
        if key == DEFAULT_CODE_SESSION_KEY || initial.contains(key) || sessions.contains(key) {
            continue;
        }
        sessions.set(key, clone_context(legacy));
    }
}

/// `seedAgentInitialSessions`: each agent's `execute_code` seed goes to the agent's partition (unless the
/// agent has a custom key and an explicit seed for it); other keys merge under their own names.
pub fn seed_agents(sessions: &mut SessionMap, agents: &[SeedAgent]) {
    for agent in agents {
        let Some(initial) = &agent.initial_sessions else {
            continue;
        };
        let key = agent
            .code_session_key
            .as_deref()
            .unwrap_or(DEFAULT_CODE_SESSION_KEY);
        let explicit = key != DEFAULT_CODE_SESSION_KEY && initial.contains(key);
        for (name, context) in initial.iter() {
            if name == DEFAULT_CODE_SESSION_KEY {
                if explicit {
                    continue;
                }
                merge_context(sessions, key, context);
            } else {
                merge_context(sessions, name, context);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::FileRef;
    use crate::json::RawJson;
    use crate::json::RawText;
    use crate::sessions::CodeSession;

    fn entry(session_id: Option<&'static str>, files: &[StoredFile]) -> StoredSession {
        let one: &'static RawJson = serde_json::from_str("1").unwrap();
        CodeSession {
            session_id: session_id.map(Str::from),
            files: Some(files.to_vec()),
            last_updated: Some(RawText::Borrowed(one)),
            ..CodeSession::default()
        }
    }

    #[test]
    fn missing_session_ids_interpolate_as_undefined() {
        let mut sessions = SessionMap::new();
        sessions.set("k", entry(None, &[FileRef::new("a", "a.txt")]));
        let mut stored = FileRef::new("a", "other.txt");
        stored.storage_session_id = Field::Set(Str::from("undefined"));
        let mut agents_seed = SessionMap::new();
        agents_seed.set("k", entry(Some("s"), &[stored, FileRef::new("b", "b.txt")]));
        seed_run(&mut sessions, &agents_seed, &[]);
        let names: Vec<&str> = sessions
            .get("k")
            .map(|s| s.files().iter().map(|f| f.name.as_str()).collect())
            .unwrap_or_default();
        assert_eq!(names, ["a.txt", "b.txt"]);
    }

    #[test]
    fn clone_keeps_extra_keys_and_fills_storage() {
        let mut seed = entry(Some("s"), &[FileRef::new("a", "a.txt")]);
        let t: &'static RawJson = serde_json::from_str("true").unwrap();
        seed.extra.push((Str::from("custom"), RawText::Borrowed(t)));
        let mut initial = SessionMap::new();
        initial.set("p", seed);
        let mut sessions = SessionMap::new();
        seed_run(&mut sessions, &initial, &[]);
        let got = sessions.get("p");
        assert_eq!(got.map(|s| s.extra.len()), Some(1));
        assert_eq!(
            got.and_then(|s| s.files().first())
                .and_then(|f| f.storage_session_id.as_deref()),
            Some("s")
        );
    }
}
