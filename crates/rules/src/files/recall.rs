//! Files recalled from an earlier answer by their text. A sandbox echoes every file it was sent, on
//! every call, written the same way each time; reading a file object depends on its text alone, so a
//! file written exactly as before is the file read before. The scanner compares each file of an answer
//! with the one that stood at its place in the last answer of the partition ([`KnownFiles`]) and, when
//! the text is the same, takes that file instead of reading it again.

use std::cell::{Cell, RefCell};

use super::{FileRef, StoredFile};

/// The most text the files of one answer may hold to be remembered (the memory one partition keeps).
const MAX_KNOWN_TEXT: usize = 4 << 20;

/// The files of an answer, each with the text it was read from, in the answer's order.
#[derive(Debug, Clone, Default)]
pub struct KnownFiles {
    files: Vec<(Box<str>, StoredFile)>,
}

/// A memo of what texts read as: it changes no answer, so it makes no difference to equality (a gate
/// restored from a snapshot equals the gate it was taken from whatever either remembers).
impl PartialEq for KnownFiles {
    fn eq(&self, _: &KnownFiles) -> bool {
        true
    }
}

/// Where a file of an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recall<'a> {
    /// It is the known file at this place of the last answer, written the same way.
    Known(usize),
    /// It was read from this text (the object, braces included).
    Read(&'a str),
}

impl KnownFiles {
    /// No file known.
    pub const NONE: KnownFiles = KnownFiles { files: Vec::new() };

    /// The text of the known file at place `at`, and the file.
    pub fn get(&self, at: usize) -> Option<(&str, &StoredFile)> {
        self.files.get(at).map(|(t, f)| (&**t, f))
    }

    /// How many files are known.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is known.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The files of the next answer, read as `recall` says (one entry per file of `files`), from these
    /// and `files` (the answer's files as stored): a known file keeps its text, a file read keeps the
    /// text it was read from. Empty when the texts would hold more than the bound.
    pub fn next(self, recall: &[Recall<'_>], files: &[StoredFile]) -> KnownFiles {
        self.next_with(recall, |i| files.get(i).cloned())
    }

    /// [`KnownFiles::next`], the file read at place `i` stored by `stored(i)` (asked only of the files
    /// that were read; empty when it has none).
    pub fn next_with(
        self,
        recall: &[Recall<'_>],
        mut stored: impl FnMut(usize) -> Option<StoredFile>,
    ) -> KnownFiles {
        let mut old: Vec<Option<(Box<str>, StoredFile)>> =
            self.files.into_iter().map(Some).collect();
        let mut total = 0usize;
        let mut out = Vec::with_capacity(recall.len());
        for (i, r) in recall.iter().enumerate() {
            let entry = match r {
                // The same text read again is the same file: the entry moves on as it is.
                Recall::Known(k) => match old.get_mut(*k).and_then(Option::take) {
                    Some(entry) => entry,
                    None => return KnownFiles::NONE,
                },
                Recall::Read(t) => match stored(i) {
                    Some(f) => ((*t).into(), f),
                    None => return KnownFiles::NONE,
                },
            };
            total += entry.0.len();
            if total > MAX_KNOWN_TEXT {
                return KnownFiles::NONE;
            }
            out.push(entry);
        }
        KnownFiles { files: out }
    }
}

/// The fewest files a list read from a host's text must hold to be remembered for the next one: a
/// short list costs little to read, and remembering it would cost each of many small results a copy.
pub const MIN_REMEMBERED: usize = 8;

/// How many lists in a row may miss the memo (none of their files recalled) before one of them is
/// remembered anyway: remembering costs a copy of every file read, which a host whose lists never
/// repeat would pay on every call; one in this many still lets a host that starts repeating catch up.
pub const RETRY_AFTER_MISSES: u32 = 16;

/// The memo of the file list a gate last read from a host's text (an artifact's `files`, folded by
/// `foldResults`, `completeEventBatch`, `settleEager` or `updateSession`): the next list, most often the
/// same files echoed again and written by the host the same way, is read against it. Reading a file
/// depends on its text alone, so a recalled file is the file a fresh read of the caller's own text gives.
#[derive(Debug, Clone, Default)]
pub struct ReadMemo {
    known: RefCell<KnownFiles>,
    /// Lists read in a row that recalled nothing.
    misses: Cell<u32>,
}

/// A memo changes no answer (see [`KnownFiles`]'s equality).
impl PartialEq for ReadMemo {
    fn eq(&self, _: &ReadMemo) -> bool {
        true
    }
}

impl ReadMemo {
    /// The list `read` reads (given the files known now and where to say where each file came from).
    /// It is remembered when it holds at least [`MIN_REMEMBERED`] files and it recalled one, or
    /// nothing is known yet, or the lists before it missed [`RETRY_AFTER_MISSES`] times in a row.
    /// `None` when `read` gave up.
    pub fn read_list<'a>(
        &self,
        read: impl FnOnce(&KnownFiles, &mut Vec<Recall<'a>>) -> Option<Vec<FileRef<'a>>>,
    ) -> Option<Vec<FileRef<'a>>> {
        let mut recall = Vec::new();
        let (files, known_none) = match self.known.try_borrow() {
            Ok(known) => (read(&known, &mut recall)?, known.is_empty()),
            Err(_) => (read(&KnownFiles::NONE, &mut recall)?, false),
        };
        if files.len() < MIN_REMEMBERED {
            return Some(files);
        }
        let hit = recall.iter().any(|r| matches!(r, Recall::Known(_)));
        let misses = if hit {
            0
        } else {
            self.misses.get().saturating_add(1)
        };
        let remember = hit || known_none || misses >= RETRY_AFTER_MISSES;
        self.misses.set(if remember { 0 } else { misses });
        if remember {
            if let Ok(mut memo) = self.known.try_borrow_mut() {
                let old = std::mem::take(&mut *memo);
                *memo = old.next_with(&recall, |i| files.get(i).map(FileRef::to_owned_file));
            }
        }
        Some(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Str;
    use crate::sandbox::read_sandbox_response_recalling;

    fn body(files: &[String]) -> String {
        format!(
            r#"{{"session_id":"e","files":[{}],"stdout":""}}"#,
            files.join(",")
        )
    }

    fn file(i: usize, extra: &str) -> String {
        format!(r#"{{"id":"f{i}","name":"n{i}.txt","storage_session_id":"s"{extra}}}"#)
    }

    /// Reads `text` recalling from `known`; the files equal those read from scratch, and the next
    /// known files hold what was read.
    fn read(text: &str, known: KnownFiles) -> (Vec<StoredFile>, Vec<Recall<'_>>, KnownFiles) {
        let fresh = read_sandbox_response_recalling(200, text, None, &KnownFiles::NONE).unwrap();
        let recalled = read_sandbox_response_recalling(200, text, None, &known).unwrap();
        assert_eq!(recalled.artifact.files, fresh.artifact.files, "{text}");
        let recall = recalled.recall.unwrap();
        let files: Vec<StoredFile> = recalled
            .artifact
            .files
            .into_iter()
            .map(|f| f.into_owned())
            .collect();
        let next = known.next(&recall, &files);
        (files, recall, next)
    }

    #[test]
    fn a_file_written_as_before_is_recalled_at_its_place_and_equals_a_fresh_read() {
        let first: Vec<String> = (0..4).map(|i| file(i, r#","inherited":true"#)).collect();
        let text = body(&first);
        let (_, recall, known) = read(&text, KnownFiles::NONE);
        assert!(recall.iter().all(|r| matches!(r, Recall::Read(_))));
        assert_eq!(known.len(), 4);

        // The same files, one of them written otherwise, one new at the end.
        let mut second = first.clone();
        second[2] = file(2, r#","inherited":false"#);
        second.push(file(9, ""));
        let text = body(&second);
        let (files, recall, known) = read(&text, known);
        assert_eq!(recall.len(), 5);
        assert!(matches!(recall[0], Recall::Known(0)));
        assert!(matches!(recall[1], Recall::Known(1)));
        assert!(matches!(recall[2], Recall::Read(_)));
        assert!(matches!(recall[3], Recall::Known(3)));
        assert!(matches!(recall[4], Recall::Read(_)));
        assert_eq!(files[2].extra[0].1.get(), "false");

        // Reordered: nothing is at its place, every file is read.
        let mut third = second.clone();
        third.swap(0, 1);
        let text = body(&third);
        let (_, recall, known) = read(&text, known);
        assert!(matches!(recall[0], Recall::Read(_)));
        assert!(matches!(recall[2], Recall::Known(2)));

        // A known text that is only a prefix of the file written now is not taken for it.
        let mut fourth = third.clone();
        fourth[2] = fourth[2].replace('}', r#","path":"/p"}"#);
        let text = body(&fourth);
        let (files, recall, _) = read(&text, known);
        assert!(matches!(recall[2], Recall::Read(_)));
        assert_eq!(files[2].extra.len(), 2);
    }

    /// The files of list `text` read by the scanner against `memo`.
    fn read_list<'a>(text: &'a str, memo: &ReadMemo) -> Vec<FileRef<'a>> {
        crate::files::scan::read_whole(text, |s| s.files_remembered(Some(memo))).unwrap()
    }

    fn list(files: &[String]) -> String {
        format!("[{}]", files.join(","))
    }

    #[test]
    fn a_memo_recalls_a_list_written_again_and_every_file_equals_a_fresh_read() {
        let memo = ReadMemo::default();
        let mut files: Vec<String> = (0..MIN_REMEMBERED + 2)
            .map(|i| file(i, r#","inherited":true,"path":"/p""#))
            .collect();
        let first = list(&files);
        let fresh = crate::files::scan::read_plain_files(&first).unwrap();
        assert_eq!(read_list(&first, &memo), fresh);
        // Read again: the same files, each now the memo's (its text shared, not read).
        let again = read_list(&first, &memo);
        assert_eq!(again, fresh);
        assert!(again.iter().all(|f| matches!(f.id, Str::Shared(_))));
        // One file changed, one added, one moved out of its place: each equals a fresh read.
        files[1] = file(1, r#","inherited":false"#);
        files.swap(3, 4);
        files.push(file(99, ""));
        let third = list(&files);
        let read = read_list(&third, &memo);
        assert_eq!(read, crate::files::scan::read_plain_files(&third).unwrap());
        assert!(matches!(read[0].id, Str::Shared(_)));
        assert!(matches!(read[1].id, Str::Borrowed(_)));
        assert!(matches!(read[3].id, Str::Borrowed(_)));
    }

    #[test]
    fn a_short_list_is_read_against_the_memo_but_not_remembered() {
        let memo = ReadMemo::default();
        let short = list(
            &(0..MIN_REMEMBERED - 1)
                .map(|i| file(i, ""))
                .collect::<Vec<_>>(),
        );
        read_list(&short, &memo);
        let again = read_list(&short, &memo);
        assert!(again.iter().all(|f| matches!(f.id, Str::Borrowed(_))));
        let long: Vec<String> = (0..MIN_REMEMBERED).map(|i| file(i, "")).collect();
        read_list(&list(&long), &memo);
        // The short list's files stand where the long one's did: recalled from it.
        let recalled = read_list(&short, &memo);
        assert!(recalled.iter().all(|f| matches!(f.id, Str::Shared(_))));
    }

    #[test]
    fn lists_that_miss_are_remembered_only_once_in_a_while() {
        let memo = ReadMemo::default();
        let make = |tag: &str| {
            list(
                &(0..MIN_REMEMBERED)
                    .map(|i| file(i, &format!(r#","tag":"{tag}""#)))
                    .collect::<Vec<_>>(),
            )
        };
        let recalled = |text: &str| {
            read_list(text, &memo)
                .iter()
                .all(|f| matches!(f.id, Str::Shared(_)))
        };
        let a = make("a");
        assert!(!recalled(&a));
        for k in 1..RETRY_AFTER_MISSES {
            assert!(!recalled(&make(&format!("b{k}"))));
        }
        // The misses left the first list remembered: it is recalled, which starts the count again.
        assert!(recalled(&a));
        let last = make(&format!("c{RETRY_AFTER_MISSES}"));
        for k in 1..=RETRY_AFTER_MISSES {
            assert!(!recalled(&make(&format!("c{k}"))));
        }
        // The last of as many misses as the bound was remembered.
        assert!(recalled(&last));
        assert!(!recalled(&a));
    }

    #[test]
    fn answers_read_the_checked_way_recall_nothing() {
        let text = r#"{"session_id":"e","files":[{"id":"a\u0041","name":"n"}]}"#;
        let a = read_sandbox_response_recalling(200, text, None, &KnownFiles::NONE).unwrap();
        assert!(a.recall.is_none());
    }
}
