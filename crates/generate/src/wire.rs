//! `packages/code-session-gate/wire.js`: the JavaScript that reads what the module writes by the
//! wire's conventions, generated from their one definition (`code_session_gate::wire`): the packed
//! refs' decoder from [`PACKED_REF`], the list references' reader from [`LIST_REF`] and
//! [`LISTS_KEPT`], the contexts by [`CONTEXT_INDEX`], an unchanged
//! context by [`UNCHANGED`], and the bodies after their heads by [`BODY_SEPARATOR`]. A test compares
//! the file with what [`wire_js`] writes; `CSG_WRITE_GENERATED=1 cargo test -p
//! code-session-gate-generate` rewrites it.

use code_session_gate::wire::{
    Packed, BODY_SEPARATOR, CONTEXT_INDEX, LISTS_KEPT, LIST_REF, PACKED_REF, UNCHANGED,
};

/// A JavaScript string literal of `text`.
fn js_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// The object literal of a packed ref `a`'s values that always stand (with the `NullIsAbsent` ones
/// when `with_nullable`).
fn ref_literal(with_nullable: bool) -> String {
    let members: Vec<String> = PACKED_REF
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| *p == Packed::Always || (with_nullable && *p == Packed::NullIsAbsent))
        .map(|(i, (key, _))| format!("{key}: a[{i}]"))
        .collect();
    format!("{{ {} }}", members.join(", "))
}

/// `unpack(a)`: a narrowed ref from its packed array, keys in the definition's order.
fn unpack() -> String {
    let nullable = PACKED_REF
        .iter()
        .position(|(_, p)| *p == Packed::NullIsAbsent);
    let made = match nullable {
        Some(i) => format!(
            "a[{i}] === null\n    ? {}\n    : {}",
            ref_literal(false),
            ref_literal(true)
        ),
        None => ref_literal(false),
    };
    let mut out = format!(
        "/**\n * A narrowed ref from its packed array, frozen, with the wire keys in the SDK's order; a `null`\n \
         * where the ref has no such key is an absent key.\n */\n\
         function unpack(a) {{\n  const ref = {made};\n"
    );
    for (i, (key, p)) in PACKED_REF.iter().enumerate() {
        if *p == Packed::Trailing {
            out.push_str(&format!("  if (a.length > {i}) ref.{key} = a[{i}];\n"));
        }
    }
    out.push_str("  return freeze(ref);\n}\n");
    out
}

/// The rest of the reader, its keys from the definition.
const READER: &str = r#"
/** The file lists and contexts one gate has built, by partition generation. */
export class Shared {
  /** @type {Map<number, readonly object[]>} */
  lists = new Map();
  /** @type {Map<string, object>} */
  contexts = new Map();
  last = 0;

  /**
   * The frozen list a list reference of an answer stands for: one held, the picks from one held
   * (the base's first `$keep` items, then per pick an index into the base or -1 for the next added
   * ref), or the added refs alone.
   */
  list(ref) {
    const gen = ref.$gen;
    if (ref.$add === undefined) return this.lists.get(gen);
    let list;
    const add = ref.$add;
    if (ref.$pick !== undefined) {
      const base = this.lists.get(ref.$base);
      const keep = ref.$keep ?? 0;
      const pick = ref.$pick;
      list = base.slice(0, keep);
      let j = 0;
      for (let i = 0; i < pick.length; i++) {
        const p = pick[i];
        list.push(p >= 0 ? base[p] : unpack(add[j++]));
      }
    } else {
      list = new Array(add.length);
      for (let i = 0; i < add.length; i++) list[i] = unpack(add[i]);
    }
    freeze(list);
    this.lists.delete(gen);
    this.lists.set(gen, list);
    if (this.lists.size > LISTS_KEPT) this.lists.delete(this.lists.keys().next().value);
    this.last = gen;
    return list;
  }

  /** A context `{gen, session_id?, files?}` of an answer as the frozen object requests share. */
  context(c) {
    const key = `${c.$gen}:${c.files === undefined ? 0 : 1}`;
    const have = this.contexts.get(key);
    if (have !== undefined) {
      // The answer named the list; keep it current (and the most recent) for later diffs.
      if (c.files !== undefined) this.list(c.files);
      return have;
    }
    const ctx = {};
    if (c.session_id !== undefined) ctx.session_id = c.session_id;
    if (c.files !== undefined) ctx.files = this.list(c.files);
    freeze(ctx);
    this.contexts.set(key, ctx);
    if (this.contexts.size > LISTS_KEPT * 2) this.contexts.delete(this.contexts.keys().next().value);
    return ctx;
  }

  clear() {
    this.lists.clear();
    this.contexts.clear();
    this.last = 0;
  }
}

/** `contextForCall`'s fields as the host receives them (frozen). */
export function fieldsOf(fields, shared) {
  if (fields._injected_files !== undefined) fields._injected_files = shared.list(fields._injected_files);
  if (fields.codeSessionContext !== undefined) fields.codeSessionContext = shared.context(fields.codeSessionContext);
  return freeze(fields);
}

/**
 * Requests of a batch answer with their shared contexts; remembers which context each was given. The
 * module writes the context's index last: deleting an object's last key keeps V8's fast shape (a key
 * deleted from the middle turns the host's request into a dictionary, slower to read and to stringify).
 */
export function requestsOf(requests, contexts, handed) {
  for (const r of requests) {
    if (r.$ctx !== undefined) {
      const ctx = r.$ctx;
      delete r.$ctx;
      r.codeSessionContext = contexts[ctx];
    }
    handed.set(r.id, r.codeSessionContext);
  }
  return requests;
}

/** Whether `contextForCall`'s answer `out` (nothing: `undefined`) says the caller's cached answer still holds. */
export const isSame = (out) => out === undefined;

/** A dispatched request whose context is the very object handed out, as the module takes it back. */
export const unchangedRequest = (id) => ({ id, $unchanged: true });

/** `sandboxRequest`'s answer: its head (parsed) and its body (text). */
export function headAndBody(out) {
  const cut = out.indexOf($separator);
  return [JSON.parse(out.slice(0, cut)), out.slice(cut + 1)];
}

/** `forwardEventBatch`'s answer: the batch (parsed) and each request's body, in the order of `requests`. */
export function batchAndBodies(out) {
  const bodies = out.split($separator);
  return [JSON.parse(/** @type {string} */ (bodies.shift())), bodies];
}
"#;

/// The text of `packages/code-session-gate/wire.js`.
pub fn wire_js() -> String {
    let [gen, base, keep, add, pick] = LIST_REF;
    let reader = READER
        .replace("$gen", gen)
        .replace("$base", base)
        .replace("$keep", keep)
        .replace("$add", add)
        .replace("$pick", pick)
        .replace("$ctx", CONTEXT_INDEX)
        .replace("$unchanged", UNCHANGED)
        .replace("$separator", &js_string(&BODY_SEPARATOR.to_string()));
    format!(
        "// Generated from the wire's one definition (src/wire.rs): do not edit.\n\
         // `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.\n\
         // How the layer reads what the module writes by the wire's conventions: the file lists by\n\
         // reference and their packed refs, the contexts of a batch's requests by index, the same\n\
         // answer, an unchanged context, and the sandbox requests' bodies after their heads.\n\n\
         const freeze = Object.freeze;\n\n\
         /** How many decoded lists a gate keeps (the module keeps as many written ones to diff against). */\n\
         const LISTS_KEPT = {LISTS_KEPT};\n\n{}{reader}",
        unpack()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use code_session_gate::wire::ERROR_NAME;

    #[test]
    fn the_generated_wire_reader_is_current() {
        crate::assert_current("packages/code-session-gate/wire.js", &wire_js());
    }

    #[test]
    fn every_placeholder_is_filled() {
        let js = wire_js();
        let left = js
            .match_indices('$')
            .any(|(i, _)| js.get(i + 1..i + 2).is_some_and(|c| c != "{"));
        assert!(!left, "{js}");
    }

    /// The errors' name the JavaScript layer gives its own errors is the wire's.
    #[test]
    fn the_layer_names_its_errors_as_the_wire_does() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../packages/code-session-gate/errors.js"
        );
        let errors = std::fs::read_to_string(path).unwrap();
        assert!(
            errors.contains(&format!("export const ERROR_NAME = '{ERROR_NAME}';")),
            "errors.js names its errors otherwise than src/wire.rs"
        );
    }
}
