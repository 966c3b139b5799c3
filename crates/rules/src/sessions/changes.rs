//! What a write did to one partition, file by file: which files it added, kept, replaced or deleted,
//! and whether the exec session moved. A file is matched to the file of the same name before the
//! write (the sandbox's `/mnt/data` path); it is kept when its identity (`storage_session_id` and
//! `id`, the SDK's file key) and its narrowed form are unchanged, and replaced otherwise.

use super::CodeSession;
use crate::files::narrow::narrow_kind;
use crate::files::FileRef;
use crate::json::Str;

crate::names::named! {
    /// How one file fared in a write.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum FileChange;
    /// `"added"`, `"kept"`, `"replaced"` or `"deleted"`.
    fn as_str {
        /// No file of its name was there before.
        Added = "added",
        /// The same file (identity and narrowed form) as before.
        Kept = "kept",
        /// A file of its name was there before, with another identity, kind or version.
        Replaced = "replaced",
        /// The file was there before and is gone.
        Deleted = "deleted",
    }
}

/// One file's fate: the file after the write (none when deleted) and the one before (none when added).
#[derive(Debug, Clone, Copy)]
pub struct FileFate<'s, 'a> {
    /// What happened to it.
    pub change: FileChange,
    /// The file after the write.
    pub file: Option<&'s FileRef<'a>>,
    /// The file of the same name before the write.
    pub previous: Option<&'s FileRef<'a>>,
}

impl<'s, 'a> FileFate<'s, 'a> {
    /// The file's name.
    pub fn name(&self) -> &'s str {
        self.file
            .or(self.previous)
            .map(|f| f.name.as_str())
            .unwrap_or_default()
    }
}

/// The files of a partition after a write, each with its fate, then the deleted ones, in the order
/// of the lists. Files of one name are matched in order (the first after to the first before).
pub fn session_changes<'s, 'a>(
    before: Option<&'s CodeSession<'a>>,
    after: Option<&'s CodeSession<'a>>,
) -> Vec<FileFate<'s, 'a>> {
    let files = |s: Option<&'s CodeSession<'a>>| s.and_then(|s| s.files.as_deref()).unwrap_or(&[]);
    let exec = |s: Option<&'s CodeSession<'a>>| s.and_then(|s| s.session_id.as_ref());
    let mut unmatched: Vec<Option<&'s FileRef<'a>>> = files(before).iter().map(Some).collect();
    let mut out = Vec::new();
    for file in files(after) {
        let slot = unmatched
            .iter_mut()
            .find(|p| p.is_some_and(|p| p.name.as_str() == file.name.as_str()));
        let previous = slot.and_then(Option::take);
        let change = match previous {
            None => FileChange::Added,
            Some(p) if same_file(p, exec(before), file, exec(after)) => FileChange::Kept,
            Some(_) => FileChange::Replaced,
        };
        out.push(FileFate {
            change,
            file: Some(file),
            previous,
        });
    }
    out.extend(unmatched.into_iter().flatten().map(|p| FileFate {
        change: FileChange::Deleted,
        file: None,
        previous: Some(p),
    }));
    out
}

/// Whether two files are the same stored file: equal identity (a missing storage session read as
/// its partition's exec session, as the SDK keys it) and equal narrowed kind (and skill version).
fn same_file(
    a: &FileRef<'_>,
    a_exec: Option<&Str<'_>>,
    b: &FileRef<'_>,
    b_exec: Option<&Str<'_>>,
) -> bool {
    let storage = |e: Option<&Str<'_>>| e.map(|s| s.as_str().to_owned()).unwrap_or_default();
    let (sa, sb) = (storage(a_exec), storage(b_exec));
    a.identity(&sa) == b.identity(&sb) && narrow_kind(a).0 == narrow_kind(b).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::Field;

    fn file(name: &str, id: &str, storage: &str) -> FileRef<'static> {
        let mut f = FileRef::new(id.to_owned(), name.to_owned());
        f.storage_session_id = Field::Set(Str::from(storage.to_owned()));
        f
    }

    fn session(id: &str, files: Vec<FileRef<'static>>) -> CodeSession<'static> {
        CodeSession {
            session_id: Some(Str::from(id.to_owned())),
            files: Some(files),
            ..Default::default()
        }
    }

    fn fates(
        before: Option<&CodeSession<'static>>,
        after: Option<&CodeSession<'static>>,
    ) -> Vec<(String, &'static str)> {
        session_changes(before, after)
            .iter()
            .map(|f| (f.name().to_owned(), f.change.as_str()))
            .collect()
    }

    #[test]
    fn each_file_is_added_kept_replaced_or_deleted() {
        let before = session(
            "e1",
            vec![
                file("a.py", "f1", "s1"),
                file("b.py", "f2", "s1"),
                file("c.py", "f3", "s1"),
            ],
        );
        let after = session(
            "e2",
            vec![
                file("a.py", "f1", "s1"),
                file("b.py", "f9", "s2"),
                file("d.py", "f4", "s2"),
            ],
        );
        assert_eq!(
            fates(Some(&before), Some(&after)),
            [
                ("a.py".into(), "kept"),
                ("b.py".into(), "replaced"),
                ("d.py".into(), "added"),
                ("c.py".into(), "deleted")
            ]
        );
    }

    #[test]
    fn a_missing_storage_session_falls_back_to_the_partitions_exec_session() {
        let before = session("e1", vec![FileRef::new("f1", "a.py")]);
        let same = session("e1", vec![file("a.py", "f1", "e1")]);
        let moved = session("e2", vec![FileRef::new("f1", "a.py")]);
        assert_eq!(fates(Some(&before), Some(&same)), [("a.py".into(), "kept")]);
        assert_eq!(
            fates(Some(&before), Some(&moved)),
            [("a.py".into(), "replaced")]
        );
    }

    #[test]
    fn a_new_skill_version_is_a_replacement() {
        let mut v1 = file("s.md", "f1", "s1");
        v1.kind = Field::Set(Str::from("skill"));
        v1.version = Field::Set(crate::json::RawText::Borrowed(
            serde_json::from_str("1").unwrap(),
        ));
        let mut v2 = v1.clone();
        v2.version = Field::Set(crate::json::RawText::Borrowed(
            serde_json::from_str("2").unwrap(),
        ));
        let (a, b) = (session("e", vec![v1]), session("e", vec![v2]));
        assert_eq!(fates(Some(&a), Some(&b)), [("s.md".into(), "replaced")]);
    }

    #[test]
    fn files_of_one_name_match_in_order_and_nothing_is_everything_new() {
        let before = session("e", vec![file("a", "1", "s"), file("a", "2", "s")]);
        let after = session("e", vec![file("a", "2", "s")]);
        assert_eq!(
            fates(Some(&before), Some(&after)),
            [("a".into(), "replaced"), ("a".into(), "deleted")]
        );
        assert_eq!(fates(None, Some(&after)), [("a".into(), "added")]);
        assert_eq!(fates(Some(&after), None), [("a".into(), "deleted")]);
    }
}
