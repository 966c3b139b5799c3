//! A partition's files while folds run over them: the files in order, with tombstones for removed ones
//! and indexes by name and by identity, so that one fold costs what its artifact names (its files, the
//! names it deletes, the stored files those touch), not the size of the partition. A batch of N results
//! is then linear in what the results carry instead of N times the partition, and builds the stored list
//! once, at the end.

use hashbrown::HashMap;

use crate::core::files::{identity_key, StoredFile};
use crate::core::json::Str;

/// Tombstones tolerated beyond the live files before the slots and indexes are rebuilt.
const SLACK: usize = 1024;

/// The files of one partition being folded into.
#[derive(Debug, Default)]
pub(super) struct WorkingFiles {
    /// The files in partition order; `None` where one was removed (positions are never reused).
    slots: Vec<Option<StoredFile>>,
    live: usize,
    by_name: HashMap<Str<'static>, Vec<usize>>,
    /// Keyed by `` `${storage_session_id ?? ""}\0${id}` `` (every identity here uses the empty fallback:
    /// 3.9 fills storage-less files before the first fold; 3.6 keys them with `""`, as its merge does).
    by_identity: HashMap<String, Vec<usize>>,
}

impl WorkingFiles {
    /// The files of a partition, in order.
    pub(super) fn new(files: Vec<StoredFile>) -> Self {
        let mut w = WorkingFiles {
            slots: Vec::with_capacity(files.len()),
            ..WorkingFiles::default()
        };
        for f in files {
            w.push(f);
        }
        w
    }

    /// Appends `file` after every other.
    pub(super) fn push(&mut self, file: StoredFile) {
        let at = self.slots.len();
        self.by_name.entry(file.name.clone()).or_default().push(at);
        self.by_identity.entry(key_of(&file)).or_default().push(at);
        self.slots.push(Some(file));
        self.live += 1;
    }

    /// The file at `at`, if it is still there.
    pub(super) fn get(&self, at: usize) -> Option<&StoredFile> {
        self.slots.get(at).and_then(Option::as_ref)
    }

    /// Removes and returns the file at `at`.
    pub(super) fn take(&mut self, at: usize) -> Option<StoredFile> {
        let taken = self.slots.get_mut(at).and_then(Option::take);
        if taken.is_some() {
            self.live -= 1;
        }
        taken
    }

    /// Positions of the files named `name`, in partition order.
    pub(super) fn named(&self, name: &str) -> impl Iterator<Item = usize> + '_ {
        self.live_positions(self.by_name.get(name))
    }

    /// Positions of the files whose identity key is `key`, in partition order.
    pub(super) fn with_identity(&self, key: &str) -> impl Iterator<Item = usize> + '_ {
        self.live_positions(self.by_identity.get(key))
    }

    fn live_positions<'s>(
        &'s self,
        list: Option<&'s Vec<usize>>,
    ) -> impl Iterator<Item = usize> + 's {
        list.into_iter()
            .flatten()
            .copied()
            .filter(|at| self.get(*at).is_some())
    }

    /// Rebuilds slots and indexes once removed files outnumber the live ones (amortised: each rebuild
    /// is paid for by the removals before it).
    pub(super) fn compact(&mut self) {
        if self.slots.len() - self.live > self.live + SLACK {
            let files: Vec<StoredFile> = std::mem::take(&mut self.slots)
                .into_iter()
                .flatten()
                .collect();
            *self = WorkingFiles::new(files);
        }
    }

    /// The files, in order.
    pub(super) fn into_files(self) -> Vec<StoredFile> {
        let mut out = Vec::with_capacity(self.live);
        out.extend(self.slots.into_iter().flatten());
        out
    }
}

/// A file's identity key with the empty fallback (see [`WorkingFiles::by_identity`]).
pub(super) fn key_of(file: &StoredFile) -> String {
    identity_key(file.storage_session_id.as_deref().unwrap_or(""), &file.id)
}
