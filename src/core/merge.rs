//! `updateCodeSession`: folding one execution artifact (`session_id`, `files`, 3.9: `deleted_files`) into
//! one partition.
//!
//! Both profiles: incoming files get the exec id as storage when they have none; an existing file with the
//! same identity `(storage_session_id, id)` is overlaid *under* the incoming one (#156: worker echoes lack
//! `kind`/`resource_id`/`version`); an existing file survives only if no incoming file has its **name**
//! (retention is by name, not identity — upstream quirk kept on purpose: it drops a same-name file of
//! another identity and duplicates a renamed one); the entry object is replaced, so extra keys are lost.
//!
//! 3.9 adds: existing storage-less files are pinned to the previous exec id; deletions scoped to the
//! identities the request saw; echo storage taken from the request baseline; no resurrection of a file
//! by an inherited echo once the partition lost it.

use super::baseline::Baseline;
use super::config::Profile;
use super::file_ref::FileRef;
use super::session::{CodeSession, SessionMap};

/// One artifact to fold.
#[derive(Debug, Clone, Copy)]
pub struct Artifact<'a> {
    /// `artifact.session_id`; callers have already skipped missing or empty ids.
    pub exec_session_id: &'a str,
    /// `artifact.files` (missing = none).
    pub files: &'a [FileRef],
    /// `artifact.deleted_files` (3.9; ignored by 3.6).
    pub deleted_files: &'a [String],
}

/// Folds `artifact` into partition `key`, stamping `now` as `lastUpdated`. `baseline` is what the request
/// was given (3.9; `None` when the fold runs without request bookkeeping).
pub fn update_code_session(
    sessions: &mut SessionMap,
    key: &str,
    artifact: Artifact<'_>,
    baseline: Option<&Baseline>,
    profile: Profile,
    now: f64,
) {
    let merged = match profile {
        Profile::V3_6 => merge_3_6(sessions.get(key), artifact),
        Profile::V3_9 => merge_3_9(sessions.get(key), artifact, baseline),
    };
    sessions.set(
        key,
        CodeSession::written(artifact.exec_session_id.to_owned(), merged, now),
    );
}

fn merge_3_6(existing: Option<&CodeSession>, artifact: Artifact<'_>) -> Vec<FileRef> {
    let existing_files = existing.map(CodeSession::files).unwrap_or(&[]);
    if artifact.files.is_empty() {
        return existing_files.to_vec();
    }
    let mut incoming: Vec<FileRef> = artifact
        .files
        .iter()
        .map(|f| f.with_storage_fallback(artifact.exec_session_id))
        .collect();
    // Identity of an existing storage-less file is "" + id: it can never match an incoming file.
    overlay_and_retain(existing_files, &mut incoming, "", |_| false)
}

fn merge_3_9(
    existing: Option<&CodeSession>,
    artifact: Artifact<'_>,
    baseline: Option<&Baseline>,
) -> Vec<FileRef> {
    let previous_exec = existing.and_then(|s| s.session_id.as_deref()).unwrap_or("");
    let existing_files: Vec<FileRef> = existing
        .map(CodeSession::files)
        .unwrap_or(&[])
        .iter()
        .map(|f| f.with_storage_fallback(previous_exec))
        .collect();
    // Only names the request was given count, each with the identity it saw.
    let deleted_identity = |name: &str| -> Option<&str> {
        if !artifact.deleted_files.iter().any(|d| d == name) {
            return None;
        }
        baseline.and_then(|b| b.get(name))
    };
    let is_deleted =
        |f: &FileRef| deleted_identity(&f.name) == Some(f.identity(previous_exec).as_str());

    if artifact.files.is_empty() {
        return existing_files
            .into_iter()
            .filter(|f| !is_deleted(f))
            .collect();
    }

    let mut incoming = Vec::with_capacity(artifact.files.len());
    for file in artifact.files {
        let tracked = baseline.and_then(|b| b.get(&file.name));
        let storage = match file.storage_session_id.as_deref() {
            Some(own) => own,
            None => baseline
                .and_then(|b| b.storage_for(&file.name, &file.id))
                .unwrap_or(artifact.exec_session_id),
        };
        let filled = file.with_storage_fallback(storage);
        let identity = filled.identity("");
        let tracked_by_request = tracked == Some(identity.as_str());
        // An inherited echo of a file the request was given must not bring back what the partition lost or
        // what this very execution deleted.
        if file.is_inherited()
            && tracked_by_request
            && (!existing_files
                .iter()
                .any(|e| e.identity(previous_exec) == identity)
                || deleted_identity(&file.name) == Some(identity.as_str()))
        {
            continue;
        }
        incoming.push(filled);
    }
    overlay_and_retain(&existing_files, &mut incoming, previous_exec, is_deleted)
}

/// The #156 overlay (each existing file under the *last* incoming file of its identity, first existing
/// file winning over later ones) and name-based retention; returns survivors then incoming files.
fn overlay_and_retain(
    existing: &[FileRef],
    incoming: &mut [FileRef],
    existing_fallback: &str,
    is_deleted: impl Fn(&FileRef) -> bool,
) -> Vec<FileRef> {
    let identities: Vec<String> = incoming.iter().map(|f| f.identity("")).collect();
    let mut survivors = Vec::new();
    for e in existing {
        let id = e.identity(existing_fallback);
        if let Some(slot) = identities.iter().rposition(|i| *i == id) {
            if let Some(target) = incoming.get_mut(slot) {
                *target = target.spread_over(e);
            }
        }
        if !incoming.iter().any(|f| f.name == e.name) && !is_deleted(e) {
            survivors.push(e.clone());
        }
    }
    survivors.extend(incoming.iter().cloned());
    survivors
}
