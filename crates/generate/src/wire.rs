//! `packages/code-session-gate/wire.js`: the JavaScript that reads what the module writes by the
//! wire's conventions, generated from their one definition (`code_session_gate::wire`): the packed
//! refs' decoder from [`PACKED_REF`], the list references' reader from [`LIST_REF`] and
//! [`LISTS_KEPT`], the contexts by [`CONTEXT_INDEX`], an unchanged
//! context by [`UNCHANGED`], and the bodies after their heads by [`BODY_SEPARATOR`]; what it builds
//! for the host (refs, lists, contexts, fields) is branded as handed out (`handed.js`), so that one
//! passed back is not read again. A test compares
//! the file with what [`wire_js`] writes; `CSG_WRITE_GENERATED=1 cargo test -p
//! code-session-gate-generate` rewrites it.

use code_session_gate::core::calls::options::CompleteEventBatchOptions;
use code_session_gate::core::json::fields_of;
use code_session_gate::core::sandbox::ANSWER_FLAGS;
use code_session_gate::readers::ForwardedAnswerInput;
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
    out.push_str("  return brand(ref, 1);\n}\n");
    out
}

/// The rest of the reader, its keys from the definition.
const READER: &str = r#"
/** The file lists and contexts one gate has built, by partition generation. */
export class Shared {
  /** @type {Map<number, readonly object[]>} */
  lists = new Map();
  /** @type {Map<number, object>} (a context with files by its generation, one without by -1 - it) */
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
      // Copied by index: `slice` of a frozen array takes V8's slow path (190 ns for one item, against 20).
      list = [];
      for (let i = 0; i < keep; i++) list.push(base[i]);
      let j = 0;
      for (let i = 0; i < pick.length; i++) {
        const p = pick[i];
        list.push(p >= 0 ? base[p] : unpack(add[j++]));
      }
    } else {
      list = new Array(add.length);
      for (let i = 0; i < add.length; i++) list[i] = unpack(add[i]);
    }
    brand(list, list.length === 0 ? 1 : 2);
    this.lists.delete(gen);
    this.lists.set(gen, list);
    if (this.lists.size > LISTS_KEPT) this.lists.delete(this.lists.keys().next().value);
    this.last = gen;
    return list;
  }

  /** A context `{gen, session_id?, files?}` of an answer as the frozen object requests share. */
  context(c) {
    const key = c.files === undefined ? -1 - c.$gen : c.$gen;
    const have = this.contexts.get(key);
    if (have !== undefined) {
      // The answer named the list; keep it current (and the most recent) for later diffs.
      if (c.files !== undefined) this.list(c.files);
      return have;
    }
    const ctx = {};
    if (c.session_id !== undefined) ctx.session_id = c.session_id;
    if (c.files !== undefined) ctx.files = this.list(c.files);
    brandRecord(ctx);
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

/** `contextForCall`'s fields as the host receives them (frozen; handed out, so that passing them back costs no reading). */
export function fieldsOf(fields, shared) {
  if (fields._injected_files !== undefined) fields._injected_files = shared.list(fields._injected_files);
  if (fields.codeSessionContext !== undefined) fields.codeSessionContext = shared.context(fields.codeSessionContext);
  return brandRecord(fields);
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
"#;

/// What the layer does with a call's arguments and answer around the wire's conventions, per
/// operation: the host's handling of a batch (`completeEventBatch`, `settleEager`: their options'
/// keys, `$handling`, and a context that is still the one handed out marked as unchanged), the
/// answer-shaping flags the layer reads and keeps out of the module (`$flags`, `$artifactFlag`), a
/// sandbox answer's body passed as it is (`$body`), and the answers that carry lists and contexts by
/// reference, or bodies after their heads, as the host receives them.
const LAYER: &str = r#"
/**
 * The options of `completeEventBatch` / `settleEager` for the module: the requests as the host left
 * them, a context that is still the very object handed out (`handed`: request id → context) marked
 * unchanged (and not read again); anything else is read as the host's. The members read here are
 * written as read; the others go to the module as they are (it ignores a key it does not know, and
 * refuses a misspelt one).
 * @param {unknown} options @param {Map<string, unknown> | undefined} handed
 */
export function hostHandling(options, handed) {
  if (!isRecord(options)) return options;
  const given = new Map();
  for (const key of [$handling]) given.set(key, member(options, key, 'options'));
  const requests = given.get('$requests');
  if (!Array.isArray(requests)) return new ReadOptions(options, given);
  const n = lengthOf(requests, 'options.$requests');
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = `options.$requests[${i}]`;
    const r = read(requests, i, at);
    if (!isRecord(r)) {
      out[i] = r;
      continue;
    }
    const id = member(r, 'id', at);
    const ctx = member(r, 'codeSessionContext', at);
    out[i] = handed !== undefined && typeof id === 'string' && handed.has(id) && handed.get(id) === ctx
      ? { id, $unchanged: true }
      : { id, codeSessionContext: ctx };
  }
  given.set('$requests', out);
  return new ReadOptions(options, given);
}

/** The answer-shaping flags of the forwarding path's request options, read here, never sent. */
const FLAGS = new Map([$flags].map((k) => [k, undefined]));

/**
 * `sandboxRequest`'s (and `forwardEventBatch`'s) request options for the module, and how its answer
 * is handed out (`bytes`: the body as bytes; `files`: the refs sent).
 * @param {unknown} options
 */
export function requestOptions(options) {
  if (!isRecord(options)) return { options, bytes: false, files: false };
  return { options: new ReadOptions(options, FLAGS), bytes: flag(options, '$bodyBytes'), files: flag(options, '$withFiles') };
}

/**
 * `sandboxAnswer`'s answer object for the module: the body as it is, never as a JSON string (its text,
 * or its bytes as `raw`), and whether the artifact is wanted back.
 * @param {object} answer
 */
export function answerOptions(answer) {
  const { body, raw } = bodyOf(answer);
  const artifact = flag(answer, '$artifactFlag');
  const known = new Map([['$body', raw === undefined ? body : undefined], ['$artifactFlag', undefined]]);
  return { options: new ReadOptions(answer, known), raw, artifact };
}

/** A request's head with its `body` (text or bytes) and, when asked, the refs it sends (`files`). */
function withBody(head, body, bytes, files) {
  // The refs sent are the body's own (which leaves `files` out when there are none).
  if (files) head.files = JSON.parse(body).files ?? [];
  head.body = bytes ? encoder.encode(body) : body;
  return head;
}

/** `sandboxRequest`'s answer (its head, then its body) as the request handed out. */
export function forwardedRequest(out, bytes, files) {
  const cut = out.indexOf($separator);
  return withBody(JSON.parse(out.slice(0, cut)), out.slice(cut + 1), bytes, files);
}

/**
 * `forwardEventBatch`'s answer (the batch, then each request's body, in the order of `requests`) as
 * the batch handed out, each refused call with its refusal as the error `sandboxRequest` would throw.
 */
export function forwardedBatch(out, bytes, files) {
  // Each body runs from its separator to the next (`split` would scan the last, the longest, too).
  let at = out.indexOf($separator);
  const batch = JSON.parse(at < 0 ? out : out.slice(0, at));
  const requests = batch.requests;
  for (let i = 0; i < requests.length; i++) {
    const end = i + 1 < requests.length ? out.indexOf($separator, at + 1) : out.length;
    withBody(requests[i], out.slice(at + 1, end), bytes, files);
    at = end;
  }
  batch.refused = batch.refused.map((r) => ({ id: r.id, name: r.name, args: r.args, error: gateError(r.code, r.path, r.message) }));
  return batch;
}

/** `beginDirectBatch`'s answer: each injection's files resolved from the lists by reference. */
export function directBatchOf(out, shared) {
  for (const f of out.injections) {
    if (f._injected_files !== undefined) f._injected_files = shared.list(f._injected_files);
  }
  return out;
}

/**
 * The requests of a batch or prestart answer `out` as the host receives them, with their shared
 * contexts, each context handed out remembered (`handed`: request id → context), so that the host's
 * handling is matched to what it was given.
 */
export function handOut(out, requests, shared, handed) {
  const contexts = out.contexts.map((c) => shared.context(c));
  return requestsOf(requests, contexts, handed);
}

/** `beginEventBatch`'s answer as the host receives it. */
export function eventBatchOf(out, shared, handed) {
  return { id: out.id, dispatch: handOut(out, out.dispatch, shared, handed), rejected: out.rejected, eager: out.eager };
}

/** `prestartEager`'s answer as the host receives it (`null`: the planner refused the set). */
export function prestartOf(out, shared, handed) {
  return out === null ? null : { id: out.id, requests: handOut(out, out.requests, shared, handed) };
}
"#;

/// `keys` as a JavaScript list's items.
fn js_list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| js_string(k))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `key`, which must be one of `keys` (the Rust type's, which the layer reads it for).
fn one_of<'k>(keys: &[&'k str], key: &'k str) -> &'k str {
    assert!(keys.contains(&key), "{key} is none of {keys:?}");
    key
}

/// The text of `packages/code-session-gate/wire.js`.
pub fn wire_js() -> String {
    let [gen, base, keep, add, pick] = LIST_REF;
    let separator = js_string(&BODY_SEPARATOR.to_string());
    let reader = READER
        .replace("$gen", gen)
        .replace("$base", base)
        .replace("$keep", keep)
        .replace("$add", add)
        .replace("$pick", pick)
        .replace("$ctx", CONTEXT_INDEX);
    let handling = fields_of::<CompleteEventBatchOptions<'_>>();
    let answer = fields_of::<ForwardedAnswerInput<'_>>();
    let layer = LAYER
        .replace("$handling", &js_list(handling))
        .replace("$requests", one_of(handling, "requests"))
        .replace("$unchanged", UNCHANGED)
        .replace("$flags", &js_list(&ANSWER_FLAGS))
        .replace("$bodyBytes", one_of(&ANSWER_FLAGS, "bodyBytes"))
        .replace("$withFiles", one_of(&ANSWER_FLAGS, "withFiles"))
        .replace("$body", one_of(answer, "body"))
        .replace("$artifactFlag", one_of(answer, "withArtifact"))
        .replace("$separator", &separator);
    format!(
        "// Generated from the wire's one definition (src/wire.rs) and the Rust types of the options the\n\
         // layer reads for the module: do not edit.\n\
         // `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.\n\
         // How the layer reads what the module writes by the wire's conventions (the file lists by\n\
         // reference and their packed refs, the contexts of a batch's requests by index, an unchanged\n\
         // context, the sandbox requests' bodies after their heads), and, per operation, the arguments it\n\
         // reads for the module and the answers it hands out.\n\
         import {{ encoder }} from './call.js';\n\
         import {{ gateError }} from './errors.js';\n\
         import {{ brand, brandRecord }} from './handed.js';\n\
         import {{ ReadOptions, bodyOf, flag, isRecord, lengthOf, member, read }} from './read-once.js';\n\n\
         /** How many decoded lists a gate keeps (the module keeps as many written ones to diff against). */\n\
         const LISTS_KEPT = {LISTS_KEPT};\n\n{}{reader}{layer}",
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
