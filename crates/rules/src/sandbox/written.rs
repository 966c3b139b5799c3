//! The refs of a partition's last forwarded request, each with the JSON text it was sent as. A call's
//! refs are the partition's narrowed files, and from one call to the next most of them are the same
//! files: checking a ref and writing it depend on the ref and the dialect alone, so a ref equal to the
//! one at its place last time is sent as the text written then.
//!
//! Only a list whose every ref passes the dialect's checks untouched and whose names are distinct is
//! written this way (such a list is sent as it is, one ref each, with no note); any other is checked
//! the general way ([`super::refs::check_narrowed`]).

use std::rc::Rc;

use super::refs::check_one;
use super::Dialect;
use crate::files::narrow::CodeEnvFile;

/// The most text the refs of one request may hold to be remembered.
const MAX_WRITTEN_TEXT: usize = 4 << 20;

/// The refs of the last request written, the list as it was narrowed and its text: the JSON array as
/// it was sent, and where each ref's text ends in it (one text, not one per ref).
#[derive(Debug, Clone, Default)]
pub struct WrittenRefs {
    dialect: Option<Dialect>,
    list: Option<Rc<[CodeEnvFile<'static>]>>,
    text: Rc<String>,
    ends: Vec<usize>,
}

/// A memo of what refs are written as: it changes no request, so it makes no difference to equality.
impl PartialEq for WrittenRefs {
    fn eq(&self, _: &WrittenRefs) -> bool {
        true
    }
}

impl WrittenRefs {
    /// `files` (narrowed, with distinct names) as the JSON array a `dialect` request sends, when every
    /// ref passes the dialect's checks untouched; `None` when one does not, which the general check
    /// then names. These refs are remembered for the next request (the text is shared with the memo,
    /// not copied).
    pub fn write(
        &mut self,
        dialect: Dialect,
        files: &Rc<[CodeEnvFile<'static>]>,
    ) -> Option<Rc<String>> {
        let before = std::mem::take(self);
        let known = (before.dialect == Some(dialect))
            .then_some(before.list.as_ref())
            .flatten();
        // The very list written last time (the partition unchanged): the same text.
        if known.is_some_and(|k| Rc::ptr_eq(k, files)) {
            let text = before.text.clone();
            *self = before;
            return Some(text);
        }
        // Where ref `i` stood in the last text (between the comma or bracket before it and its end).
        let last = |i: usize| {
            let from = match i.checked_sub(1) {
                Some(j) => before.ends.get(j)? + 1,
                None => 1,
            };
            before.text.get(from..*before.ends.get(i)?)
        };
        let mut ends = Vec::with_capacity(files.len());
        // Room for refs of a typical length (a codeapi ref with 21-character ids is about 150 bytes,
        // as the body's own estimate says): the text is written without growing, moving what it holds.
        let mut out = String::with_capacity(2 + files.len() * 160);
        out.push('[');
        for (i, f) in files.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let same = known.and_then(|k| k.get(i)).is_some_and(|k| k == f);
            match last(i).filter(|_| same) {
                Some(text) => out.push_str(text),
                // Nothing of this memo is kept (`self` was taken above).
                None => check_one(dialect, f)?.write_json(&mut out),
            }
            ends.push(out.len());
        }
        out.push(']');
        let text = Rc::new(out);
        if text.len() <= MAX_WRITTEN_TEXT {
            *self = WrittenRefs {
                dialect: Some(dialect),
                list: Some(files.clone()),
                text: text.clone(),
                ends,
            };
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::narrow::to_injected_file_ref;
    use crate::files::FileRef;
    use crate::json::Str;
    use crate::sandbox::refs::{check_narrowed, SentRef};

    /// A codeapi id: `tag` padded to 21 characters.
    fn id(tag: &str) -> String {
        format!("{tag:_<21}")
    }

    fn narrowed(i: usize, name: &str, storage: &str) -> CodeEnvFile<'static> {
        let mut f = FileRef::new(id(&format!("F{i}")), name.to_owned());
        f.storage_session_id = crate::files::Field::Set(Str::from(id(storage)));
        to_injected_file_ref(&f, Some(&Str::from(id("E"))))
    }

    /// What the general check writes for `files`, when it notes nothing.
    fn fresh(dialect: Dialect, files: &[CodeEnvFile<'static>]) -> Option<String> {
        let checked = check_narrowed(dialect, files);
        checked.notes.is_empty().then(|| {
            let mut out = String::new();
            SentRef::write_all(&checked.files, &mut out);
            out
        })
    }

    fn written(
        memo: &mut WrittenRefs,
        dialect: Dialect,
        files: &Rc<[CodeEnvFile<'static>]>,
    ) -> Option<String> {
        memo.write(dialect, files).map(|t| t.as_str().to_owned())
    }

    #[test]
    fn refs_are_written_as_the_general_check_writes_them_from_one_request_to_the_next() {
        let mut memo = WrittenRefs::default();
        let mut files: Vec<CodeEnvFile<'static>> = (0..5)
            .map(|i| narrowed(i, &format!("d/f{i}.csv"), "S1"))
            .collect();
        for (pass, dialect) in [
            Dialect::CodeApi,
            Dialect::LibreCodeInterpreter,
            Dialect::CodeApi,
        ]
        .into_iter()
        .enumerate()
        {
            for turn in 0..5 {
                match turn {
                    4 => {
                        // A shorter list, then the very same list again (the partition unchanged).
                        files.pop();
                        let list: Rc<[CodeEnvFile<'static>]> = files.clone().into();
                        for _ in 0..2 {
                            assert_eq!(written(&mut memo, dialect, &list), fresh(dialect, &files));
                        }
                        continue;
                    }
                    1 => files.push(narrowed(10 + pass, &format!("out \"q\" {pass}.txt"), "S2")),
                    2 => files.swap(0, 3),
                    3 => files[1] = narrowed(1, "d/f1.csv", "S3"),
                    _ => {}
                }
                assert_eq!(
                    written(&mut memo, dialect, &files.clone().into()),
                    fresh(dialect, &files),
                    "{dialect:?} {turn}"
                );
            }
        }
    }

    #[test]
    fn a_ref_the_checks_would_change_refuses_the_list_and_forgets_it() {
        let mut memo = WrittenRefs::default();
        let good: Vec<CodeEnvFile<'static>> = (0..3)
            .map(|i| narrowed(i, &format!("f{i}"), "S1"))
            .collect();
        let rc = |v: &Vec<CodeEnvFile<'static>>| -> Rc<[CodeEnvFile<'static>]> { v.clone().into() };
        assert!(written(&mut memo, Dialect::CodeApi, &rc(&good)).is_some());
        let mut bad = good.clone();
        // An id codeapi refuses: the general check leaves the ref out and notes it.
        bad.push(to_injected_file_ref(
            &FileRef::new("short", "x"),
            Some(&Str::from(id("E"))),
        ));
        assert!(fresh(Dialect::CodeApi, &bad).is_none());
        assert_eq!(written(&mut memo, Dialect::CodeApi, &rc(&bad)), None);
        assert!(memo.list.is_none() && memo.text.is_empty() && memo.ends.is_empty());
        assert_eq!(
            written(&mut memo, Dialect::CodeApi, &rc(&good)),
            fresh(Dialect::CodeApi, &good)
        );
    }
}
