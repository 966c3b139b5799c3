//! Narrowed file lists in answers, by reference.
//!
//! A context carries the partition's narrowed files, and most calls of a conversation see a list the
//! JavaScript layer has already built (nothing was written since), or one that differs from it by a few
//! files (a fold appended outputs, every echo kept its identity). So a list is written as its
//! generation when the caller holds it, as the picks from a list it holds plus the new refs when it
//! holds a base, and in full otherwise:
//!
//! ```text
//! {"gen":7}                                    the caller's list 7, as it is
//! {"gen":9,"base":7,"pick":[0,1,-1],"add":[…]} list 7's items 0 and 1, then the first added ref
//! {"gen":9,"base":7,"keep":2,"pick":[-1],"add":[…]}  list 7's first 2 items, then the first added ref
//! {"gen":9,"add":[…]}                          every ref, in order
//! ```
//!
//! `keep` (present when above 0) is the length of the prefix the two lists share, which a fold that
//! echoed every file leaves as it was: the picks go on after it.
//!
//! An added ref is written as the array of its values in wire-key order, `[id, resource_id, name,
//! storage_session_id, kind]` plus the `version` of a skill, with `null` for an absent storage id
//! ([`crate::wire::PACKED_REF`]): the JavaScript layer builds the object with the keys in that order
//! (half the text to write and to parse).
//!
//! The caller names the list it holds (`have`); the gate keeps the last few lists it wrote, so that it can
//! diff against them. [`crate::wire::client`] is the caller's side, for the native clients of the
//! operations.

use code_session_gate_rules::table::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::rc::Rc;

use code_session_gate_rules::files::narrow::{CodeEnvFile, CodeEnvKind};
use code_session_gate_rules::json::write::{push_i64, push_str, push_u64};

/// How many written lists the gate keeps to diff against ([`crate::wire::LISTS_KEPT`]).
const KEPT: usize = crate::wire::LISTS_KEPT;

/// A narrowed list and the partition generation it was narrowed from.
pub type List = (u64, Rc<[CodeEnvFile<'static>]>);

/// The lists the gate wrote lately.
#[derive(Debug, Default)]
pub struct Lists {
    kept: Vec<List>,
}

impl Lists {
    /// Remembers `list` (most recent last).
    pub fn remember(&mut self, list: &List) {
        if self.kept.iter().any(|(g, _)| *g == list.0) {
            return;
        }
        if self.kept.len() >= KEPT {
            self.kept.remove(0);
        }
        self.kept.push(list.clone());
    }

    /// The list of generation `gen`, if still kept.
    pub fn get(&self, gen: u64) -> Option<&List> {
        self.kept.iter().find(|(g, _)| *g == gen)
    }

    /// Forgets every list (their generations will never come back).
    pub fn clear(&mut self) {
        self.kept.clear();
    }
}

/// A list as an answer writes it, relative to what the caller holds: worked out when the answer is
/// assembled, written when the answer is ([`ListOut::write`]).
#[derive(Debug)]
pub struct ListOut {
    list: List,
    base: Option<u64>,
    /// How many items the list shares with the base's start; `pick` goes on from there.
    keep: usize,
    pick: Option<Vec<i64>>,
    known: bool,
}

impl Lists {
    /// `list` for a caller that holds the list of generation `have` (0: none); the list is kept for
    /// later diffs.
    pub fn out(&mut self, list: List, have: u64) -> ListOut {
        let known = have != 0 && have == list.0;
        let base = (!known && have != 0).then(|| self.get(have)).flatten();
        let (base, keep, pick) = match base {
            Some((g, b)) => {
                let keep = list
                    .1
                    .iter()
                    .zip(b.iter())
                    .take_while(|(f, b)| b.same_texts(f) || b == f)
                    .count();
                let rest = list.1.get(keep..).unwrap_or_default();
                (Some(*g), keep, Some(picks(rest, keep, b)))
            }
            None => (None, 0, None),
        };
        self.remember(&list);
        ListOut {
            list,
            base,
            keep,
            pick,
            known,
        }
    }
}

/// For each item of `new` (the list's items from `from` on): the index of the first equal ref in
/// `base`, or -1 when `base` has none. Items are first compared with the one at the same position by
/// their shared text (no hashing in the common case of an unchanged or appended list); a few others
/// are looked for one by one (a new output is told absent by the length and first word of its id);
/// past those, in indexes of `base` built on first need: by a hash of the id (equal refs have equal
/// ids), then, for a ref whose id `base` has in another ref, by a hash of all of its values. The whole
/// diff stays linear in the two lists, also when every ref changed (a fold that moved every file to a
/// new exec session). Only refs whose hashes collide are compared one by one.
fn picks(new: &[CodeEnvFile<'static>], from: usize, base: &[CodeEnvFile<'static>]) -> Vec<i64> {
    /// Misses looked for one by one before the indexes pay.
    const FEW: usize = 16;
    let hasher = hashbrown::DefaultHashBuilder::default();
    // Each value's bytes, then a byte no UTF-8 text holds (0xff; 0xfe for an absent storage id and
    // version), so that different refs feed different bytes.
    let hash = |f: &CodeEnvFile<'static>| {
        let version = match &f.kind {
            CodeEnvKind::Skill { version } => Some(version.get()),
            _ => None,
        };
        let mut h = hasher.build_hasher();
        for part in [
            Some(f.id.as_str()),
            Some(f.resource_id.as_str()),
            Some(f.name.as_str()),
            f.storage_session_id.as_deref(),
            Some(f.kind.as_str()),
            version,
        ] {
            match part {
                Some(text) => {
                    h.write(text.as_bytes());
                    h.write_u8(0xff);
                }
                None => h.write_u8(0xfe),
            }
        }
        h.finish()
    };
    let id_hash = |f: &CodeEnvFile<'static>| hasher.hash_one(f.id.as_str());
    let word = |f: &CodeEnvFile<'static>| {
        let id = f.id.as_bytes();
        let first = id.get(..8).and_then(|w| <[u8; 8]>::try_from(w).ok());
        (id.len(), first)
    };
    // Later refs first, so that an equal ref met again keeps the first index.
    let index_by = |key: &dyn Fn(&CodeEnvFile<'static>) -> u64| {
        let mut m = HashMap::with_capacity(base.len());
        for (j, b) in base.iter().enumerate().rev() {
            m.insert(key(b), j);
        }
        m
    };
    let mut misses = 0;
    let mut by_id: Option<HashMap<u64, usize>> = None;
    let mut index: Option<HashMap<u64, usize>> = None;
    new.iter()
        .enumerate()
        .map(|(i, f)| {
            let i = i + from;
            if base.get(i).is_some_and(|b| b.same_texts(f) || b == f) {
                return i as i64;
            }
            misses += 1;
            if misses <= FEW {
                let w = word(f);
                return base
                    .iter()
                    .position(|b| word(b) == w && b == f)
                    .map_or(-1, |k| k as i64);
            }
            let by_id = by_id.get_or_insert_with(|| index_by(&id_hash));
            match by_id.get(&id_hash(f)) {
                None => return -1,
                Some(&j) if base.get(j) == Some(f) => return j as i64,
                Some(_) => {}
            }
            let index = index.get_or_insert_with(|| index_by(&hash));
            match index.get(&hash(f)) {
                None => -1,
                Some(&j) if base.get(j) == Some(f) => j as i64,
                // Another ref with the same hash (a collision, by chance only): the first equal one.
                Some(_) => base.iter().position(|b| b == f).map_or(-1, |k| k as i64),
            }
        })
        .collect()
}

impl ListOut {
    /// About how much text [`ListOut::write`] adds: the refs it writes at a typical length, and its
    /// picks (so that an answer grows once, not ref by ref).
    pub fn size_hint(&self) -> usize {
        if self.known {
            return 24;
        }
        let listed = self.list.1.len().saturating_sub(self.keep);
        match &self.pick {
            Some(pick) => {
                let added = pick.iter().filter(|&&p| p < 0).count();
                48 + added * 112 + pick.len() * 4
            }
            None => 48 + listed * 112,
        }
    }

    /// Writes the list as the module comment shows.
    pub fn write(&self, out: &mut String) {
        let (gen, list) = &self.list;
        out.push_str("{\"gen\":");
        push_u64(out, *gen);
        if self.known {
            out.push('}');
            return;
        }
        if let Some(base) = self.base {
            out.push_str(",\"base\":");
            push_u64(out, base);
        }
        if self.keep > 0 {
            out.push_str(",\"keep\":");
            push_u64(out, self.keep as u64);
        }
        let rest = list.get(self.keep..).unwrap_or_default();
        out.reserve(self.size_hint());
        out.push_str(",\"add\":[");
        let mut first = true;
        for (i, f) in rest.iter().enumerate() {
            let picked = self
                .pick
                .as_deref()
                .and_then(|p| p.get(i))
                .is_some_and(|&j| j >= 0);
            if !picked {
                if !first {
                    out.push(',');
                }
                first = false;
                write_packed(f, out);
            }
        }
        out.push(']');
        if let Some(pick) = &self.pick {
            out.push_str(",\"pick\":[");
            for (i, p) in pick.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_i64(out, *p);
            }
            out.push(']');
        }
        out.push('}');
    }
}

/// A ref as the array of its values (see the module comment).
fn write_packed(f: &CodeEnvFile<'static>, out: &mut String) {
    out.push('[');
    push_str(out, &f.id);
    out.push(',');
    push_str(out, &f.resource_id);
    out.push(',');
    push_str(out, &f.name);
    out.push(',');
    match &f.storage_session_id {
        Some(s) => push_str(out, s),
        None => out.push_str("null"),
    }
    // A kind's name is a literal, nothing in it to escape.
    out.push_str(",\"");
    out.push_str(f.kind.as_str());
    out.push('"');
    if let CodeEnvKind::Skill { version } = &f.kind {
        out.push(',');
        out.push_str(version.get());
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(list: ListOut) -> String {
        let mut out = String::new();
        list.write(&mut out);
        out
    }
    use code_session_gate_rules::files::narrow::to_injected_file_ref;
    use code_session_gate_rules::files::FileRef;
    use code_session_gate_rules::json::{self, Str};

    fn list(gen: u64, names: &[&'static str]) -> List {
        let exec = Str::from("e");
        let refs: Vec<CodeEnvFile<'static>> = names
            .iter()
            .map(|n| to_injected_file_ref(&FileRef::new(*n, *n), Some(&exec)))
            .collect();
        (gen, refs.into())
    }

    #[test]
    fn lists_are_written_by_reference_by_diff_or_in_full() {
        let mut lists = Lists::default();
        let a = list(3, &["a", "b"]);
        lists.remember(&a);
        assert_eq!(written(lists.out(a, 3)), r#"{"gen":3}"#);
        let b = list(4, &["b", "c"]);
        assert_eq!(
            written(lists.out(b.clone(), 3)),
            r#"{"gen":4,"base":3,"add":[["c","c","c","e","user"]],"pick":[1,-1]}"#
        );
        assert_eq!(
            written(lists.out(b.clone(), 0)),
            r#"{"gen":4,"add":[["b","b","b","e","user"],["c","c","c","e","user"]]}"#
        );
        // A base the gate no longer keeps: the list in full.
        assert!(written(lists.out(b, 99)).starts_with(r#"{"gen":4,"add":[["b""#));
    }

    #[test]
    fn picks_name_the_first_equal_ref_whatever_moved() {
        let exec = |e: &'static str| Str::from(e);
        let narrow = |names: &[&'static str], e: &'static str| -> Vec<CodeEnvFile<'static>> {
            names
                .iter()
                .map(|n| to_injected_file_ref(&FileRef::new(*n, *n), Some(&exec(e))))
                .collect()
        };
        // Every ref moved to another exec session: nothing in common.
        assert_eq!(
            picks(&narrow(&["a", "b"], "e2"), 0, &narrow(&["a", "b"], "e1")),
            [-1, -1]
        );
        // Reordered, with a ref given twice in the base: the first equal one.
        let base = narrow(&["a", "b", "a", "c"], "e");
        assert_eq!(
            picks(&narrow(&["c", "a", "x", "b"], "e"), 0, &base),
            [3, 0, -1, 1]
        );
        // A ref that equals a later one of the same id only: found by all of its values.
        let mut base = narrow(&["a"], "e1");
        base.extend(narrow(&["a"], "e2"));
        assert_eq!(picks(&narrow(&["a"], "e2"), 0, &base), [1]);
    }

    #[test]
    fn added_refs_are_packed_in_wire_key_order() {
        let mut skill = FileRef::new("s", "SKILL.md");
        skill.kind = code_session_gate_rules::files::Field::Set(Str::from("skill"));
        let version: &'static json::RawJson = serde_json::from_str("7.50").unwrap();
        skill.version =
            code_session_gate_rules::files::Field::Set(json::RawText::Borrowed(version));
        let agent = {
            let mut f = FileRef::new("a", "out.csv");
            f.kind = code_session_gate_rules::files::Field::Set(Str::from("agent"));
            f.resource_id = code_session_gate_rules::files::Field::Set(Str::from("agent-1"));
            f
        };
        // No exec id and no storage of its own: the storage key is absent on the wire.
        let refs: Vec<CodeEnvFile<'static>> = [skill, agent]
            .iter()
            .map(|f| to_injected_file_ref(f, None))
            .collect();
        let mut lists = Lists::default();
        assert_eq!(
            written(lists.out((2, refs.into()), 0)),
            r#"{"gen":2,"add":[["s","s","SKILL.md",null,"skill",7.50],["a","agent-1","out.csv",null,"agent"]]}"#
        );
    }
}
