// Generated from the wire's one definition (src/wire.rs) and the Rust types of the options the
// layer reads for the module: do not edit.
// `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.
// How the layer reads what the module writes by the wire's conventions (the file lists by
// reference and their packed refs, the contexts of a batch's requests by index, an unchanged
// context, the sandbox requests' bodies after their heads), and, per operation, the arguments it
// reads for the module and the answers it hands out.
import { encoder } from './call.js';
import { gateError } from './errors.js';
import { brand, brandRecord } from './handed.js';
import { ReadOptions, bodyOf, flag, isRecord, lengthOf, member, read } from './read-once.js';

/** How many decoded lists a gate keeps (the module keeps as many written ones to diff against). */
const LISTS_KEPT = 16;

/**
 * A narrowed ref from its packed array, frozen, with the wire keys in the SDK's order; a `null`
 * where the ref has no such key is an absent key.
 */
function unpack(a) {
  const ref = a[3] === null
    ? { id: a[0], resource_id: a[1], name: a[2], kind: a[4] }
    : { id: a[0], resource_id: a[1], name: a[2], storage_session_id: a[3], kind: a[4] };
  if (a.length > 5) ref.version = a[5];
  return brand(ref, 1);
}

/** The file lists and contexts one gate has built, by partition generation. */
export class Shared {
  /** @type {Map<number, readonly object[]>} */
  lists = new Map();
  /** @type {Map<number, object>} (a context with files by its generation, one without by -1 - it) */
  contexts = new Map();
  last = 0;

  /**
   * The frozen list a list reference of an answer stands for: one held, the picks from one held
   * (the base's first `keep` items, then per pick an index into the base or -1 for the next added
   * ref), or the added refs alone.
   */
  list(ref) {
    const gen = ref.gen;
    if (ref.add === undefined) return this.lists.get(gen);
    let list;
    const add = ref.add;
    if (ref.pick !== undefined) {
      const base = this.lists.get(ref.base);
      const keep = ref.keep ?? 0;
      const pick = ref.pick;
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
    const key = c.files === undefined ? -1 - c.gen : c.gen;
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
    if (r.ctx !== undefined) {
      const ctx = r.ctx;
      delete r.ctx;
      r.codeSessionContext = contexts[ctx];
    }
    handed.set(r.id, r.codeSessionContext);
  }
  return requests;
}

/** Whether `contextForCall`'s answer `out` (nothing: `undefined`) says the caller's cached answer still holds. */
export const isSame = (out) => out === undefined;

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
  for (const key of ["now", "requests", "results", "rejected"]) given.set(key, member(options, key, 'options'));
  const requests = given.get('requests');
  if (!Array.isArray(requests)) return new ReadOptions(options, given);
  const n = lengthOf(requests, 'options.requests');
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = `options.requests[${i}]`;
    const r = read(requests, i, at);
    if (!isRecord(r)) {
      out[i] = r;
      continue;
    }
    const id = member(r, 'id', at);
    const ctx = member(r, 'codeSessionContext', at);
    out[i] = handed !== undefined && typeof id === 'string' && handed.has(id) && handed.get(id) === ctx
      ? { id, unchanged: true }
      : { id, codeSessionContext: ctx };
  }
  given.set('requests', out);
  return new ReadOptions(options, given);
}

/** The answer-shaping flags of the forwarding path's request options, read here, never sent. */
const FLAGS = new Map(["withFiles", "bodyBytes"].map((k) => [k, undefined]));

/**
 * `sandboxRequest`'s (and `forwardEventBatch`'s) request options for the module, and how its answer
 * is handed out (`bytes`: the body as bytes; `files`: the refs sent).
 * @param {unknown} options
 */
export function requestOptions(options) {
  if (!isRecord(options)) return { options, bytes: false, files: false };
  return { options: new ReadOptions(options, FLAGS), bytes: flag(options, 'bodyBytes'), files: flag(options, 'withFiles') };
}

/**
 * `sandboxAnswer`'s answer object for the module: the body as it is, never as a JSON string (its text,
 * or its bytes as `raw`), and whether the artifact is wanted back.
 * @param {object} answer
 */
export function answerOptions(answer) {
  const { body, raw } = bodyOf(answer);
  const artifact = flag(answer, 'withArtifact');
  const known = new Map([['body', raw === undefined ? body : undefined], ['withArtifact', undefined]]);
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
  const cut = out.indexOf("\n");
  return withBody(JSON.parse(out.slice(0, cut)), out.slice(cut + 1), bytes, files);
}

/**
 * `forwardEventBatch`'s answer (the batch, then each request's body, in the order of `requests`) as
 * the batch handed out, each refused call with its refusal as the error `sandboxRequest` would throw.
 */
export function forwardedBatch(out, bytes, files) {
  // Each body runs from its separator to the next (`split` would scan the last, the longest, too).
  let at = out.indexOf("\n");
  const batch = JSON.parse(at < 0 ? out : out.slice(0, at));
  const requests = batch.requests;
  for (let i = 0; i < requests.length; i++) {
    const end = i + 1 < requests.length ? out.indexOf("\n", at + 1) : out.length;
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
