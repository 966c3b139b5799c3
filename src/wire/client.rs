//! The caller's side of the wire ([`super`]), in Rust: what the JavaScript layer (`Shared` in
//! `packages/code-session-gate/wire.js`, generated from the same definition) does with the answers that
//! carry file lists, for the native clients of the operations (the conformance runner natively and in
//! the browser suite, the property tests, the fuzzers). Not in the shipped modules: built natively, and
//! on wasm only with the `client` feature (the boundary's tests turn it on).
//!
//! It reads by the wire's definition alone: the list references' keys ([`LIST_REF`]), the packed refs'
//! layout ([`PACKED_REF`]), how many lists are kept ([`LISTS_KEPT`]), the contexts' index
//! ([`CONTEXT_INDEX`]); the kinds are the rules' ([`CODE_ENV_KINDS`]). It keeps the lists it decoded by
//! generation, as many as the gate keeps, resolves each list reference against them, and rebuilds the
//! answers in the form the JavaScript API returns them: lists of narrowed refs, contexts resolved into
//! the requests that carry them. An answer that breaks the protocol (a list it does not hold, a pick
//! outside its base, a malformed packed ref, a generation that stands for two different lists) is an
//! error that says what is wrong, not a guess.

use hashbrown::HashMap;
use serde_json::{Map, Value};

use super::{Packed, CONTEXT_INDEX, LISTS_KEPT, LIST_REF, PACKED_REF};
use crate::core::files::narrow::{CodeEnvKind, CODE_ENV_KINDS};

// A list reference's keys ([`LIST_REF`], in the order they are written): its generation, the base it
// picks from, the base's kept prefix, its added refs, its picks. A change of the definition's length
// fails to compile here.
const GEN: &str = LIST_REF[0];
const BASE: &str = LIST_REF[1];
const KEEP: &str = LIST_REF[2];
const ADD: &str = LIST_REF[3];
const PICK: &str = LIST_REF[4];

/// The key of a narrowed ref's kind: the SDK's discriminant of `CodeEnvFile` (a field of the answers,
/// as `_injected_files` is, not a convention of the wire).
const KIND: &str = "kind";

/// What is wrong with an answer, in words.
pub type Broken = String;

/// The lists a caller holds, by generation (most recent last).
#[derive(Debug, Default)]
pub struct ListReader {
    held: Vec<(u64, Vec<Value>)>,
    /// Every list decoded so far, by generation: a generation must always stand for the same list.
    seen: HashMap<u64, Vec<Value>>,
    /// The generation decoded last (0: none): the `list` the caller passes with its next call.
    pub last: u64,
}

impl ListReader {
    /// Forgets the lists held (what the JavaScript layer does after `setSessions`).
    pub fn clear(&mut self) {
        self.held.clear();
        self.last = 0;
    }

    fn get(&self, gen: u64) -> Option<&Vec<Value>> {
        self.held.iter().find(|(g, _)| *g == gen).map(|(_, l)| l)
    }

    /// Whether the list of generation `gen` is held.
    pub fn holds(&self, gen: u64) -> bool {
        self.get(gen).is_some()
    }

    /// The list a reference `{gen, base?, keep?, pick?, add?}` stands for, as narrowed refs.
    pub fn list(&mut self, r: &Value) -> Result<Vec<Value>, Broken> {
        let gen = r
            .get(GEN)
            .and_then(Value::as_u64)
            .filter(|g| *g != 0)
            .ok_or_else(|| format!("a list reference without a generation: {r}"))?;
        let list = match r.get(ADD) {
            None => self.get(gen).cloned().ok_or_else(|| {
                format!("the answer names list {gen}, which the caller does not hold")
            })?,
            Some(Value::Array(added)) => {
                let mut added = added.iter().map(unpack);
                match (r.get(BASE), r.get(PICK)) {
                    (Some(base), Some(Value::Array(pick))) => {
                        let base_gen = base.as_u64().unwrap_or(0);
                        let base = self
                            .get(base_gen)
                            .cloned()
                            .ok_or_else(|| format!("base list {base_gen} is not held: {r}"))?;
                        let keep = match r.get(KEEP) {
                            None => 0,
                            Some(k) => k
                                .as_u64()
                                .filter(|k| *k > 0)
                                .and_then(|k| usize::try_from(k).ok())
                                .ok_or_else(|| format!("`keep` is not a positive count: {r}"))?,
                        };
                        let mut out = base
                            .get(..keep)
                            .ok_or_else(|| {
                                format!("keeps {keep} items of base list {base_gen}, which is shorter: {r}")
                            })?
                            .to_vec();
                        out.reserve(pick.len());
                        for p in pick {
                            match p.as_i64() {
                                Some(-1) => out.push(added.next().ok_or_else(|| {
                                    format!("more new refs picked than added: {r}")
                                })??),
                                Some(i) if i >= 0 => {
                                    out.push(base.get(i as usize).cloned().ok_or_else(|| {
                                        format!("pick {i} outside base list {base_gen}: {r}")
                                    })?)
                                }
                                _ => return Err(format!("a pick is not an index or -1: {r}")),
                            }
                        }
                        if added.next().is_some() {
                            return Err(format!("added refs left unpicked: {r}"));
                        }
                        out
                    }
                    (None, None) if r.get(KEEP).is_none() => {
                        added.collect::<Result<Vec<Value>, Broken>>()?
                    }
                    _ => {
                        return Err(format!(
                            "a base without picks, or picks or a kept prefix without a base: {r}"
                        ))
                    }
                }
            }
            Some(other) => return Err(format!("`add` is not an array: {other}")),
        };
        if let Some(before) = self.seen.get(&gen) {
            if before != &list {
                return Err(format!("generation {gen} stands for two different lists"));
            }
        }
        self.seen.insert(gen, list.clone());
        self.held.retain(|(g, _)| *g != gen);
        self.held.push((gen, list.clone()));
        if self.held.len() > LISTS_KEPT {
            self.held.remove(0);
        }
        self.last = gen;
        Ok(list)
    }

    /// A context `{gen, session_id?, files?}` as a request carries it: `{session_id?, files?}`.
    pub fn context(&mut self, c: &Value) -> Result<Value, Broken> {
        let mut out = Map::new();
        if let Some(id) = c.get("session_id") {
            out.insert("session_id".into(), id.clone());
        }
        if let Some(files) = c.get("files") {
            out.insert("files".into(), Value::Array(self.list(files)?));
        }
        Ok(Value::Object(out))
    }

    /// A call's fields (`_injected_files`, `codeSessionContext`, …) with their lists resolved, keys in
    /// the answer's order.
    pub fn fields(&mut self, fields: &Value) -> Result<Value, Broken> {
        let Value::Object(m) = fields else {
            return Ok(fields.clone());
        };
        let mut out = Map::new();
        for (k, v) in m {
            let v = match k.as_str() {
                "_injected_files" => Value::Array(self.list(v)?),
                "codeSessionContext" => self.context(v)?,
                _ => v.clone(),
            };
            out.insert(k.clone(), v);
        }
        Ok(Value::Object(out))
    }

    /// The requests of a batch answer (under `requests_key`) with the context each names (`ctx`)
    /// resolved into its `codeSessionContext`, and the answer's `contexts` gone.
    pub fn batch(&mut self, answer: &Value, requests_key: &str) -> Result<Value, Broken> {
        let contexts = match answer.get("contexts") {
            Some(Value::Array(cs)) => cs
                .iter()
                .map(|c| self.context(c))
                .collect::<Result<Vec<Value>, Broken>>()?,
            _ => Vec::new(),
        };
        let mut out = answer.clone();
        if let Some(Value::Array(requests)) = out.get_mut(requests_key) {
            for r in requests {
                if let Value::Object(o) = r {
                    if let Some(i) = o.shift_remove(CONTEXT_INDEX) {
                        let context = i
                            .as_u64()
                            .and_then(|i| contexts.get(i as usize))
                            .ok_or_else(|| {
                                format!("a request names context {i}, which the answer lacks")
                            })?;
                        o.insert("codeSessionContext".into(), context.clone());
                    }
                }
            }
        }
        if let Value::Object(o) = &mut out {
            o.shift_remove("contexts");
        }
        Ok(out)
    }

    /// Operation `op`'s answer as the JavaScript API returns it (answers without lists unchanged).
    pub fn answer(&mut self, op: &str, answer: &Value) -> Result<Value, Broken> {
        match op {
            "contextForCall" => self.fields(answer.get("fields").unwrap_or(&Value::Null)),
            "beginDirectBatch" => {
                let mut out = answer.clone();
                if let Some(Value::Array(items)) = answer.get("injections") {
                    let rebuilt = items
                        .iter()
                        .map(|f| self.fields(f))
                        .collect::<Result<Vec<Value>, Broken>>()?;
                    if let Value::Object(o) = &mut out {
                        o.insert("injections".into(), Value::Array(rebuilt));
                    }
                }
                Ok(out)
            }
            "beginEventBatch" => self.batch(answer, "dispatch"),
            "prestartEager" if !answer.is_null() => self.batch(answer, "requests"),
            "setSessions" => {
                self.clear();
                Ok(answer.clone())
            }
            _ => Ok(answer.clone()),
        }
    }
}

/// A narrowed ref from its packed form ([`PACKED_REF`]: each value at its key's place, `null` for an
/// absent key where the definition says so, the trailing value there only where the ref has it), with
/// the keys in the definition's order; refused unless every value but the trailing one is a string
/// (or `null` where it may be), the kind one of [`CODE_ENV_KINDS`], and the trailing value a number
/// there exactly for the kind that carries one (a skill: agent and user refs never do).
pub fn unpack(packed: &Value) -> Result<Value, Broken> {
    let broken = || format!("a malformed packed ref: {packed}");
    let values = packed
        .as_array()
        .filter(|a| a.len() <= PACKED_REF.len())
        .ok_or_else(broken)?;
    let mut values = values.iter();
    let mut out = Map::new();
    let mut trailing = false;
    for (key, how) in PACKED_REF {
        let value = match (how, values.next()) {
            (Packed::Trailing, None) | (Packed::NullIsAbsent, Some(Value::Null)) => continue,
            (Packed::Trailing, Some(v)) if v.is_number() => {
                trailing = true;
                v
            }
            (Packed::Always | Packed::NullIsAbsent, Some(v)) if v.is_string() => v,
            _ => return Err(broken()),
        };
        out.insert(key.into(), value.clone());
    }
    let kind = out.get(KIND).and_then(Value::as_str).unwrap_or_default();
    let versionless = [CodeEnvKind::Agent.as_str(), CodeEnvKind::User.as_str()].contains(&kind);
    if !CODE_ENV_KINDS.contains(&kind) || trailing == versionless {
        return Err(broken());
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_lists_in_full_by_reference_and_by_diff() {
        let mut r = ListReader::default();
        let a = r
            .list(&json!({"gen": 3, "add": [["a", "a", "a.txt", "e", "user"], ["s", "s", "S.md", null, "skill", 2]]}))
            .unwrap();
        assert_eq!(
            a[1],
            json!({"id": "s", "resource_id": "s", "name": "S.md", "kind": "skill", "version": 2})
        );
        assert_eq!(r.list(&json!({"gen": 3})).unwrap(), a);
        let b = r
            .list(&json!({"gen": 4, "base": 3, "pick": [1, -1], "add": [["c", "c", "c", "e", "agent"]]}))
            .unwrap();
        assert_eq!(b[0], a[1]);
        assert_eq!(b[1]["kind"], "agent");
        assert_eq!(r.last, 4);
        let c = r
            .list(&json!({"gen": 5, "base": 4, "keep": 1, "pick": [-1], "add": [["d", "d", "d", "e", "user"]]}))
            .unwrap();
        assert_eq!((c.len(), &c[0], &c[1]["id"]), (2, &b[0], &json!("d")));
    }

    #[test]
    fn an_answer_that_breaks_the_protocol_is_an_error() {
        let mut r = ListReader::default();
        assert!(r.list(&json!({"gen": 9})).is_err(), "a list not held");
        assert!(
            r.list(&json!({"gen": 1, "base": 7, "pick": [0], "add": []}))
                .is_err(),
            "a base not held"
        );
        r.list(&json!({"gen": 1, "add": [["a", "a", "a", "e", "user"]]}))
            .unwrap();
        assert!(
            r.list(&json!({"gen": 2, "base": 1, "pick": [5], "add": []}))
                .is_err(),
            "a pick outside"
        );
        assert!(
            r.list(&json!({"gen": 2, "base": 1, "keep": 2, "pick": [], "add": []}))
                .is_err(),
            "a kept prefix longer than the base"
        );
        assert!(
            r.list(&json!({"gen": 2, "keep": 1, "add": []})).is_err(),
            "a kept prefix without a base"
        );
        assert!(r
            .list(&json!({"gen": 2, "base": 1, "pick": [0], "add": [["x", "x", "x", "e", "user"]]}))
            .is_err());
        assert!(
            r.list(&json!({"gen": 1, "add": [["b", "b", "b", "e", "user"]]}))
                .is_err(),
            "one generation, two lists"
        );
        for bad in [
            json!(["a", "a", "a", "e", "admin"]),
            json!(["a", "a", "a", "e", "user", 1]),
            json!(["a", "a", "a", "e", "skill"]),
            json!(["a", 1, "a", "e", "user"]),
            json!(["a", "a", "a", 7, "user"]),
            json!(["a", "a", "a", "e", "skill", "2"]),
            json!(["a", "a", "a", "e", "skill", 2, 3]),
            json!(["a", "a", "a", "e"]),
        ] {
            assert!(unpack(&bad).is_err(), "{bad}");
        }
    }
}
