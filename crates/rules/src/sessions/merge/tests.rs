//! The indexed merge against the reference (whole-list) merge: the same partitions after random
//! sequences of folds, batched and one by one, in both profiles.
//!
//! Compiled only with `cfg(test)`, where the crate allows unwrap, expect and panic.
#![cfg(test)]

use super::reference::update_code_session_reference;
use super::*;
use crate::files::Field;
use crate::json::RawText;

/// A small deterministic generator (xorshift64*), so every run checks the same sequences.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items
            .get(self.below(items.len() as u64) as usize)
            .copied()
            .unwrap_or("")
    }
}

const NAMES: [&str; 5] = ["a.py", "b.csv", "c.txt", "out/d.png", "e"];
const IDS: [&str; 5] = ["f1", "f2", "f3", "f4", "f5"];
const STORAGES: [&str; 4] = ["s1", "s2", "e1", ""];

fn file(rng: &mut Rng) -> FileRef<'static> {
    let mut f = FileRef::new(rng.pick(&IDS).to_owned(), rng.pick(&NAMES).to_owned());
    f.storage_session_id = match rng.below(4) {
        0 => Field::Absent,
        1 => Field::Null,
        _ => Field::Set(Str::from(rng.pick(&STORAGES).to_owned())),
    };
    if rng.below(3) == 0 {
        f.kind = Field::Set(Str::from("skill".to_owned()));
        f.version = Field::Set(RawText::Shared(json_raw("2")));
    }
    if rng.below(4) == 0 {
        f.extra.push((
            Str::from("inherited".to_owned()),
            RawText::Shared(json_raw("true")),
        ));
    }
    if rng.below(5) == 0 {
        f.resource_id = Field::Null;
    }
    f
}

fn json_raw(text: &str) -> std::rc::Rc<crate::json::RawJson> {
    match serde_json::value::RawValue::from_string(text.to_owned()) {
        Ok(r) => std::rc::Rc::from(r),
        Err(e) => unreachable!("{e}"),
    }
}

fn artifact(rng: &mut Rng, step: usize) -> Artifact<'static> {
    Artifact {
        exec_session_id: Str::from(format!("e{}", step % 3)),
        files: (0..rng.below(4)).map(|_| file(rng)).collect(),
        deleted_files: (0..rng.below(3))
            .map(|_| Str::from(rng.pick(&NAMES).to_owned()))
            .collect(),
    }
}

fn session_map(rng: &mut Rng) -> SessionMap {
    let mut m = SessionMap::new();
    if rng.below(4) != 0 {
        let files: Vec<StoredFile> = (0..rng.below(6)).map(|_| file(rng)).collect();
        let mut entry = CodeSession::written(
            Str::from("e0".to_owned()),
            files,
            RawText::Shared(json_raw("1")),
        );
        if rng.below(4) == 0 {
            entry.session_id = None;
        }
        m.set("k", entry);
    }
    m
}

fn baseline_of(map: &SessionMap) -> Baseline {
    Baseline::of_session(map.get("k"))
}

#[test]
fn the_indexed_merge_is_the_reference_merge() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let now = RawText::Shared(json_raw("7"));
    for case in 0..4000 {
        let profile = if case % 2 == 0 {
            Profile::V3_6
        } else {
            Profile::V3_9
        };
        let start = session_map(&mut rng);
        let with_baseline = rng.below(2) == 0;
        let baseline = with_baseline.then(|| baseline_of(&start));
        let steps: Vec<Artifact<'static>> = (0..1 + rng.below(5) as usize)
            .map(|i| artifact(&mut rng, i))
            .collect();

        let mut expected = start.clone();
        for a in steps.clone() {
            update_code_session_reference(&mut expected, "k", a, baseline.as_ref(), profile, &now);
        }
        let mut one_by_one = start.clone();
        for a in steps.clone() {
            update_code_session(&mut one_by_one, "k", a, baseline.as_ref(), profile, &now);
        }
        let mut batched = start.clone();
        update_code_session_many(
            &mut batched,
            "k",
            steps
                .iter()
                .cloned()
                .map(|a| (a, baseline.as_ref()))
                .collect(),
            profile,
            &now,
        );
        assert_eq!(
            one_by_one.get("k"),
            expected.get("k"),
            "case {case} one by one: {steps:?}"
        );
        assert_eq!(
            batched.get("k"),
            expected.get("k"),
            "case {case} batched: {steps:?}"
        );
    }
}

#[test]
fn a_batch_of_many_folds_keeps_every_file() {
    // 20,000 results, each adding one file to a partition that grows to 20,000 files (the reference
    // would rebuild the list for each, about 2 * 10^8 file visits; the scale tests time the real thing).
    let now = RawText::Shared(json_raw("1"));
    let steps: Vec<(Artifact<'static>, Option<&Baseline>)> = (0..20_000)
        .map(|i| {
            let mut f = FileRef::new(format!("id{i}"), format!("n{i}"));
            f.storage_session_id = Field::Set(Str::from(format!("e{i}")));
            (
                Artifact {
                    exec_session_id: Str::from(format!("e{i}")),
                    files: vec![f],
                    deleted_files: Vec::new(),
                },
                None,
            )
        })
        .collect();
    let mut map = SessionMap::new();
    update_code_session_many(&mut map, "k", steps, Profile::V3_9, &now);
    let files = map.get("k").map(|s| s.files().to_vec()).unwrap_or_default();
    assert_eq!(files.len(), 20_000);
    assert!(files
        .iter()
        .enumerate()
        .all(|(i, f)| f.id.as_str() == format!("id{i}")));
    assert_eq!(
        map.get("k").and_then(|s| s.session_id.clone()),
        Some(Str::from("e19999".to_owned()))
    );
}

/// A partition of 300 files folded with artifacts that replace, echo and delete files spread over it (so
/// the touched positions lie in several 64-slot words, out of order and hit twice: by name and by
/// identity): the indexed merge, one by one and batched, keeps the reference merge's files and order.
#[test]
fn folds_touching_files_across_a_large_partition_keep_the_reference_order() {
    let now = RawText::Shared(json_raw("9"));
    let stored: Vec<StoredFile> = (0..300)
        .map(|i| {
            let mut f = FileRef::new(format!("id{i}"), format!("n{i}"));
            f.storage_session_id = Field::Set(Str::from("e0".to_owned()));
            f
        })
        .collect();
    let mut start = SessionMap::new();
    start.set(
        "k",
        CodeSession::written(
            Str::from("e0".to_owned()),
            stored,
            RawText::Shared(json_raw("1")),
        ),
    );
    let touch = |ats: &[usize], step: usize| {
        let files = ats
            .iter()
            .map(|at| {
                // Even positions echo the stored file (same name and identity), odd ones replace it.
                let id = if at % 2 == 0 {
                    format!("id{at}")
                } else {
                    format!("new{at}")
                };
                let mut f = FileRef::new(id, format!("n{at}"));
                f.storage_session_id = Field::Set(Str::from(format!("e{step}")));
                f
            })
            .collect();
        Artifact {
            exec_session_id: Str::from(format!("e{step}")),
            files,
            deleted_files: vec![Str::from(format!("n{}", 64 * step + 1))],
        }
    };
    let steps = vec![
        touch(&[250, 3, 130, 64, 63, 199, 3], 1),
        touch(&[299, 0, 128, 127, 65], 2),
    ];
    for profile in [Profile::V3_6, Profile::V3_9] {
        let mut expected = start.clone();
        for a in steps.clone() {
            update_code_session_reference(&mut expected, "k", a, None, profile, &now);
        }
        let mut one_by_one = start.clone();
        for a in steps.clone() {
            update_code_session(&mut one_by_one, "k", a, None, profile, &now);
        }
        let mut batched = start.clone();
        update_code_session_many(
            &mut batched,
            "k",
            steps.iter().cloned().map(|a| (a, None)).collect(),
            profile,
            &now,
        );
        assert_eq!(
            one_by_one.get("k"),
            expected.get("k"),
            "{profile:?} one by one"
        );
        assert_eq!(batched.get("k"), expected.get("k"), "{profile:?} batched");
        assert_ne!(
            expected.get("k"),
            start.get("k"),
            "the folds changed the partition"
        );
    }
}
