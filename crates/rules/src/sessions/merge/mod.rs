//! `updateCodeSession`: folding execution artifacts (`session_id`, `files`, 3.9: `deleted_files`) into
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
//!
//! The work of a fold is linear in what its artifact carries: the stored files it touches are found
//! through indexes by name and identity ([`working`]), and a batch of folds into one partition builds the
//! stored list once. The rules as a whole-list rebuild, kept for the tests as the reference the indexed
//! version is checked against, are in `reference.rs`.

mod echo;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
mod working;

use std::borrow::Cow;

use crate::table::{HashMap, HashSet};

use super::baseline::Baseline;
use super::{CodeSession, Partition, SessionMap};
use crate::config::Profile;
use crate::files::{Field, FileRef, Identity, StoredFile};
use crate::json::{RawText, Str};
use working::WorkingFiles;

/// One artifact to fold.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact<'a> {
    /// `artifact.session_id`; callers have already skipped missing or empty ids.
    pub exec_session_id: Str<'a>,
    /// `artifact.files` (missing = none).
    pub files: Vec<FileRef<'a>>,
    /// `artifact.deleted_files` (3.9; ignored by 3.6).
    pub deleted_files: Vec<Str<'a>>,
}

/// Folds `artifact` into partition `key`, stamping `now` as `lastUpdated`. `baseline` is what the request
/// was given (3.9; `None` when the fold runs without request bookkeeping).
pub fn update_code_session(
    sessions: &mut SessionMap,
    key: &str,
    artifact: Artifact<'_>,
    baseline: Option<&Baseline>,
    profile: Profile,
    now: &RawText<'_>,
) {
    update_code_session_many(
        sessions,
        key,
        vec![(Cow::Owned(artifact), baseline)],
        profile,
        now,
    );
}

/// Folds `steps` into partition `key` one after the other, as that many [`update_code_session`] calls
/// would, writing the partition once (nothing when there are no steps). An artifact the caller
/// still holds is borrowed: a fold in step copies only its new files.
pub fn update_code_session_many<'a>(
    sessions: &mut SessionMap,
    key: &str,
    mut steps: Vec<(Cow<'a, Artifact<'a>>, Option<&Baseline>)>,
    profile: Profile,
    now: &RawText<'_>,
) {
    if steps.is_empty() {
        return;
    }
    let mut exec: Str<'static> = sessions
        .get(key)
        .and_then(|s| s.session_id.clone())
        .unwrap_or_default();
    let known_distinct = sessions
        .partition(key)
        .and_then(Partition::distinct_identities);
    let mut existing = sessions.take_files(key);
    if profile.is_3_9() {
        // Pinned by the first fold; every later file has storage of its own.
        for f in &mut existing {
            f.fill_storage(&exec);
        }
    }
    if let [(artifact, baseline)] = steps.as_mut_slice() {
        let baseline = *baseline;
        if artifact
            .files
            .iter()
            .any(|f| f.storage_session_id.get().is_none())
        {
            let exec = artifact.exec_session_id.to_owned_str();
            let owned = artifact.to_mut();
            owned.files = with_storage(std::mem::take(&mut owned.files), &exec, baseline, profile);
        }
        let deletes = profile.is_3_9()
            && artifact
                .deleted_files
                .iter()
                .any(|name| baseline.is_some_and(|b| b.get(name).is_some()));
        let folded = (!deletes && !artifact.files.is_empty())
            .then(|| {
                echo::fold_in_step(
                    &mut existing,
                    &artifact.files,
                    &artifact.exec_session_id,
                    known_distinct,
                    |f| profile.is_3_9() && guarded(baseline, f),
                )
            })
            .flatten();
        if let Some((distinct, exec)) = folded {
            let entry = CodeSession::written(exec, existing, now.to_owned_raw());
            sessions.set_known(key, entry, distinct.then_some(true));
            return;
        }
    }
    let mut files = WorkingFiles::new(existing, steps.len() > 1);
    for (artifact, baseline) in steps {
        let artifact = artifact.into_owned();
        exec = artifact.exec_session_id.to_owned_str();
        let incoming = with_storage(artifact.files, &exec, baseline, profile);
        match profile {
            Profile::V3_6 => fold_3_6(&mut files, incoming),
            Profile::V3_9 => fold_3_9(&mut files, incoming, &artifact.deleted_files, baseline),
        }
        files.compact();
    }
    sessions.set(
        key,
        CodeSession::written(exec, files.into_files(), now.to_owned_raw()),
    );
}

/// The incoming files with storage: the exec id where they have none (3.9: the storage the request
/// sent the file with, when it was sent).
fn with_storage<'a>(
    mut incoming: Vec<FileRef<'a>>,
    exec: &Str<'static>,
    baseline: Option<&Baseline>,
    profile: Profile,
) -> Vec<FileRef<'a>> {
    for file in &mut incoming {
        if file.storage_session_id.get().is_none() {
            let sent = baseline
                .filter(|_| profile.is_3_9())
                .and_then(|b| b.storage_for(&file.name, &file.id));
            file.storage_session_id = Field::Set(match sent {
                Some(s) => Str::from(s.to_owned()),
                None => exec.clone(),
            });
        }
    }
    incoming
}

/// 3.9: an inherited echo of a file the request was given, which must not bring back what the
/// partition lost or what this very execution deleted.
fn guarded(baseline: Option<&Baseline>, f: &FileRef<'_>) -> bool {
    baseline.is_some_and(|b| f.is_inherited() && b.saw(&f.name, &f.identity("")))
}

fn fold_3_6(files: &mut WorkingFiles, incoming: Vec<FileRef<'_>>) {
    if incoming.is_empty() {
        return;
    }
    overlay_and_retain(files, incoming, &HashMap::new());
}

fn fold_3_9(
    files: &mut WorkingFiles,
    incoming: Vec<FileRef<'_>>,
    deleted_files: &[Str<'_>],
    baseline: Option<&Baseline>,
) {
    // Only names the request was given count, each with the identity it saw.
    let deleted: HashMap<&str, &str> = deleted_files
        .iter()
        .filter_map(|name| Some((name.as_str(), baseline?.get(name)?)))
        .collect();
    let deleted_as =
        |name: &str, key: &Identity<'_>| deleted.get(name).is_some_and(|k| key.matches_key(k));

    if incoming.is_empty() {
        let names: HashSet<&str> = deleted.keys().copied().collect();
        for at in files.touched(&HashMap::new(), &names) {
            let gone = files
                .get(at)
                .is_some_and(|f| deleted_as(&f.name, &f.identity("")));
            if gone {
                files.take(at);
            }
        }
        return;
    }

    let guards: Vec<bool> = incoming.iter().map(|f| guarded(baseline, f)).collect();
    if !guards.contains(&true) {
        overlay_and_retain(files, incoming, &deleted);
        return;
    }
    let keep: Vec<bool> = {
        let keys: Vec<Identity<'_>> = incoming
            .iter()
            .zip(&guards)
            .filter(|(_, &g)| g)
            .map(|(f, _)| f.identity(""))
            .collect();
        let mut stored = files.present(&keys).into_iter();
        incoming
            .iter()
            .zip(&guards)
            .map(|(f, &g)| {
                !g || (stored.next() == Some(true) && !deleted_as(&f.name, &f.identity("")))
            })
            .collect()
    };
    let kept = incoming
        .into_iter()
        .zip(keep)
        .filter_map(|(f, k)| k.then_some(f))
        .collect();
    overlay_and_retain(files, kept, &deleted);
}

/// The #156 overlay (each stored file under the *last* incoming file of its identity, the first stored
/// file winning over later ones) and name-based retention (`deleted`: 3.9's deletions, name → the
/// identity key the request saw); survivors keep their places, incoming files follow in order.
fn overlay_and_retain(
    files: &mut WorkingFiles,
    incoming: Vec<FileRef<'_>>,
    deleted: &HashMap<&str, &str>,
) {
    // The incoming slot of each identity (the last incoming file with it), and the incoming names.
    let mut slots: HashMap<Identity<'_>, usize> = HashMap::with_capacity(incoming.len());
    let mut names: HashSet<&str> = HashSet::with_capacity(incoming.len());
    for (i, f) in incoming.iter().enumerate() {
        slots.insert(f.identity(""), i);
        names.insert(f.name.as_str());
    }
    // The stored files this fold touches, in partition order: those under an incoming slot, those an
    // incoming file supersedes by name, those deleted.
    let touched = if deleted.is_empty() {
        files.touched(&slots, &names)
    } else {
        let mut by_name = names.clone();
        by_name.extend(deleted.keys().copied());
        files.touched(&slots, &by_name)
    };

    let mut merged: Vec<Option<StoredFile>> = Vec::new();
    merged.resize_with(incoming.len(), || None);
    overlay_touched(
        files,
        &incoming,
        touched,
        &slots,
        &names,
        deleted,
        &mut merged,
    );
    drop(names);
    drop(slots);
    for (f, m) in incoming.into_iter().zip(merged) {
        files.push(m.unwrap_or_else(|| f.into_owned()));
    }
}

/// Each touched stored file, in partition order: kept in place, removed, or laid under its incoming
/// slot (`merged`), as [`overlay_and_retain`] says.
fn overlay_touched(
    files: &mut WorkingFiles,
    incoming: &[FileRef<'_>],
    touched: Vec<usize>,
    slots: &HashMap<Identity<'_>, usize>,
    names: &HashSet<&str>,
    deleted: &HashMap<&str, &str>,
    merged: &mut [Option<StoredFile>],
) {
    for at in touched {
        let (slot, survives) = {
            let Some(e) = files.get(at) else { continue };
            let key = e.identity("");
            let survives = !names.contains(e.name.as_str())
                && deleted
                    .get(e.name.as_str())
                    .is_none_or(|k| !key.matches_key(k));
            (slots.get(&key).copied(), survives)
        };
        let base = match (slot, survives) {
            (None, true) => continue,
            (None, false) => {
                files.take(at);
                continue;
            }
            // A renamed file of the same identity both survives and lies under the incoming one.
            (Some(_), true) => match files.get(at) {
                Some(e) => e.clone(),
                None => continue,
            },
            (Some(_), false) => match files.take(at) {
                Some(e) => e,
                None => continue,
            },
        };
        let (Some(i), mut base) = (slot, base) else {
            continue;
        };
        if let Some(m) = merged.get_mut(i) {
            match m.take() {
                Some(above) => base.overlay(&above),
                None => {
                    if let Some(top) = incoming.get(i) {
                        base.overlay(top);
                    }
                }
            }
            *m = Some(base);
        }
    }
}
