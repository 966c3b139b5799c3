// Generated from the wire's one definition (src/wire.rs): do not edit.
// `CSG_WRITE_GENERATED=1 cargo test -p code-session-gate-generate` rewrites it.
// How the layer reads what the module writes by the wire's conventions: the file lists by
// reference and their packed refs, the contexts of a batch's requests by index, the same
// answer, an unchanged context, and the sandbox requests' bodies after their heads.

const freeze = Object.freeze;

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
  return freeze(ref);
}

/** The file lists and contexts one gate has built, by partition generation. */
export class Shared {
  /** @type {Map<number, readonly object[]>} */
  lists = new Map();
  /** @type {Map<string, object>} */
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
    const key = `${c.gen}:${c.files === undefined ? 0 : 1}`;
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

/** A dispatched request whose context is the very object handed out, as the module takes it back. */
export const unchangedRequest = (id) => ({ id, unchanged: true });

/** `sandboxRequest`'s answer: its head (parsed) and its body (text). */
export function headAndBody(out) {
  const cut = out.indexOf("\n");
  return [JSON.parse(out.slice(0, cut)), out.slice(cut + 1)];
}

/** `forwardEventBatch`'s answer: the batch (parsed) and each request's body, in the order of `requests`. */
export function batchAndBodies(out) {
  const bodies = out.split("\n");
  return [JSON.parse(/** @type {string} */ (bodies.shift())), bodies];
}
