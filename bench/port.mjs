// A plain-JavaScript port of the code-session behaviour that bench/run.mjs measures, written for the
// benchmark as the "how fast can plain JS go" side (SDK profile 3.9 only). It answers what the
// @librechat/agents 3.9 ToolNode answers on the event path, with the gate's kind of caching:
//
//   - verdict: one Set of participant names (CODE_EXECUTION_TOOLS plus codeSessionToolNames, never '');
//   - event context: `{ codeSessionContext, runtimeSessionHint, codeSessionBaselineId }`, narrowed like
//     `toInjectedFileRef`, built once per partition state (an entry is replaced on every write, so the
//     entry object is the generation) and shared frozen; a stored file kept from one state to the next
//     keeps its narrowed ref, so a new state narrows only its new files;
//   - fold: `updateCodeSession` with 3.9's rules (storage fill of existing files, baseline-scoped
//     `deleted_files`, storage from the baseline, no resurrection of dropped inherited echoes, the #156
//     overlay, retention by name); an overlay that changes nothing keeps the stored object;
//   - event batches: per-request baselines, retention of host-provided inputs (C9/C10), then the fold;
//   - the codeapi wire (the wire turn): the answer body read into the artifact to fold, and the next
//     request's `/exec` body built from a planned event request (end of the file).
//
// Not ported (the bench does not exercise them): the direct and eager paths, profile 3.6, the
// planner's schema coercion and turn counters, seeding, the SDK's own wire bodies, the other sandbox
// dialect. Input validation is minimal.
// Behaviour follows the spec folder shared with the project (../shared/spec/reference-sdk.md) and reference-sdk-3.9.md; bench/run.mjs checks
// it against the SDK and the gate before timing anything.
//
// Costs that shaped it (Node 20): Object.freeze of an object literal ~50 ns, of a spread result
// ~400 ns; a spread with a further key ~400 ns, Object.assign and a store ~30 ns; a WeakMap
// insertion ~500 ns. So narrowed refs are frozen literals cached in arrays aligned with the stored
// file lists, copies are made with Object.assign, and stored state is never frozen (it is never
// handed out to be written: `session()` returns the stored entry, which callers must treat as read-only).

/** @typedef {{ id: string, name: string, storage_session_id?: string | null, resource_id?: string | null, kind?: string | null, version?: number | null, inherited?: boolean, [k: string]: unknown }} FileRef */
/** @typedef {{ session_id?: string, files?: FileRef[], lastUpdated?: number, [k: string]: unknown }} Entry */
/** @typedef {{ id: string, resource_id: string, name: string, storage_session_id: string | undefined, kind: string, version?: number }} WireRef */
/** @typedef {{ session_id?: string, files?: readonly WireRef[] }} RequestContext */
/** @typedef {{ id: string, name: string, args: { [k: string]: unknown }, codeSessionContext?: RequestContext, runtimeSessionHint?: string, codeSessionBaselineId?: string, retainCodeSessionInputs?: true }} Request */
/** @typedef {{ session_id: string, files?: FileRef[] | null, deleted_files?: string[] | null }} Artifact */

const CODE_EXECUTION_TOOLS = ['execute_code', 'bash_tool', 'run_tools_with_code', 'run_tools_with_bash'];
const DEFAULT_KEY = 'execute_code';
const EMPTY = Object.freeze({});
const hasOwn = Object.prototype.hasOwnProperty;

// A file's identity is the pair (storage id, file id); the SDK joins it into one `storage\0id` text.
// The port never builds that text: hashing a fresh 40-character key costs ~110 ns per Map operation
// on Node 20, against ~20 ns for two lookups of strings that already carry their hash. So identity
// maps are two levels deep (PairMap) and a baseline keeps the file it saw per name.

/** (storage id, file id) → value, without building key texts. */
class PairMap {
  constructor() {
    /** @type {Map<unknown, Map<unknown, any>>} */
    this.outer = new Map();
  }
  get(/** @type {unknown} */ storage, /** @type {unknown} */ id) {
    return this.outer.get(storage)?.get(id);
  }
  has(/** @type {unknown} */ storage, /** @type {unknown} */ id) {
    const m = this.outer.get(storage);
    return m !== undefined && m.has(id);
  }
  set(/** @type {unknown} */ storage, /** @type {unknown} */ id, /** @type {any} */ value) {
    let m = this.outer.get(storage);
    if (m === undefined) this.outer.set(storage, (m = new Map()));
    m.set(id, value);
  }
  delete(/** @type {unknown} */ storage, /** @type {unknown} */ id) {
    this.outer.get(storage)?.delete(id);
  }
}

/**
 * What a request was given, per file name (a later name wins): the file and, for a storage-less
 * one, the context's session id as its storage (the SDK's `codeSessionIdentityByName`).
 * @typedef {{ byName: Map<string, { id: unknown, storage_session_id?: string | null }>, fallback: string }} Baseline
 */
/** @type {Baseline} */
const NO_BASELINE = { byName: new Map(), fallback: '' };

function baselineOf(/** @type {RequestContext | undefined} */ ctx) {
  const files = ctx?.files;
  if (files == null || files.length === 0) return NO_BASELINE;
  /** @type {Baseline} */
  const b = { byName: new Map(), fallback: ctx?.session_id ?? '' };
  for (const f of files) b.byName.set(f.name, f);
  return b;
}

/** The storage part of the baseline identity of `name` (undefined when the request was not given it). */
function baselineStorage(/** @type {Baseline | undefined} */ b, /** @type {{ id: unknown, storage_session_id?: string | null } | undefined} */ seen) {
  return seen === undefined ? undefined : (seen.storage_session_id ?? /** @type {Baseline} */ (b).fallback);
}

/** Whether `(storage, id)` is the baseline identity of `name`. */
function inBaseline(/** @type {Baseline | undefined} */ b, /** @type {string} */ name, /** @type {unknown} */ storage, /** @type {unknown} */ id) {
  const seen = b?.byName.get(name);
  return seen !== undefined && seen.id === id && baselineStorage(b, seen) === storage;
}

/** `toInjectedFileRef`: the wire shape of a stored file, frozen. */
function narrow(/** @type {FileRef} */ f, /** @type {string | undefined} */ execSessionId) {
  const id = f.id;
  const resource = f.resource_id ?? id;
  const storage = f.storage_session_id ?? execSessionId;
  const kind = f.kind ?? 'user';
  if (kind === 'skill' && f.version != null) {
    return Object.freeze({ id, resource_id: resource, name: f.name, storage_session_id: storage, kind: 'skill', version: f.version });
  }
  return Object.freeze({ id, resource_id: resource, name: f.name, storage_session_id: storage, kind: kind === 'agent' ? 'agent' : 'user' });
}

/**
 * `{ ...f, storage_session_id: storage }` (same keys, same order). Object.assign instead of a spread:
 * on Node 20 a spread followed by another key costs ~400 ns, Object.assign plus a store ~30 ns. (For
 * plain data objects the two agree; they differ only for an own `__proto__` key.)
 */
function withStorage(/** @type {FileRef} */ f, /** @type {string} */ storage) {
  const w = Object.assign({}, f);
  w.storage_session_id = storage;
  return w;
}

/** True when `{ ...base, ...over }` would equal `base`: every own key of `over` is in `base` with the same value. */
function overlayIsNoop(/** @type {FileRef} */ base, /** @type {FileRef} */ over) {
  // Named loads for the usual keys (a computed key on varying shapes costs ~30 ns a load); an
  // undefined value answers "no" (the key may be missing from `base`); for-in also walks inherited
  // enumerable keys (none on plain data). A wrong "no" only costs a copy.
  for (const k in over) {
    switch (k) {
      case 'id': if (over.id === undefined || base.id !== over.id) return false; break;
      case 'name': if (over.name === undefined || base.name !== over.name) return false; break;
      case 'storage_session_id': if (over.storage_session_id === undefined || base.storage_session_id !== over.storage_session_id) return false; break;
      case 'inherited': if (over.inherited === undefined || base.inherited !== over.inherited) return false; break;
      case 'kind': if (over.kind === undefined || base.kind !== over.kind) return false; break;
      case 'version': if (over.version === undefined || base.version !== over.version) return false; break;
      case 'resource_id': if (over.resource_id === undefined || base.resource_id !== over.resource_id) return false; break;
      default: if (base[k] !== over[k] || !hasOwn.call(base, k)) return false;
    }
  }
  return true;
}

/**
 * What the port keeps of one partition state: the entry (the generation), its narrowed context and
 * answers, and, built on demand, the context's baseline.
 * @typedef {{ entry: Entry | undefined, ctx: RequestContext | undefined, baseline: Baseline | undefined, selfRefresh: boolean,
 *   hint: string | undefined, answer: object | undefined, bare: object | undefined }} View
 */

export class PortGate {
  /**
   * @param {{ codeSessionToolNames?: string[] | null, codeSessionKey?: string | null,
   *   toolExecution?: { sandbox?: { statefulSessions?: boolean, runtimeSessionHint?: string | null } } | null,
   *   sessions?: Array<[string, Entry]> | null }} [config]
   */
  constructor(config = {}) {
    /** @type {Set<string>} */
    this.participants = new Set(CODE_EXECUTION_TOOLS);
    for (const n of config.codeSessionToolNames ?? []) if (n !== '') this.participants.add(n);
    this.defaultKey = config.codeSessionKey ?? DEFAULT_KEY;
    const sandbox = config.toolExecution?.sandbox;
    this.stateful = sandbox?.statefulSessions === true;
    const explicit = sandbox?.runtimeSessionHint;
    this.explicitHint = typeof explicit === 'string' && explicit !== '' ? explicit : undefined;
    /** @type {Map<string, Entry> | null} */
    this.map = config.sessions == null
      ? null
      : new Map(config.sessions.map(([k, e]) => [k, { ...e, ...(Array.isArray(e.files) ? { files: e.files.map((f) => ({ ...f })) } : {}) }]));
    /** Narrowed refs aligned with a partition's stored file list (valid while `files` is that list). */
    /** @type {Map<string, { files: FileRef[], refs: Array<WireRef | undefined> }>} */
    this.refs = new Map();
    /** @type {Map<string, View>} */
    this.views = new Map();
    /** @type {Map<number, { key: string, requests: Request[], baselines: Map<string, Baseline> }>} */
    this.pending = new Map();
    this.nextBatch = 1;
    /** Bumped by every write of any partition. */
    this.generation = 0;
    /** The last contextForCall (name, key, thread, generation) and its answer. */
    this.last = { name: '', key: /** @type {string | undefined} */ (undefined), thread: /** @type {string | undefined} */ (undefined), generation: -1, answer: EMPTY };
  }

  /** `participatesInCodeSession(name)`. */
  participates(/** @type {string} */ name) {
    return this.participants.has(name);
  }

  /** The runtime hint for a participant (`resolveRuntimeSessionHint`). */
  hintFor(/** @type {string | undefined} */ threadId) {
    if (!this.stateful) return undefined;
    if (this.explicitHint !== undefined) return this.explicitHint;
    return typeof threadId === 'string' && threadId !== '' ? threadId : undefined;
  }

  /** The view of partition `key`'s current state (built once per state). */
  view(/** @type {string} */ key) {
    const entry = this.map?.get(key);
    let v = this.views.get(key);
    if (v !== undefined && v.entry === entry) return v;
    let ctx;
    if (entry !== undefined) {
      const sid = entry.session_id;
      const files = entry.files;
      if (files != null && files.length > 0) {
        let known = this.refs.get(key);
        if (known === undefined || known.files !== files) {
          known = { files, refs: new Array(files.length) };
          this.refs.set(key, known);
        }
        const refs = known.refs;
        const wire = new Array(files.length);
        for (let i = 0; i < files.length; i++) {
          let r = refs[i];
          if (r === undefined) {
            r = narrow(files[i], sid);
            // a ref that does not depend on the exec session id can outlive this state
            if (files[i].storage_session_id != null) refs[i] = r;
          }
          wire[i] = r;
        }
        ctx = Object.freeze({ session_id: sid, files: Object.freeze(wire) });
      } else {
        ctx = Object.freeze({ session_id: sid });
      }
    }
    v = { entry, ctx, baseline: undefined, selfRefresh: false, hint: undefined, answer: undefined, bare: undefined };
    this.views.set(key, v);
    return v;
  }

  /** The baseline of a view's context, and whether retention would adopt from it handed back untouched. */
  viewBaseline(/** @type {View} */ v) {
    if (v.baseline === undefined) {
      v.baseline = baselineOf(v.ctx);
      // The 3.9 quirk of a partition holding a storage-less file and a later one of the same name;
      // false for any partition without duplicate names.
      for (const f of v.ctx?.files ?? []) {
        if (f.id && f.name && f.storage_session_id && !inBaseline(v.baseline, f.name, f.storage_session_id, f.id)) v.selfRefresh = true;
      }
    }
    return v.baseline;
  }

  /** What an event request for `name` carries (frozen, shared until the partition changes). */
  contextForCall(/** @type {'event'} */ path, /** @type {string} */ name, /** @type {{ codeSessionKey?: string, threadId?: string }} */ opts = {}) {
    if (path !== 'event') throw new Error(`port: only the event path is ported (got ${path})`);
    const last = this.last;
    if (last.generation === this.generation && last.name === name && last.thread === opts.threadId && last.key === opts.codeSessionKey) return last.answer;
    const answer = this.answerFor(name, opts);
    last.generation = this.generation;
    last.name = name;
    last.thread = opts.threadId;
    last.key = opts.codeSessionKey;
    last.answer = answer;
    return answer;
  }

  /** contextForCall without the last-call shortcut. */
  answerFor(/** @type {string} */ name, /** @type {{ codeSessionKey?: string, threadId?: string }} */ opts) {
    const participant = this.participants.has(name);
    // participants get the context and the hint; `skill` and `read_file` the context only
    if (!participant && name !== 'skill' && name !== 'read_file') return EMPTY;
    const hint = participant ? this.hintFor(opts.threadId) : undefined;
    if (this.map === null) return hint === undefined ? EMPTY : Object.freeze({ runtimeSessionHint: hint });
    const v = this.view(opts.codeSessionKey ?? this.defaultKey);
    if (!participant) return (v.bare ??= makeAnswer(v.ctx, undefined));
    if (v.answer === undefined || v.hint !== hint) {
      v.answer = makeAnswer(v.ctx, hint);
      v.hint = hint;
    }
    return v.answer;
  }

  /** The stored entry of partition `key` (read-only). */
  session(/** @type {string} */ key) {
    return this.map?.get(key);
  }

  /** Replaces partition `key`'s entry, carrying over the narrowed refs of the files it keeps. */
  store(/** @type {string} */ key, /** @type {Entry} */ entry, /** @type {Array<WireRef | undefined> | undefined} */ refs) {
    /** @type {Map<string, Entry>} */ (this.map).set(key, entry);
    this.generation++;
    if (refs !== undefined && entry.files !== undefined) this.refs.set(key, { files: entry.files, refs });
  }

  /**
   * `updateCodeSession` (3.9): folds one artifact's `session_id`, `files` and `deleted_files` into
   * partition `key`; `baseline` is what the request was given.
   */
  updateSession(/** @type {string} */ key, /** @type {Artifact} */ artifact, /** @type {Baseline | undefined} */ baseline, /** @type {number} */ now) {
    const map = /** @type {Map<string, Entry>} */ (this.map);
    const execId = artifact.session_id;
    const incoming = artifact.files ?? [];
    const old = map.get(key);
    const prevExec = old?.session_id ?? '';
    const oldFiles = old?.files ?? [];
    const known = this.refs.get(key);
    const oldRefs = known !== undefined && known.files === oldFiles ? known.refs : undefined;
    // 3.9 (C1): existing files without a storage id are pinned to the previous exec id
    /** @type {FileRef[]} */
    let existing = oldFiles;
    for (let i = 0; i < oldFiles.length; i++) {
      if (oldFiles[i].storage_session_id == null) {
        if (existing === oldFiles) existing = oldFiles.slice();
        existing[i] = withStorage(oldFiles[i], prevExec);
      }
    }
    const refOf = (/** @type {number} */ i) => (oldRefs !== undefined && existing[i] === oldFiles[i] ? oldRefs[i] : undefined);

    // 3.9 (C4): a deletion counts only for a name the request was given, with the identity it saw
    /** @type {Map<string, { storage: unknown, id: unknown }> | undefined} */
    let deleted;
    for (const name of artifact.deleted_files ?? []) {
      const seen = baseline?.byName.get(name);
      if (seen !== undefined) (deleted ??= new Map()).set(name, { storage: baselineStorage(baseline, seen), id: seen.id });
    }
    const isDeleted = (/** @type {FileRef} */ f, /** @type {unknown} */ storage) => {
      const d = deleted?.get(f.name);
      return d !== undefined && d.storage === storage && d.id === f.id;
    };

    if (incoming.length === 0) {
      const files = [];
      const refs = [];
      for (let i = 0; i < existing.length; i++) {
        if (isDeleted(existing[i], existing[i].storage_session_id)) continue;
        files.push(existing[i]);
        refs.push(refOf(i));
      }
      this.store(key, { session_id: execId, files, lastUpdated: now }, refs);
      return;
    }

    // existing files by id (an identity is (storage, id); every existing file has a storage id now)
    /** @type {Map<unknown, number | number[]>} */
    const byId = new Map();
    for (let i = 0; i < existing.length; i++) {
      const id = existing[i].id;
      const at = byId.get(id);
      if (at === undefined) byId.set(id, i);
      else if (typeof at === 'number') byId.set(id, [at, i]);
      else at.push(i);
    }
    /** The existing file(s) of identity (storage, id): an index, indices in order, or undefined. */
    const existingOf = (/** @type {unknown} */ storage, /** @type {unknown} */ id) => {
      const at = byId.get(id);
      if (at === undefined) return undefined;
      if (typeof at === 'number') return existing[at].storage_session_id === storage ? at : undefined;
      const hits = at.filter((i) => existing[i].storage_session_id === storage);
      return hits.length === 0 ? undefined : hits.length === 1 ? hits[0] : hits;
    };

    // incoming files in artifact order, without the dropped inherited echoes (C7); storage from the
    // file, else from the same-name, same-id baseline file (C6), else the exec id
    /** @type {FileRef[]} */
    const kept = [];
    /** @type {string[]} */
    const keptStorage = [];
    /** @type {Array<number | number[] | undefined>} */
    const keptAt = [];
    /** per existing file (first of its identity): the last kept incoming file of that identity */
    const claim = new Array(existing.length);
    const names = new Set();
    for (const f of incoming) {
      const seen = baseline?.byName.get(f.name);
      const seenStorage = seen !== undefined && seen.id === f.id ? baselineStorage(baseline, seen) : undefined;
      const storage = f.storage_session_id ?? seenStorage ?? execId;
      const at = existingOf(storage, f.id);
      if (f.inherited === true && seenStorage === storage && (at === undefined || isDeleted(f, storage))) continue;
      if (at !== undefined) claim[typeof at === 'number' ? at : at[0]] = kept.length;
      names.add(f.name);
      kept.push(f);
      keptStorage.push(storage);
      keptAt.push(at);
    }

    // survivors: existing files whose name no kept incoming file takes and that were not deleted
    const files = [];
    const refs = [];
    for (let i = 0; i < existing.length; i++) {
      const e = existing[i];
      if (names.has(e.name) || isDeleted(e, e.storage_session_id)) continue;
      files.push(e);
      refs.push(refOf(i));
    }
    // then the incoming files, the last of each identity overlaid on the existing ones (#156)
    for (let j = 0; j < kept.length; j++) {
      const f = kept[j];
      const storage = keptStorage[j];
      let at = keptAt[j];
      if (at !== undefined && claim[typeof at === 'number' ? at : at[0]] !== j) at = undefined;
      if (at === undefined) {
        files.push(withStorage(f, storage));
        refs.push(undefined);
      } else if (typeof at === 'number') {
        const e = existing[at];
        if (overlayIsNoop(e, f)) {
          // the file as stored already (its storage id is `storage`: same identity)
          files.push(e);
          refs.push(refOf(at));
        } else {
          files.push(withStorage(Object.assign({}, e, f), storage));
          refs.push(undefined);
        }
      } else {
        // precedence: incoming > first existing > later existing
        /** @type {FileRef} */
        let m = withStorage(f, storage);
        for (const i of at) m = Object.assign({}, existing[i], m);
        files.push(m);
        refs.push(undefined);
      }
    }
    this.store(key, { session_id: execId, files, lastUpdated: now }, refs);
  }

  /** `retainCodeSessionInputs`: adopts a host-provided session and files into partition `key`. */
  adopt(/** @type {string} */ key, /** @type {string} */ sessionId, /** @type {WireRef[]} */ refreshed, /** @type {number} */ now) {
    const old = /** @type {Map<string, Entry>} */ (this.map).get(key);
    const files = [...(old?.files ?? [])];
    // identities without a fallback here: a storage-less file keys as ('', id)
    const byIdent = new PairMap();
    const byName = new Map();
    for (let i = 0; i < files.length; i++) {
      byIdent.set(files[i].storage_session_id ?? '', files[i].id, i);
      byName.set(files[i].name, i);
    }
    let changed = old?.session_id !== sessionId;
    for (const f of refreshed) {
      if (!f.id || !f.name || !f.storage_session_id) continue;
      if (byIdent.has(f.storage_session_id, f.id)) continue;
      const at = byName.get(f.name);
      if (at !== undefined) {
        byIdent.delete(files[at].storage_session_id ?? '', files[at].id);
        files[at] = Object.assign({}, f);
        byIdent.set(f.storage_session_id, f.id, at);
      } else {
        byIdent.set(f.storage_session_id, f.id, files.length);
        byName.set(f.name, files.length);
        files.push(Object.assign({}, f));
      }
      changed = true;
    }
    if (changed) this.store(key, { session_id: sessionId, files, lastUpdated: now }, undefined);
  }

  /** The event fold gate of `storeCodeSessionFromResults`. */
  foldsEvent(/** @type {string | null | undefined} */ name) {
    return name != null && name !== '' && (this.participants.has(name) || name === 'skill');
  }

  /**
   * `storeCodeSessionFromResults` called directly (no baselines): `[{ name, status, artifact }]`.
   * @param {'event'} path
   * @param {Array<{ name: string | null, status: string, artifact?: any }>} results
   * @param {{ now: number, codeSessionKey?: string }} opts
   */
  foldResults(path, results, opts) {
    if (path !== 'event') throw new Error(`port: only the event path is ported (got ${path})`);
    if (this.map === null) return;
    const key = opts.codeSessionKey ?? this.defaultKey;
    for (const r of results) {
      if (!this.foldsEvent(r.name) || r.status !== 'success' || r.artifact == null) continue;
      const sid = r.artifact.session_id;
      if (sid == null || sid === '') continue;
      this.updateSession(key, r.artifact, undefined, opts.now);
    }
  }

  /** The baseline of a request context: the view's when it is the context the port issued. */
  baselineFor(/** @type {string} */ key, /** @type {RequestContext | undefined} */ ctx) {
    const v = this.views.get(key);
    return v !== undefined && v.ctx === ctx ? this.viewBaseline(v) : baselineOf(ctx);
  }

  /**
   * Plans an event batch: one request per call, every call reading the pre-batch partition.
   * @param {Array<{ id: string, name: string, args?: unknown }>} calls
   * @param {{ codeSessionKey?: string, threadId?: string }} [opts]
   */
  beginEventBatch(calls, opts = {}) {
    for (const c of calls) {
      if (c.id == null || c.id === '' || c.name === '') throw new Error('port: the planner gives up on this batch');
    }
    const key = opts.codeSessionKey ?? this.defaultKey;
    const callOpts = { codeSessionKey: key, threadId: opts.threadId };
    /** @type {Request[]} */
    const dispatch = [];
    /** @type {Array<{ id: string, errorMessage: string }>} */
    const rejected = [];
    /** @type {Map<string, Baseline>} */
    const baselines = new Map();
    /** @type {Request[]} */
    const all = [];
    for (const c of calls) {
      let args = c.args ?? {};
      while (typeof args === 'string') {
        try { args = JSON.parse(args); } catch { args = undefined; break; }
      }
      const fields = /** @type {{ codeSessionContext?: RequestContext, runtimeSessionHint?: string }} */ (this.contextForCall('event', c.name, callOpts));
      /** @type {Request} */
      const req = { id: c.id, name: c.name, args: {} };
      if (fields.codeSessionContext !== undefined) req.codeSessionContext = fields.codeSessionContext;
      if (fields.runtimeSessionHint !== undefined) req.runtimeSessionHint = fields.runtimeSessionHint;
      if (fields.codeSessionContext?.session_id !== undefined) req.codeSessionBaselineId = fields.codeSessionContext.session_id;
      baselines.set(c.id, this.baselineFor(key, req.codeSessionContext));
      all.push(req);
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        rejected.push({ id: c.id, errorMessage: 'Invalid tool arguments: expected a JSON object' });
      } else {
        req.args = /** @type {{ [k: string]: unknown }} */ (args);
        dispatch.push(req);
      }
    }
    const id = this.nextBatch++;
    this.pending.set(id, { key, requests: all, baselines });
    return { id, dispatch, rejected, eager: [] };
  }

  /**
   * Completes an event batch: retention of host-provided inputs, then the fold of each result with
   * the baseline of the context as the host left it.
   * @param {number} id
   * @param {{ requests?: Request[], results?: Array<{ toolCallId: string, status: string, artifact?: any }>, rejected?: boolean, now: number }} opts
   */
  completeEventBatch(id, opts) {
    const batch = this.pending.get(id);
    if (batch === undefined) throw new Error(`port: unknown batch ${id}`);
    this.pending.delete(id);
    if (this.map === null) return opts.rejected === true ? 'failed' : 'folded';
    const { key, baselines } = batch;
    // the planned requests, replaced (by id) by the host's when given
    /** @type {Map<string, Request>} */
    const byId = new Map();
    for (const r of batch.requests) byId.set(r.id, r);
    for (const r of opts.requests ?? []) if (byId.has(r.id)) byId.set(r.id, r);
    this.retain(key, byId.values(), baselines, opts.now);
    if (opts.rejected === true) return 'failed';
    for (const res of opts.results ?? []) {
      const req = byId.get(res.toolCallId);
      if (req === undefined || !this.foldsEvent(req.name)) continue;
      if (res.status !== 'success' || res.artifact == null) continue;
      const sid = res.artifact.session_id;
      if (sid == null || sid === '') continue;
      this.updateSession(key, res.artifact, this.baselineFor(key, req.codeSessionContext), opts.now);
    }
    return 'folded';
  }

  /** `retainCodeSessionInputsFromRequests`: what the host put on the requests moves the partition first. */
  retain(/** @type {string} */ key, /** @type {Iterable<Request>} */ requests, /** @type {Map<string, Baseline>} */ baselines, /** @type {number} */ now) {
    let refreshedSession;
    let fileSession;
    /** @type {Map<string, WireRef> | undefined} */
    let refreshed;
    const issued = this.views.get(key);
    for (const req of requests) {
      const n = req.name;
      if (n === '' || (!this.participants.has(n) && n !== 'skill' && n !== 'read_file' && req.retainCodeSessionInputs !== true)) continue;
      const ctx = req.codeSessionContext;
      if (ctx?.session_id == null || ctx.session_id === '') continue;
      if (ctx.session_id !== req.codeSessionBaselineId) refreshedSession = ctx.session_id;
      const base = baselines.get(req.id);
      // a context handed back untouched, with its own baseline, refreshes nothing (but the quirk)
      if (base !== undefined && issued !== undefined && issued.ctx === ctx && issued.baseline === base && !issued.selfRefresh) continue;
      for (const f of ctx.files ?? []) {
        if (!f.id || !f.name || !f.storage_session_id) continue;
        if (inBaseline(base, f.name, f.storage_session_id, f.id)) continue;
        fileSession = ctx.session_id;
        (refreshed ??= new Map()).set(f.name, f);
      }
    }
    const sid = refreshedSession ?? fileSession;
    if (sid === undefined) return;
    this.adopt(key, sid, refreshed === undefined ? [] : [...refreshed.values()], now);
  }
}

function makeAnswer(/** @type {RequestContext | undefined} */ ctx, /** @type {string | undefined} */ hint) {
  /** @type {Record<string, unknown>} */
  const a = {};
  if (ctx !== undefined) a.codeSessionContext = ctx;
  if (hint !== undefined) a.runtimeSessionHint = hint;
  if (ctx?.session_id !== undefined) a.codeSessionBaselineId = ctx.session_id;
  return Object.freeze(a);
}

// ------------------------------------------------------------------------------ the codeapi wire
//
// What a host that forwards calls to codeapi does around the gate (the wire turn of bench/run.mjs):
// read the sandbox's answer into the artifact to fold, and build the next call's `/exec` body from
// the request the port planned. Same rules and key order as the package's `readSandboxResponse` and
// `buildSandboxRequest({ dialect: 'codeapi' })`; refs the server would refuse are repaired or left out
// as codeapi's checks say (the notes the package gives about them are not ported), a wrong JSON type
// throws. Only the codeapi dialect and its 2xx answers are ported.

/** The languages codeapi runs. */
const CODEAPI_LANGUAGES = new Set(['py', 'js', 'ts', 'c', 'cpp', 'java', 'php', 'rs', 'go', 'd', 'f90', 'r', 'bash']);

/**
 * The answer of a sandbox to `/exec` (status, body text) as `{ artifact, stdout, stderr, exitCode }`:
 * the artifact `{ session_id, files? }` (files only when there are any; a file's `null`-valued keys
 * left out, a per-file `session_id` without `storage_session_id` becoming it).
 * @param {number} status
 * @param {string} text
 * @returns {{ artifact: Artifact, stdout: string, stderr: string, exitCode: number | undefined }}
 */
export function readCodeapiAnswer(status, text) {
  if (status < 200 || status > 299) throw new Error(`port: the sandbox answered HTTP ${status}`);
  /** @type {any} */
  let r;
  try {
    r = JSON.parse(text);
  } catch {
    throw new Error('port: the sandbox answer is not JSON');
  }
  if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new Error('port: the sandbox answer is not an object');
  const sid = r.session_id;
  if (typeof sid !== 'string' || sid === '') {
    throw new Error(r.error != null ? 'port: the sandbox failed after answering' : 'port: the sandbox answer has no session_id');
  }
  const files = r.files;
  /** @type {Artifact} */
  let artifact = { session_id: sid };
  if (files != null) {
    if (!Array.isArray(files)) throw new Error('port: the sandbox answer files is not an array');
    for (let i = 0; i < files.length; i++) {
      const f = files[i];
      if (f === null || typeof f !== 'object' || Array.isArray(f)) throw new Error(`port: files[${i}] is not an object`);
      // the usual answer has neither null values nor a per-file session_id: checked, not copied
      for (const k in f) {
        if (f[k] === null || k === 'session_id') {
          files[i] = cleanAnswerFile(f);
          break;
        }
      }
      const g = files[i];
      if (typeof g.id !== 'string' || typeof g.name !== 'string') throw new Error(`port: files[${i}] has no string id or name`);
      if (g.storage_session_id !== undefined && typeof g.storage_session_id !== 'string') throw new Error(`port: files[${i}].storage_session_id is not a string`);
    }
    if (files.length > 0) artifact = { session_id: sid, files };
  }
  return { artifact, stdout: answerText(r.stdout, 'stdout'), stderr: answerText(r.stderr, 'stderr'), exitCode: typeof r.code === 'number' ? r.code : undefined };
}

/** A file of an answer without its `null` values; its `session_id` (LibreCodeInterpreter's storage name) as the storage. */
function cleanAnswerFile(/** @type {{ [k: string]: unknown }} */ f) {
  /** @type {{ [k: string]: unknown }} */
  const out = {};
  let legacy;
  for (const k in f) {
    const v = f[k];
    if (v === null) continue;
    if (k === 'session_id' && typeof v === 'string') legacy = v;
    else out[k] = v;
  }
  if (out.storage_session_id === undefined && legacy !== undefined) out.storage_session_id = legacy;
  return out;
}

function answerText(/** @type {unknown} */ v, /** @type {string} */ key) {
  if (v == null) return '';
  if (typeof v !== 'string') throw new Error(`port: the sandbox's ${key} is not a string`);
  return v;
}

/** codeapi's id rule: exactly 21 of `A-Z a-z 0-9 _ -`. */
function isNanoid(/** @type {unknown} */ s) {
  if (typeof s !== 'string' || s.length !== 21) return false;
  for (let i = 0; i < 21; i++) {
    const c = s.charCodeAt(i);
    // 0-9, A-Z, a-z, '-', '_'
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95)) return false;
  }
  return true;
}

/** codeapi's `resource_id` rule: 1 to 128 of `A-Z a-z 0-9 _ . : -`. */
function isResourceId(/** @type {string} */ s) {
  const n = s.length;
  if (n < 1 || n > 128) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46 || c === 95)) return false;
  }
  return true;
}

/** codeapi's `name` rule: a relative, canonical POSIX path of at most 256 UTF-16 units and 10 segments. */
function isRefName(/** @type {string} */ s) {
  const n = s.length;
  if (n === 0 || n > 256) return false;
  let segments = 1;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 47;
    if (c === 92 || c === 0) return false; // '\' or NUL
    if (c !== 47) continue; // '/'
    const len = i - start;
    // an empty, '.' or '..' segment (this also refuses a leading or trailing '/')
    if (len === 0 || (s.charCodeAt(start) === 46 && (len === 1 || (len === 2 && s.charCodeAt(start + 1) === 46)))) return false;
    if (i < n) segments++;
    start = i + 1;
  }
  return segments <= 10;
}

/** The codeapi ref of one context file (`{ id, resource_id, name, storage_session_id, kind, version? }`), or null when left out. */
function codeapiRef(/** @type {any} */ f, /** @type {number} */ i) {
  if (f === null || typeof f !== 'object' || Array.isArray(f)) throw new Error(`port: files[${i}] is not a file ref object`);
  const { id, name, resource_id: resource, storage_session_id: storage, kind, version } = f;
  if (typeof id !== 'string' || typeof name !== 'string') throw new Error(`port: files[${i}] needs a string id and name`);
  if ((resource != null && typeof resource !== 'string') || (storage != null && typeof storage !== 'string') || (kind != null && typeof kind !== 'string')) {
    throw new Error(`port: files[${i}] has a field of the wrong type`);
  }
  if (version !== undefined && version !== null && typeof version !== 'number') throw new Error(`port: files[${i}].version is not a number`);
  const k = kind ?? 'user';
  if (k !== 'skill' && k !== 'agent' && k !== 'user') return null;
  if (k === 'skill') {
    if (typeof version !== 'number' || !Number.isFinite(version) || resource == null) return null;
  }
  const r = resource ?? id;
  if (!isNanoid(id) || !isNanoid(storage) || !isResourceId(r) || !isRefName(name)) return null;
  return k === 'skill'
    ? { id, resource_id: r, name, storage_session_id: storage, kind: k, version }
    : { id, resource_id: r, name, storage_session_id: storage, kind: k };
}

/** The keys `codeapiRef` reads. */
const REF_KEYS = ['id', 'name', 'resource_id', 'storage_session_id', 'kind', 'version'];
/**
 * codeapi refs of immutable context refs (ref → its codeapi ref, or null when left out): the port's
 * narrowed refs are frozen and a stored file keeps its ref from one state to the next, so a turn checks
 * only its new files (a lookup ~20 ns against ~450 ns to check and rebuild a ref).
 * @type {WeakMap<object, object | null>}
 */
const CHECKED_REFS = new WeakMap();

/** Whether what `codeapiRef` reads of `f` can never change: frozen, plain, no accessor among the keys read. */
function immutableRef(/** @type {object} */ f) {
  if (!Object.isFrozen(f)) return false;
  const proto = Object.getPrototypeOf(f);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of REF_KEYS) {
    const d = Object.getOwnPropertyDescriptor(f, k);
    if (d !== undefined && d.get !== undefined) return false;
  }
  return true;
}

/** `codeapiRef`, cached for immutable refs. */
function checkedRef(/** @type {unknown} */ f, /** @type {number} */ i) {
  if (f === null || typeof f !== 'object') return codeapiRef(f, i);
  let r = CHECKED_REFS.get(f);
  if (r === undefined) {
    r = codeapiRef(f, i);
    if (immutableRef(f)) CHECKED_REFS.set(f, r);
  }
  return r;
}

/**
 * The codeapi `/exec` body of a planned event request (`{ name, args, codeSessionContext?, runtimeSessionHint? }`),
 * in the package's key order: `lang, code, args?, user_id?, files?, timeout?, runtime_session_hint?`. What runs
 * is read from the model's arguments (`bash_tool`: `command`, `args?`; `execute_code`: `lang`, `code`, `args?`).
 * @param {Request} request
 * @param {{ userId?: string, timeoutMs?: number }} opts
 */
export function codeapiExecBody(request, opts) {
  const a = request.args;
  let lang;
  let code;
  if (request.name === 'bash_tool') {
    lang = 'bash';
    code = a.command;
  } else if (request.name === 'execute_code') {
    lang = a.lang;
    if (typeof lang !== 'string' || !CODEAPI_LANGUAGES.has(lang)) throw new Error('port: modelArgs.lang is not a language codeapi runs');
    code = a.code;
  } else {
    throw new Error(`port: only bash_tool and execute_code are ported (got ${request.name})`);
  }
  if (typeof code !== 'string' || code === '') throw new Error('port: the code to run must be a non-empty string');
  /** @type {Record<string, unknown>} */
  const body = { lang, code };
  // (the trusted fields the package drops from the model's arguments never reach the body: it reads
  // only the keys above and `args`, none of them trusted, so dropping them is not ported)
  const runArgs = a.args;
  if (runArgs != null) {
    if (!Array.isArray(runArgs) || runArgs.some((x) => typeof x !== 'string')) throw new Error('port: modelArgs.args must be an array of strings');
    body.args = runArgs;
  }
  if (opts.userId != null) body.user_id = opts.userId;
  const ctx = request.codeSessionContext;
  const given = ctx?.files;
  if (given != null && given.length > 0) {
    /** @type {Array<ReturnType<typeof codeapiRef>>} */
    const refs = new Array(given.length);
    /** @type {Map<string, number>} the last kept ref of each name */
    const lastOf = new Map();
    let duplicates = false;
    for (let i = 0; i < given.length; i++) {
      const r = checkedRef(given[i], i);
      refs[i] = r;
      if (r === null) continue;
      if (lastOf.has(r.name)) duplicates = true;
      lastOf.set(r.name, i);
    }
    /** @type {object[]} */
    const files = [];
    for (let i = 0; i < refs.length; i++) {
      const r = refs[i];
      if (r !== null && (!duplicates || lastOf.get(r.name) === i)) files.push(r);
    }
    if (files.length > 0) body.files = files;
  }
  const t = opts.timeoutMs;
  if (t != null) {
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0) throw new Error('port: timeoutMs must be a positive number');
    body.timeout = Math.ceil(t);
  }
  const hint = request.runtimeSessionHint;
  if (hint != null && hint !== '') {
    if (hint.length > 128 || !/^[A-Za-z0-9._:-]*$/.test(hint)) throw new Error('port: codeapi refuses this runtime hint');
    body.runtime_session_hint = hint;
  }
  return body;
}
