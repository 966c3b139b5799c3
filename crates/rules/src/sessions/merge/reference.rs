//! The merge as a whole-list rebuild, one artifact at a time: the rules as first written (quadratic
//! over a batch), kept for the tests as the reference the indexed merge is checked against.

use crate::table::{HashMap, HashSet};

use super::Artifact;
use crate::config::Profile;
use crate::files::{Field, FileRef, Identity, StoredFile};
use crate::json::{RawText, Str};
use crate::sessions::baseline::Baseline;
use crate::sessions::{CodeSession, SessionMap};

/// Folds `artifact` into partition `key`, stamping `now` as `lastUpdated`. `baseline` is what the request
/// was given (3.9; `None` when the fold runs without request bookkeeping).
pub fn update_code_session_reference(
    sessions: &mut SessionMap,
    key: &str,
    artifact: Artifact<'_>,
    baseline: Option<&Baseline>,
    profile: Profile,
    now: &RawText<'_>,
) {
    let exec = artifact.exec_session_id.to_owned_str();
    let previous_exec = sessions
        .get(key)
        .and_then(|s| s.session_id.clone())
        .unwrap_or_default();
    let existing = sessions.take_files(key);
    let merged = match profile {
        Profile::V3_6 => merge_3_6(existing, artifact.files, &exec),
        Profile::V3_9 => merge_3_9(
            existing,
            artifact.files,
            &artifact.deleted_files,
            &exec,
            &previous_exec,
            baseline,
        ),
    };
    sessions.set(key, CodeSession::written(exec, merged, now.to_owned_raw()));
}

fn merge_3_6(
    existing: Vec<StoredFile>,
    incoming: Vec<FileRef<'_>>,
    exec: &Str<'static>,
) -> Vec<StoredFile> {
    if incoming.is_empty() {
        return existing;
    }
    let incoming = incoming
        .into_iter()
        .map(|mut f| {
            fill_storage(&mut f, exec);
            f
        })
        .collect();
    // Identity of an existing storage-less file is "" + id: it can never match an incoming file.
    overlay_and_retain(existing, incoming, "", |_| false)
}

fn fill_storage(file: &mut FileRef<'_>, storage: &Str<'static>) {
    if file.storage_session_id.get().is_none() {
        file.storage_session_id = Field::Set(storage.clone());
    }
}

fn merge_3_9(
    mut existing: Vec<StoredFile>,
    incoming: Vec<FileRef<'_>>,
    deleted_files: &[Str<'_>],
    exec: &Str<'static>,
    previous_exec: &Str<'static>,
    baseline: Option<&Baseline>,
) -> Vec<StoredFile> {
    for f in &mut existing {
        fill_storage(f, previous_exec);
    }
    // Only names the request was given count, each with the identity it saw.
    let deleted: HashMap<&str, &str> = deleted_files
        .iter()
        .filter_map(|name| Some((name.as_str(), baseline?.get(name)?)))
        .collect();
    let deleted_as = |name: &str, identity: &Identity<'_>| {
        deleted.get(name).is_some_and(|k| identity.matches_key(k))
    };
    let is_deleted = |f: &StoredFile| deleted_as(&f.name, &f.identity(previous_exec));

    if incoming.is_empty() {
        existing.retain(|f| !is_deleted(f));
        return existing;
    }

    // Only an echo the request was given can be refused for resurrecting: without a baseline no
    // incoming file is looked up here, so the set is not built.
    let existing_identities: HashSet<Identity<'_>> = match baseline {
        Some(_) => existing.iter().map(|e| e.identity(previous_exec)).collect(),
        None => HashSet::new(),
    };
    let mut kept = Vec::with_capacity(incoming.len());
    for mut file in incoming {
        if file.storage_session_id.get().is_none() {
            let storage = baseline.and_then(|b| b.storage_for(&file.name, &file.id));
            match storage {
                Some(s) => file.storage_session_id = Field::Set(Str::from(s.to_owned())),
                None => fill_storage(&mut file, exec),
            }
        }
        let identity = file.identity("");
        let tracked_by_request = baseline.is_some_and(|b| b.saw(&file.name, &identity));
        // An inherited echo of a file the request was given must not bring back what the partition lost or
        // what this very execution deleted.
        let resurrects =
            !existing_identities.contains(&identity) || deleted_as(&file.name, &identity);
        if file.is_inherited() && tracked_by_request && resurrects {
            continue;
        }
        kept.push(file);
    }
    drop(existing_identities);
    overlay_and_retain(existing, kept, previous_exec, is_deleted)
}

/// The #156 overlay (each existing file under the *last* incoming file of its identity, the first existing
/// file winning over later ones) and name-based retention; returns survivors then incoming files.
fn overlay_and_retain(
    existing: Vec<StoredFile>,
    incoming: Vec<FileRef<'_>>,
    existing_fallback: &str,
    is_deleted: impl Fn(&StoredFile) -> bool,
) -> Vec<StoredFile> {
    // For each existing file: the incoming slot it lies under, and whether it survives by name.
    let plan: Vec<(Option<usize>, bool)> = {
        let mut slots: HashMap<Identity<'_>, usize> = HashMap::with_capacity(incoming.len());
        let mut names: HashSet<&str> = HashSet::with_capacity(incoming.len());
        for (i, f) in incoming.iter().enumerate() {
            slots.insert(f.identity(""), i);
            names.insert(f.name.as_str());
        }
        existing
            .iter()
            .map(|e| {
                let slot = slots.get(&e.identity(existing_fallback)).copied();
                (slot, !names.contains(e.name.as_str()) && !is_deleted(e))
            })
            .collect()
    };
    let mut merged: Vec<Option<StoredFile>> = Vec::new();
    merged.resize_with(incoming.len(), || None);
    let mut out = Vec::with_capacity(existing.len() + incoming.len());
    for (e, (slot, survives)) in existing.into_iter().zip(plan) {
        let Some(i) = slot else {
            if survives {
                out.push(e);
            }
            continue;
        };
        // A renamed file of the same identity both survives and lies under the incoming one.
        let mut base = if survives {
            let copy = e.clone();
            out.push(e);
            copy
        } else {
            e
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
    out.extend(
        incoming
            .into_iter()
            .zip(merged)
            .map(|(f, m)| m.unwrap_or_else(|| f.into_owned())),
    );
    out
}
