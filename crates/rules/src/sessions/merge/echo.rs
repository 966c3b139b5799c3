//! The fold of an answer that echoes the list it was sent. Sandboxes answer with the files the call
//! was given, in the order it was given, followed by what the run wrote: the incoming files then begin
//! with stored files, each at its own place with its identity and name (the *echoes*), and end with a
//! few others (the *new* files), while a few stored files may have gone unechoed (the *rest*). When no
//! two stored files share an identity or a name, and no new file has the identity of a stored one,
//! the #156 overlay and the retention by name reduce to: the rest that no new file supersedes by name,
//! then each echoed file under its echo, then the new files. This module does that with one comparison
//! per echo and a few per new file, and no hash; any other answer takes the general fold. The tests
//! hold both to the reference merge.

use crate::table::{HashMap, HashSet};

use crate::files::{FileRef, Identity, StoredFile};
use crate::json::{lanes, Str};

/// Most new files (and unechoed stored files) a fold in step compares against the others; beyond it,
/// the general fold's indexes are cheaper.
const MAX_OTHERS: usize = 16;

/// Whether `a` and `b` have the same identity as the general fold keys them (`identity("")`: every
/// incoming file has storage by now), checking for shared text first.
fn same_identity(a: &FileRef<'_>, b: &FileRef<'_>) -> bool {
    let (x, y) = (a.identity(""), b.identity(""));
    if x.storage().len() != y.storage().len() {
        return x == y;
    }
    // The NUL falls at the same place: the parts compare directly.
    a.id == b.id && lanes::equal(x.storage().as_bytes(), y.storage().as_bytes())
}

/// What a file's identity looks like at a glance: its storage's length, its id's length and first
/// word. Files of equal identity look alike unless a NUL splits their joined text differently (their
/// storages then differ in length), so most stored files are told apart from a new one in a few
/// instructions.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Shape {
    storage: usize,
    id: usize,
    word: Option<[u8; 8]>,
}

impl Shape {
    fn of(f: &FileRef<'_>) -> Shape {
        let id = f.id.as_bytes();
        Shape {
            storage: f.identity("").storage().len(),
            id: id.len(),
            word: id.get(..8).and_then(|w| <[u8; 8]>::try_from(w).ok()),
        }
    }

    /// Whether files of these shapes may have the same identity.
    fn may_match(self, other: Shape) -> bool {
        self.storage != other.storage || self == other
    }
}

fn same_name(a: &FileRef<'_>, b: &FileRef<'_>) -> bool {
    a.name == b.name
}

/// Whether no two of `files` share an identity or a name. (The sets are of the general fold's types,
/// whose code the module already carries.)
pub(super) fn distinct(files: &[FileRef<'_>]) -> bool {
    let mut identities: HashMap<Identity<'_>, usize> = HashMap::new();
    let mut names: HashSet<&str> = HashSet::new();
    files.iter().enumerate().all(|(i, f)| {
        identities.insert(f.identity(""), i).is_none() && names.insert(f.name.as_str())
    })
}

/// Whether no two of `files` (a few) share an identity or a name. Identities are compared only where
/// their shapes may match: a run's outputs have ids of their own, told apart at a glance.
fn distinct_few(files: &[FileRef<'_>]) -> bool {
    files.iter().enumerate().all(|(i, f)| {
        let shape = Shape::of(f);
        files
            .iter()
            .skip(i + 1)
            .all(|g| !(same_name(f, g) || (shape.may_match(Shape::of(g)) && same_identity(f, g))))
    })
}

/// Folds `incoming` into `existing` in step when it echoes them (see the module doc), leaving out the
/// new files `dropped` says (3.9's guard of inherited echoes: a new file is one the partition does not
/// have). `known_distinct` is what the partition's last write knew (see [`distinct`]). Returns whether
/// the folded files are distinct in turn, or `None` (and `existing` untouched) when the answer is not
/// such an echo. With it comes `exec` (the answer's exec session id) owned, shared with the new files
/// stored under it.
pub(super) fn fold_in_step<'a>(
    existing: &mut Vec<StoredFile>,
    incoming: &[FileRef<'a>],
    exec: &Str<'a>,
    known_distinct: Option<bool>,
    dropped: impl Fn(&FileRef<'a>) -> bool,
) -> Option<(bool, Str<'static>)> {
    let echoed = incoming
        .iter()
        .zip(existing.iter())
        .take_while(|(e, s)| same_name(e, s) && same_identity(e, s))
        .count();
    let (echoes, new) = (incoming.get(..echoed)?, incoming.get(echoed..)?);
    let rest = existing.len().saturating_sub(echoed);
    if echoed == 0 || new.len() > MAX_OTHERS || rest > MAX_OTHERS {
        return None;
    }
    let shapes: Vec<Shape> = new.iter().map(Shape::of).collect();
    let collides = |s: &StoredFile| {
        let shape = Shape::of(s);
        new.iter()
            .zip(&shapes)
            .any(|(n, &sh)| sh.may_match(shape) && same_identity(n, s))
    };
    if existing.iter().any(collides) {
        return None;
    }
    let new_names_echoed = new.iter().any(|n| echoes.iter().any(|e| same_name(n, e)));
    if !known_distinct.unwrap_or_else(|| distinct(existing)) {
        return None;
    }

    for (under, echo) in existing.iter_mut().zip(echoes) {
        under.overlay(echo);
    }
    // Room for every new file first: the filter hides the count from `collect`, which would start
    // at four and move the files on the fifth.
    let mut owned: Vec<StoredFile> = Vec::with_capacity(new.len());
    // The new files stored under the exec session share the partition's copy of its id.
    let mut kept_exec: Option<Str<'static>> = None;
    for f in new.iter().filter(|f| !dropped(f)) {
        let mut f = f.clone();
        f.share_exec_storage(exec, &mut kept_exec);
        owned.push(f.into_owned());
    }
    let new = owned;
    let exec = kept_exec.unwrap_or_else(|| exec.to_owned_str());
    // The rest, but for what a new file supersedes by name, keeps its place ahead of the echoes (a
    // few files, moved one by one, and only when some survive).
    let mut at = echoed;
    while let Some(s) = existing.get(at) {
        if new.iter().any(|n| same_name(n, s)) {
            existing.remove(at);
        } else {
            at += 1;
        }
    }
    for _ in echoed..existing.len() {
        if let Some(survivor) = existing.pop() {
            existing.insert(0, survivor);
        }
    }
    let all_distinct = !new_names_echoed && distinct_few(&new);
    existing.extend(new);
    Some((all_distinct, exec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::Field;

    fn file(storage: &'static str, id: &'static str) -> FileRef<'static> {
        let mut f = FileRef::new(id, "n");
        f.storage_session_id = Field::Set(Str::from(storage));
        f
    }

    /// Identities are their joined text: however a NUL splits it, equal identities are equal and their
    /// shapes may match; different ones of the same shape are still told apart.
    #[test]
    fn equal_identities_match_whatever_the_split() {
        for (a, b) in [
            (file("s\0x", "y"), file("s", "x\0y")),
            (file("s", "ab\0cdefghij"), file("s\0ab", "cdefghij")),
            (file("", "abcdefghijk"), file("", "abcdefghijk")),
        ] {
            assert!(same_identity(&a, &b), "{a:?} {b:?}");
            assert!(Shape::of(&a).may_match(Shape::of(&b)), "{a:?} {b:?}");
        }
        let (a, b) = (file("s", "abcdefghij"), file("s", "abcdefghiJ"));
        assert!(Shape::of(&a).may_match(Shape::of(&b)));
        assert!(!same_identity(&a, &b));
        assert!(!Shape::of(&a).may_match(Shape::of(&file("s", "Abcdefghij"))));
    }
}
