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
                .map(|a| (Cow::Owned(a), baseline.as_ref()))
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
    let steps: Vec<(Cow<'static, Artifact<'static>>, Option<&Baseline>)> = (0..20_000)
        .map(|i| {
            let mut f = FileRef::new(format!("id{i}"), format!("n{i}"));
            f.storage_session_id = Field::Set(Str::from(format!("e{i}")));
            (
                Cow::Owned(Artifact {
                    exec_session_id: Str::from(format!("e{i}")),
                    files: vec![f],
                    deleted_files: Vec::new(),
                }),
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
            steps
                .iter()
                .cloned()
                .map(|a| (Cow::Owned(a), None))
                .collect(),
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

/// An answer built from the partition it was sent: a prefix of the stored files echoed at their places
/// (some changed: renamed, another identity, storage dropped, marked inherited), then new files, some
/// colliding with stored ones by name or identity, some inherited echoes of what the partition held
/// before (`older`), sometimes with deletions.
fn echo_of(rng: &mut Rng, map: &SessionMap, older: &SessionMap, step: usize) -> Artifact<'static> {
    let stored = map.get("k").map(|s| s.files().to_vec()).unwrap_or_default();
    let lost = older
        .get("k")
        .map(|s| s.files().to_vec())
        .unwrap_or_default();
    let echoed = rng.below(stored.len() as u64 + 1) as usize;
    let mut files: Vec<FileRef<'static>> = stored
        .iter()
        .take(echoed)
        .map(|s| {
            let mut f = FileRef::new(s.id.to_owned_str(), s.name.to_owned_str());
            f.storage_session_id = s.storage_session_id.clone();
            match rng.below(24) {
                0 => f.name = Str::from(rng.pick(&NAMES).to_owned()),
                1 => f.id = Str::from(rng.pick(&IDS).to_owned()),
                2 => f.storage_session_id = Field::Absent,
                _ => {}
            }
            if rng.below(2) == 0 {
                f.extra.push((
                    Str::from("inherited".to_owned()),
                    RawText::Shared(json_raw("true")),
                ));
            }
            f
        })
        .collect();
    for _ in 0..rng.below(4) {
        let mut f = match rng.below(7) {
            // An inherited echo of a file the partition held before.
            6 if !lost.is_empty() => {
                let mut f = lost[rng.below(lost.len() as u64) as usize].clone();
                f.extra = vec![(
                    Str::from("inherited".to_owned()),
                    RawText::Shared(json_raw("true")),
                )]
                .into();
                f
            }
            // A colliding file: a stored one's name, or its identity.
            0 | 1 if !stored.is_empty() => {
                let s = &stored[rng.below(stored.len() as u64) as usize];
                let mut f = file(rng);
                if rng.below(2) == 0 {
                    f.name = s.name.to_owned_str();
                } else {
                    f.id = s.id.to_owned_str();
                    f.storage_session_id = s.storage_session_id.clone();
                }
                f
            }
            _ => {
                let mut f = file(rng);
                f.id = Str::from(format!("out-{step}-{}", rng.below(3)));
                f
            }
        };
        if rng.below(4) == 0 {
            f.name = Str::from(format!("new-{}.txt", rng.below(3)));
        }
        files.push(f);
    }
    let deleted_files = if rng.below(8) == 0 {
        vec![Str::from(rng.pick(&NAMES).to_owned())]
    } else {
        Vec::new()
    };
    Artifact {
        exec_session_id: Str::from(format!("e{}", step % 3)),
        files,
        deleted_files,
    }
}

/// A partition of distinct files (as sandboxes keep them), but for a duplicate name or identity now and
/// then, and storage-less files under 3.6.
fn distinct_map(rng: &mut Rng) -> SessionMap {
    let mut files: Vec<StoredFile> = (0..rng.below(8))
        .map(|i| {
            let mut f = FileRef::new(format!("f{i}"), format!("n{i}.txt"));
            if rng.below(6) != 0 {
                f.storage_session_id = Field::Set(Str::from(rng.pick(&STORAGES).to_owned()));
            }
            f
        })
        .collect();
    if rng.below(5) == 0 && !files.is_empty() {
        let mut twin = files[rng.below(files.len() as u64) as usize].clone();
        if rng.below(2) == 0 {
            twin.id = Str::from("twin".to_owned());
        } else {
            twin.name = Str::from("twin.txt".to_owned());
        }
        files.push(twin);
    }
    let mut m = SessionMap::new();
    m.set(
        "k",
        CodeSession::written(
            Str::from("e0".to_owned()),
            files,
            RawText::Shared(json_raw("1")),
        ),
    );
    m
}

/// Answers that echo what they were sent (the forwarding path's common case, which folds in step) keep
/// the reference merge's files and order over sequences of folds, in both profiles (thousands of them
/// folded in step, the rest giving up to the general fold).
#[test]
fn echoing_answers_fold_in_step_as_the_reference_does() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let now = RawText::Shared(json_raw("5"));
    let mut in_step = 0usize;
    let mut folds = 0usize;
    for case in 0..3000 {
        let profile = if case % 2 == 0 {
            Profile::V3_6
        } else {
            Profile::V3_9
        };
        let mut expected = distinct_map(&mut rng);
        let mut actual = expected.clone();
        let mut older = expected.clone();
        for step in 0..1 + rng.below(6) as usize {
            let artifact = echo_of(&mut rng, &expected, &older, step);
            // The request's baseline: the partition as it was sent, or as an earlier request saw it.
            let baseline = match rng.below(3) {
                0 => None,
                1 => Some(baseline_of(&older)),
                _ => Some(baseline_of(&expected)),
            };
            if rng.below(2) == 0 {
                older = expected.clone();
            }
            let existing = actual.get("k").map(|s| s.files().to_vec());
            if let Some(mut existing) = existing {
                folds += 1;
                let echoes = echo::fold_in_step(
                    &mut existing,
                    &artifact.files,
                    &artifact.exec_session_id,
                    None,
                    |_| false,
                );
                in_step += usize::from(echoes.is_some());
            }
            update_code_session_reference(
                &mut expected,
                "k",
                artifact.clone(),
                baseline.as_ref(),
                profile,
                &now,
            );
            update_code_session(
                &mut actual,
                "k",
                artifact.clone(),
                baseline.as_ref(),
                profile,
                &now,
            );
            assert_eq!(
                actual.get("k"),
                expected.get("k"),
                "case {case} step {step} ({profile:?}): {artifact:?}"
            );
        }
    }
    assert!(
        in_step * 10 > folds,
        "only {in_step} of {folds} folds were echoes folded in step"
    );
}
