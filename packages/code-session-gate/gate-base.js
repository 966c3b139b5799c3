// The hand-written part of the `Gate` class, which the class written from the operation registry
// (gate.js: the methods that only pass their arguments and answer the module's answer) extends: one
// conversation's gate in the core module (its `RawGate`), and what has not changed held here: its
// verdicts (its configuration never changes), and each `contextForCall` answer with the partition state
// it depends on, so that a call whose partition was not written since is answered without entering the
// module. Each method that runs an operation is documented and typed once, by the operation registry
// (src/registry.rs → ops.d.ts); what is said here is how it is run.
import { parsed, textsOf, withTexts } from './call.js';
import { engine } from './engine.js';
import { gateError } from './errors.js';
import { guard } from './modules.js';
import { ReadOptions, isRecord } from './read-once.js';
import {
  Shared, answerOptions, directBatchOf, eventBatchOf, fieldsOf, forwardedBatch, forwardedRequest, hostHandling, isSame, prestartOf,
  requestOptions,
} from './wire.js';

/**
 * Runs gate operation `op` of `gate` on `args` (in the order of its parameters) and answers the parsed
 * answer: what the methods written from the registry call (gate.js).
 * @type {(gate: GateBase, op: string, args: unknown[]) => any}
 */
export let callOp;

/**
 * The code-session gate of one conversation: the SDK's session-aware tool set, its session map and its
 * batch bookkeeping, without any runtime of its own (no fetch, no timers, no clock: writers take `now`).
 * The class hosts use is `Gate` (gate.js), which adds the methods written from the registry.
 */
export class GateBase {
  /** The gate in the module (the glue's `RawGate`; the glue frees one the host dropped). */
  #raw;
  #freed = false;
  #profile;
  /** Verdict bits by name (from the module, which never changes its mind for a gate). */
  #verdicts;
  /** Bumped by every call that may write the session map. */
  #version = 0;
  /** `contextForCall` answers: path → name → key → thread → { version, dep, value }. */
  #answers = new Map();
  #answerCount = 0;
  /** The last options object of `contextForCall` whose keys were all keys of the module's options. */
  #checked = null;
  /** The last answer, checked first. */
  #last = { version: -1, path: null, name: null, options: null, key: null, thread: null, value: null };
  #shared = new Shared();
  /** batch id → (request id → the context object handed out). */
  #handed = new Map();
  /** The instance this gate lives in (see `epoch`). */
  #epoch = engine.epoch;

  /** A gate for one conversation (its configuration and the input policy: api.d.ts, README *Errors*). */
  constructor(config) {
    if (!engine.open) guard.check('new Gate');
    const [text] = textsOf(engine.constants.newParams, [config]);
    this.#raw = withTexts([text], (t) => new engine.core.RawGate(t[0]));
    this.#took(JSON.parse(this.#raw.takeCreated()));
  }

  /** What the module says of a gate it made or restored: its profile and its verdicts. */
  #took(info) {
    this.#profile = info.profile;
    this.#verdicts = new Map(info.verdicts);
  }

  /**
   * Runs gate operation `op`. One that may change the session map (the module's `gateWrites`, which
   * the module checks in its debug builds) moves this gate's version on, so that cached
   * `contextForCall` answers are asked for again. `values` are its arguments in the order of its
   * parameters, whose names (the module's) root the paths of refusals.
   */
  #call(op, values, raw) {
    return parsed(this.#run(op, values, raw));
  }

  /**
   * Runs gate operation `op` on `values` (and `raw`, an argument passed as it is: the text or the bytes
   * of a sandbox's answer); the text of its answer.
   * @param {string} op @param {unknown[]} values @param {string | Uint8Array} [raw]
   * @returns {string}
   */
  #run(op, values, raw) {
    this.#live(op);
    /** @type {Array<string | Uint8Array | undefined>} */
    const texts = textsOf(engine.constants.gateParams[engine.ops[op]], values);
    // Reading the arguments ran the host's getters, which may have freed this gate or replaced the
    // instance: nothing is entered for a gate that is gone.
    this.#live(op);
    if (raw !== undefined) {
      let units = raw.length;
      for (const t of texts) units += t === undefined ? 0 : t.length;
      if (units > engine.limits.maxInputBytes) {
        throw gateError('limit_exceeded', 'body', `body: more than ${engine.limits.maxInputBytes} bytes in one call (maxInputBytes)`);
      }
      texts.push(raw);
    }
    if (engine.writes.has(op)) this.#version++;
    const gate = this.#raw;
    return withTexts(texts, (t) => gate[op](...t));
  }

  /** Refuses a call on a gate that was freed, whose instance `recover()` replaced, or while the module
   * is poisoned or not initialised (when the fast check fails). */
  #live(op) {
    if (!engine.open || this.#epoch !== engine.epoch) {
      guard.check(`Gate.${op}`);
      if (this.#epoch !== engine.epoch) {
        throw gateError(
          'poisoned',
          '',
          `Gate.${op}: this gate lived in the WebAssembly instance that trapped, which recover() replaced; restore it with Gate.fromSnapshot(its last snapshot)`,
        );
      }
    }
    if (this.#freed) throw gateError('freed', '', `Gate.${op}: the gate was freed (free() or a using block ended)`);
  }

  /** The SDK profile this gate reproduces. */
  get profile() {
    this.#live('profile');
    return this.#profile;
  }

  verdict(name) {
    this.#live('verdict');
    // Only names the module answered for are keys (any other value is refused below).
    const known = this.#verdicts.get(name);
    if (known !== undefined) return known;
    const v = this.#call('verdict', [name]);
    // Any other name's verdict is 0 for good; remember a bounded number of them.
    if (this.#verdicts.size < 4096) this.#verdicts.set(name, v);
    return v;
  }

  verdictTable() {
    return new Map(this.#call('verdictTable', []));
  }

  contextForCall(path, name, options) {
    this.#live('contextForCall');
    const last = this.#last;
    let key;
    let thread;
    // Whether the options hold only keys the module knows: any other may be a misspelt one, which only
    // the module may refuse or ignore, so such a call is never answered from the cache alone.
    let known = true;
    if (options !== undefined && options !== null) {
      // The one host value read outside read-once.js: the cache's two members, read once here, in the
      // same breath as the lookup (a function of read-once.js handing them back measured 1.07-1.09x the
      // steady context). The options object of the last answer was a record then and still is; any
      // other (a revoked Proxy included) is read by the module's way, which names what is wrong.
      try {
        if (options !== last.options && !isRecord(options)) return this.#ask(path, name, options, undefined).value;
        key = options.codeSessionKey;
        thread = options.threadId;
        // The object whose keys passed last time is not looked at again (an options object reused
        // call after call costs nothing; one that gains a misspelt key after it passed is not seen).
        if (options !== this.#checked) {
          for (const k in options) {
            if (!engine.callKeys.has(k)) {
              known = false;
              break;
            }
          }
          if (known) this.#checked = options;
        }
      } catch {
        return this.#ask(path, name, options, undefined).value;
      }
    }
    // The last answer was given for valid arguments only, so arguments equal to them are valid too (a
    // freed gate's last answer never matches).
    if (
      known &&
      last.version === this.#version &&
      last.path === path &&
      last.name === name &&
      last.key === key &&
      last.thread === thread
    ) {
      return last.value;
    }
    if ((key !== undefined && typeof key !== 'string') || (thread !== undefined && typeof thread !== 'string')) {
      return this.#ask(path, name, options, undefined).value;
    }
    if (typeof path !== 'string' || typeof name !== 'string') return this.#ask(path, name, options, undefined).value;
    // path → name → key → thread: exact keys (undefined is a key of its own), no string building.
    let byName = this.#answers.get(path);
    if (byName === undefined) this.#answers.set(path, (byName = new Map()));
    let byKey = byName.get(name);
    if (byKey === undefined) byName.set(name, (byKey = new Map()));
    let byThread = byKey.get(key);
    if (byThread === undefined) byKey.set(key, (byThread = new Map()));
    const entry = byThread.get(thread);
    // The module reads the two members as they were read for the cache, not a second time.
    const read = options === undefined || options === null ? options : new ReadOptions(options, new Map([['codeSessionKey', key], ['threadId', thread]]));
    const next = this.#ask(path, name, read, entry, known);
    if (next !== entry) {
      // A bounded cache: hosts with very many threads or names start over rather than grow without end.
      if (++this.#answerCount > 4096) {
        this.#answers.clear();
        this.#answerCount = 0;
      }
      byThread.set(thread, next);
    }
    this.#last = { version: this.#version, path, name, options, key, thread, value: next.value };
    return next.value;
  }

  /**
   * The answer for a call whose cached `entry` (if any) is out of date: the module says whether the
   * partition state it depended on still holds (`same`), or builds the new one. With `known` false the
   * options hold a key the module must judge, so it is asked even for a current entry.
   */
  #ask(path, name, options, entry, known = true) {
    // An entry of this version, or one that depends on no partition, holds without asking.
    if (!known || entry === undefined || (entry.version !== this.#version && entry.dep !== null)) {
      const out = this.#call('contextForCall', [path, name, options, entry?.dep, this.#shared.last]);
      if (entry === undefined || !isSame(out)) return { version: this.#version, dep: out.dep, value: fieldsOf(out.fields, this.#shared) };
    }
    entry.version = this.#version;
    return entry;
  }

  beginDirectBatch(calls, options) {
    return directBatchOf(this.#call('beginDirectBatch', [calls, options, this.#shared.last]), this.#shared);
  }

  beginEventBatch(calls, options) {
    const out = this.#call('beginEventBatch', [calls, options, this.#shared.last]);
    return eventBatchOf(out, this.#shared, this.#handedIn(out.id));
  }

  completeEventBatch(batch, options) {
    this.#live('completeEventBatch');
    const end = this.#call('completeEventBatch', [batch, hostHandling(options, this.#handed.get(batch))]);
    this.#handed.delete(batch);
    return end;
  }

  sandboxRequest(batch, id, options) {
    this.#live('sandboxRequest');
    const { options: read, bytes, files } = requestOptions(options);
    return forwardedRequest(this.#run('sandboxRequest', [batch, id, read], undefined), bytes, files);
  }

  forwardEventBatch(calls, options, request) {
    this.#live('forwardEventBatch');
    const { options: read, bytes, files } = requestOptions(request);
    return forwardedBatch(this.#run('forwardEventBatch', [calls, options, read], undefined), bytes, files);
  }

  sandboxAnswer(batch, id, answer) {
    this.#live('sandboxAnswer');
    if (!isRecord(answer)) return this.#call('sandboxAnswer', [batch, id, answer]);
    const { options, raw, artifact } = answerOptions(answer);
    const out = this.#call('sandboxAnswer', [batch, id, options], raw);
    // Asked of the module only when wanted: the artifact it kept for the fold.
    if (artifact) out.artifact = this.#call('forwardedArtifact', [batch, id]);
    return out;
  }

  prestartEager(calls, options) {
    const out = this.#call('prestartEager', [calls, options, this.#shared.last]);
    return prestartOf(out, this.#shared, out === null ? undefined : this.#handedIn(out.id));
  }

  /** Where the contexts batch or prestart `id` hands out are remembered (request id → context). */
  #handedIn(id) {
    const handed = new Map();
    this.#handed.set(id, handed);
    return handed;
  }

  settleEager(prestart, options) {
    this.#live('settleEager');
    this.#call('settleEager', [prestart, hostHandling(options, this.#handed.get(prestart))]);
    this.#handed.delete(prestart);
  }

  setSessions(sessions) {
    this.#call('setSessions', [sessions]);
    this.#shared.clear();
  }

  resetRun() {
    this.#call('resetRun', []);
    this.#handed.clear();
  }

  abandon(batch) {
    const had = this.#call('abandon', [batch]);
    this.#handed.delete(batch);
    return had;
  }

  /** A gate restored from a snapshot, everything validated before it exists (api.d.ts). */
  static fromSnapshot(snapshot, config) {
    if (!engine.open) guard.check('Gate.fromSnapshot');
    const gate = new this();
    try {
      gate.#took(gate.#call('restore', [snapshot, config]));
    } catch (e) {
      gate.free();
      throw e;
    }
    return gate;
  }

  /** Releases the gate's memory in the module; later calls throw (code "freed"). */
  free() {
    // A gate of a replaced instance has nothing to free in the current one.
    if (this.#freed || this.#epoch !== engine.epoch || guard.poisoned) return;
    this.#freed = true;
    // No cached answer may outlive the gate: later calls reach #call, which refuses them (code "freed").
    this.#last = { version: -1, path: null, name: null, options: null, key: null, thread: null, value: null };
    this.#answers.clear();
    this.#verdicts = new Map();
    this.#raw.free();
  }

  static {
    callOp = (gate, op, args) => gate.#call(op, args);
  }

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.free();
  }
}
