//! The keys of a file the gate carries without reading them (`path`, `inherited`, custom keys): a list
//! while a file is read or changed, one shared list once it is stored. A sandbox echoes every stored
//! file on every call, and each echo is the stored file again: a shared list makes that copy a
//! reference count, not a new list.

use std::ops::Deref;
use std::rc::Rc;

use crate::json::{RawText, Str};

/// One extra key and its value as JSON text.
pub type ExtraKey<'a> = (Str<'a>, RawText<'a>);

/// A file's extra keys, in order.
#[derive(Debug, Clone)]
pub enum Extra<'a> {
    /// Being read or changed.
    List(Vec<ExtraKey<'a>>),
    /// Stored: shared by every copy of the file.
    Shared(Rc<Vec<ExtraKey<'static>>>),
}

impl Default for Extra<'_> {
    fn default() -> Self {
        Extra::List(Vec::new())
    }
}

impl<'a> Deref for Extra<'a> {
    type Target = [ExtraKey<'a>];

    fn deref(&self) -> &[ExtraKey<'a>] {
        match self {
            Extra::List(v) => v,
            Extra::Shared(s) => s,
        }
    }
}

impl PartialEq for Extra<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<'a> From<Vec<ExtraKey<'a>>> for Extra<'a> {
    fn from(v: Vec<ExtraKey<'a>>) -> Self {
        Extra::List(v)
    }
}

impl<'a> Extra<'a> {
    /// The keys as a list (a shared one copied unless this is its only holder: reference counts, no text).
    pub fn into_list(self) -> Vec<ExtraKey<'a>> {
        match self {
            Extra::List(v) => v,
            // The only copy: the list itself; else its keys (reference counts).
            Extra::Shared(s) => Rc::try_unwrap(s).unwrap_or_else(|s| (*s).clone()),
        }
    }

    /// Appends a key.
    pub fn push(&mut self, entry: ExtraKey<'a>) {
        let mut list = std::mem::take(self).into_list();
        list.push(entry);
        *self = Extra::List(list);
    }

    /// Keeps the keys `keep` accepts, asking it once per key; a shared list stays shared when it keeps
    /// them all.
    pub fn retain(&mut self, mut keep: impl FnMut(&ExtraKey<'a>) -> bool) {
        let Some(first) = self.iter().position(|e| !keep(e)) else {
            return;
        };
        let mut list = std::mem::take(self).into_list();
        let mut at = 0;
        list.retain(|e| {
            at += 1;
            // The keys before `first` were asked already (and kept); `first` was refused.
            match (at - 1).cmp(&first) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Equal => false,
                std::cmp::Ordering::Greater => keep(e),
            }
        });
        *self = Extra::List(list);
    }

    /// The keys owning their text, shared (none: an empty list, which allocates nothing).
    #[inline]
    pub fn into_owned(self) -> Extra<'static> {
        match self {
            Extra::Shared(s) => Extra::Shared(s),
            Extra::List(v) if v.is_empty() => Extra::List(Vec::new()),
            Extra::List(v) => Extra::Shared(Rc::new(
                v.into_iter()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect(),
            )),
        }
    }

    /// The keys owning their text, sharing `like`'s list when every key and value is the same (an
    /// echo of a stored file).
    pub fn into_stored(self, like: &Extra<'static>) -> Extra<'static> {
        if let Extra::Shared(l) = like {
            if self[..] == l[..] {
                return Extra::Shared(Rc::clone(l));
            }
        }
        self.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::RawJson;

    fn raw(t: &str) -> RawText<'static> {
        let v: Box<RawJson> = serde_json::from_str(t).unwrap();
        RawText::Shared(Rc::from(v))
    }

    fn list(keys: &[(&str, &str)]) -> Extra<'static> {
        Extra::List(
            keys.iter()
                .map(|(k, v)| (Str::from((*k).to_owned()), raw(v)))
                .collect(),
        )
    }

    #[test]
    fn a_stored_list_is_shared_by_its_copies() {
        let stored = list(&[("inherited", "true")]).into_owned();
        let Extra::Shared(s) = &stored else {
            panic!("not shared")
        };
        let copy = stored.clone();
        let Extra::Shared(c) = &copy else {
            panic!("not shared")
        };
        assert!(Rc::ptr_eq(s, c));
        assert_eq!(copy, list(&[("inherited", "true")]));
    }

    #[test]
    fn no_keys_allocate_nothing() {
        assert!(matches!(Extra::default().into_owned(), Extra::List(v) if v.capacity() == 0));
    }

    #[test]
    fn an_echo_shares_the_stored_list_and_a_change_does_not() {
        let stored = list(&[("path", "\"/a\""), ("inherited", "true")]).into_owned();
        let Extra::Shared(s) = &stored else {
            panic!("not shared")
        };
        let echo = list(&[("path", "\"/a\""), ("inherited", "true")]).into_stored(&stored);
        assert!(matches!(&echo, Extra::Shared(e) if Rc::ptr_eq(e, s)));
        let changed = list(&[("path", "\"/a\""), ("inherited", "false")]).into_stored(&stored);
        assert_eq!(changed, list(&[("path", "\"/a\""), ("inherited", "false")]));
        assert!(matches!(&changed, Extra::Shared(e) if !Rc::ptr_eq(e, s)));
    }

    #[test]
    fn retain_asks_once_per_key_and_keeps_a_list_it_does_not_change() {
        let stored = list(&[("a", "1"), ("b", "null"), ("c", "2"), ("d", "null")]).into_owned();
        let mut kept = stored.clone();
        let mut asked = 0;
        kept.retain(|_| {
            asked += 1;
            true
        });
        assert_eq!(asked, 4);
        assert!(
            matches!((&kept, &stored), (Extra::Shared(k), Extra::Shared(s)) if Rc::ptr_eq(k, s))
        );
        let mut asked = Vec::new();
        kept.retain(|(k, v)| {
            asked.push(k.as_str().to_owned());
            v.get() != "null"
        });
        assert_eq!(asked, ["a", "b", "c", "d"]);
        assert_eq!(kept, list(&[("a", "1"), ("c", "2")]));
    }

    #[test]
    fn a_shared_list_changes_as_a_copy() {
        let stored = list(&[("a", "1"), ("b", "null")]).into_owned();
        let mut copy = stored.clone();
        copy.retain(|(k, _)| k.as_str() == "a");
        copy.push((Str::from("c".to_owned()), raw("2")));
        assert_eq!(copy, list(&[("a", "1"), ("c", "2")]));
        assert_eq!(stored, list(&[("a", "1"), ("b", "null")]));
    }
}
