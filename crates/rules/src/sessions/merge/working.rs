//! A partition's files while folds run over them: the files in order, with tombstones for removed ones
//! and indexes by name and by identity, so that one fold costs what its artifact names (its files, the
//! names it deletes, the stored files those touch), not the size of the partition. A batch of N results
//! is then linear in what the results carry instead of N times the partition, and builds the stored list
//! once, at the end. Building the indexes allocates nothing per file: keys share the stored text, and a
//! key held by one file keeps its position inline. A single fold (the common case: one result per
//! call) does not build them at all: one pass over the files finds what it touches, which is cheaper
//! than indexing files that are looked up once.

use crate::table::{HashMap, HashSet};

use crate::files::{Field, FileRef, Identity, OwnedIdentity, StoredFile};
use crate::json::Str;

/// Tombstones tolerated beyond the live files before the slots and indexes are rebuilt.
const SLACK: usize = 1024;

/// The positions of the files with one key, in order (one inline, the common case).
#[derive(Debug)]
enum Positions {
    One(usize),
    Many(Vec<usize>),
}

impl Positions {
    fn push(&mut self, at: usize) {
        match self {
            Positions::One(first) => *self = Positions::Many(vec![*first, at]),
            Positions::Many(v) => v.push(at),
        }
    }

    fn as_slice(&self) -> &[usize] {
        match self {
            Positions::One(at) => std::slice::from_ref(at),
            Positions::Many(v) => v,
        }
    }
}

/// The indexes of the files by name and by identity.
#[derive(Debug, Default)]
struct Index {
    by_name: HashMap<Str<'static>, Positions>,
    /// Every identity here uses the empty fallback: 3.9 fills storage-less files before the first fold;
    /// 3.6 keys them with `""`, as its merge does.
    by_identity: HashMap<OwnedIdentity, Positions>,
}

/// The files of one partition being folded into.
#[derive(Debug, Default)]
pub(super) struct WorkingFiles {
    /// The files in partition order; `None` where one was removed (positions are never reused).
    slots: Vec<Option<StoredFile>>,
    live: usize,
    /// `None` for a single fold, which scans instead.
    index: Option<Index>,
}

impl WorkingFiles {
    /// The files of a partition, in order; `indexed` for a sequence of folds.
    pub(super) fn new(files: Vec<StoredFile>, indexed: bool) -> Self {
        let mut w = WorkingFiles {
            slots: Vec::with_capacity(files.len()),
            live: 0,
            index: indexed.then(|| Index {
                by_name: HashMap::with_capacity(files.len()),
                by_identity: HashMap::with_capacity(files.len()),
            }),
        };
        for f in files {
            w.push(f);
        }
        w
    }

    /// Appends `file` after every other.
    pub(super) fn push(&mut self, file: StoredFile) {
        let at = self.slots.len();
        if let Some(index) = &mut self.index {
            add(&mut index.by_name, file.name.clone(), at);
            add(&mut index.by_identity, key_of(&file), at);
        }
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

    /// Positions, in partition order, of the files whose identity is a key of `identities` or whose
    /// name is in `names`.
    pub(super) fn touched(
        &self,
        identities: &HashMap<Identity<'_>, usize>,
        names: &HashSet<&str>,
    ) -> Vec<usize> {
        match &self.index {
            Some(index) => {
                // A bit per slot, read back in slot order: the positions sorted and without repeats, with
                // no sort (whose code the module would carry for this one use).
                let mut marks = vec![0u64; self.slots.len().div_ceil(64)];
                let hits = identities
                    .keys()
                    .flat_map(|key| self.live(index.by_identity.get(key)))
                    .chain(
                        names
                            .iter()
                            .flat_map(|name| self.live(index.by_name.get(*name))),
                    );
                for at in hits {
                    if let Some(word) = marks.get_mut(at / 64) {
                        *word |= 1 << (at % 64);
                    }
                }
                let mut out = Vec::new();
                for (w, &word) in marks.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        out.push(w * 64 + bits.trailing_zeros() as usize);
                        bits &= bits - 1;
                    }
                }
                out
            }
            None => self
                .slots
                .iter()
                .enumerate()
                .filter_map(|(at, f)| {
                    let f = f.as_ref()?;
                    (names.contains(f.name.as_str()) || identities.contains_key(&f.identity("")))
                        .then_some(at)
                })
                .collect(),
        }
    }

    /// For each of `identities`, whether some file still has it.
    pub(super) fn present(&self, identities: &[Identity<'_>]) -> Vec<bool> {
        match &self.index {
            Some(index) => identities
                .iter()
                .map(|k| self.live(index.by_identity.get(k)).next().is_some())
                .collect(),
            None if identities.is_empty() => Vec::new(),
            None => {
                // Each wanted identity → 1 once some file has it.
                let mut found: HashMap<Identity<'_>, usize> =
                    identities.iter().map(|k| (*k, 0)).collect();
                for f in self.slots.iter().flatten() {
                    if let Some(seen) = found.get_mut(&f.identity("")) {
                        *seen = 1;
                    }
                }
                identities
                    .iter()
                    .map(|k| found.get(k) == Some(&1))
                    .collect()
            }
        }
    }

    fn live<'s>(&'s self, list: Option<&'s Positions>) -> impl Iterator<Item = usize> + 's {
        list.map(Positions::as_slice)
            .unwrap_or(&[])
            .iter()
            .copied()
            .filter(|at| self.get(*at).is_some())
    }

    /// Rebuilds slots and indexes once removed files outnumber the live ones (amortised: each rebuild
    /// is paid for by the removals before it).
    pub(super) fn compact(&mut self) {
        if self.slots.len() - self.live > self.live + SLACK {
            let indexed = self.index.is_some();
            let files: Vec<StoredFile> = std::mem::take(&mut self.slots)
                .into_iter()
                .flatten()
                .collect();
            *self = WorkingFiles::new(files, indexed);
        }
    }

    /// The files, in order.
    pub(super) fn into_files(self) -> Vec<StoredFile> {
        let mut out = Vec::with_capacity(self.live);
        out.extend(self.slots.into_iter().flatten());
        out
    }
}

fn add<K: std::hash::Hash + Eq>(map: &mut HashMap<K, Positions>, key: K, at: usize) {
    match map.get_mut(&key) {
        Some(p) => p.push(at),
        None => {
            map.insert(key, Positions::One(at));
        }
    }
}

/// A stored file's identity with the empty fallback (see [`Index::by_identity`]), sharing its text
/// (lookups use the borrowed `file.identity("")`, which hashes and compares alike).
fn key_of(file: &FileRef<'_>) -> OwnedIdentity {
    let storage = match &file.storage_session_id {
        Field::Set(s) => s.to_owned_str(),
        Field::Absent | Field::Null => Str::Borrowed(""),
    };
    OwnedIdentity::new(storage, file.id.to_owned_str())
}
