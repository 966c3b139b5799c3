// Calls into the modules: the arguments' texts (an options object some of whose members the caller has
// read, a size limit), written as UTF-8 into the module's arguments' buffer, the call watched by the
// guard, and the answer parsed.
import { engine } from './engine.js';
import { gateError } from './errors.js';
import { guard, sandboxFor } from './modules.js';
import { argumentText } from './read-once.js';

/** Writes a sandbox request's body as bytes (`bodyBytes`), and the arguments into the module (`placed`). */
export const encoder = new TextEncoder();

/**
 * The arguments' JSON texts (`undefined` for `undefined`), written as their values are read, refused
 * above `maxInputBytes` together in UTF-16 units (units are at most the bytes; the module checks the
 * bytes again). `names` are the operation's parameter names as the module declares them: they root
 * the paths of refusals ("" for an options object whose keys are the roots).
 * @param {readonly string[]} names
 * @param {unknown[]} values
 * @returns {Array<string | undefined>}
 */
export function textsOf(names, values) {
  const texts = new Array(values.length);
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const name = names[i] ?? '';
    const value = values[i];
    if (value === undefined) continue;
    const text = argumentText(name, value);
    texts[i] = text;
    total += text.length;
    if (total > engine.limits.maxInputBytes) {
      throw gateError(
        'limit_exceeded',
        name,
        `${name || 'the arguments'}: more than ${engine.limits.maxInputBytes} bytes of JSON text in one call (maxInputBytes)`,
      );
    }
  }
  return texts;
}

/**
 * Texts longer than this are given room for one byte per unit first (and more only if they turn out
 * not to be ASCII), so that a long text does not reserve three times its length in the module.
 */
const LONG_TEXT = 1024;

/** Texts up to this long are written unit by unit while they are ASCII (no view made for `encodeInto`). */
const SHORT_TEXT = 64;

/** Writes `t` at `at` of `view` if it is ASCII (what it wrote before a non-ASCII unit is overwritten). */
function ascii(/** @type {string} */ t, /** @type {Uint8Array} */ view, /** @type {number} */ at) {
  for (let k = 0; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (c > 127) return false;
    view[at + k] = c;
  }
  return true;
}

/** Each module instance's arguments' buffer as last seen: its exports, address and view. */
let seen = { exports: undefined, at: 0, view: new Uint8Array(0) };

/**
 * A view of at least `need` bytes of the arguments' buffer of the module whose glue is `glue`
 * (the buffer moves when it grows; the view is made again when the memory grew).
 * @param {any} glue @param {number} need
 */
function room(glue, need) {
  const exports = glue.initSync();
  const at = glue.reserveArgs(need);
  let view = seen.view;
  if (seen.exports !== exports || seen.at !== at || view.length < need) {
    view = new Uint8Array(exports.memory.buffer, at, need);
    seen = { exports, at, view };
  }
  return view;
}

/**
 * Writes `texts` one after the other into the module's arguments' buffer (strings as UTF-8 by
 * `encodeInto`, bytes copied) and answers the numbers the module reads them by: each one's length in
 * bytes plus one, `0` for `undefined` (crates/wasm/boundary/args.rs).
 * @param {Array<string | Uint8Array | undefined>} texts @param {any} glue
 * @returns {number[]}
 */
function placed(texts, glue) {
  const lens = new Array(texts.length).fill(0);
  let need = 0;
  for (const t of texts) {
    if (t !== undefined) need += typeof t === 'string' && t.length <= LONG_TEXT ? t.length * 3 : t.length;
  }
  if (need === 0) return lens;
  let view = room(glue, need);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i];
    if (t === undefined) continue;
    let written;
    if (typeof t !== 'string') {
      view.set(t, at);
      written = t.length;
    } else if (t.length <= SHORT_TEXT && ascii(t, view, at)) {
      written = t.length;
    } else {
      // Each text within its own room, so that one cannot take the room of the texts after it.
      const r = encoder.encodeInto(t, view.subarray(at, at + (t.length <= LONG_TEXT ? t.length * 3 : t.length)));
      written = r.written;
      if (r.read < t.length) {
        // A long text that is not ASCII: room for three bytes per unit, the rest written after.
        need += 2 * t.length;
        view = room(glue, need);
        written += encoder.encodeInto(t.slice(r.read), view.subarray(at + written, at + t.length * 3)).written;
      }
    }
    at += written;
    lens[i] = written + 1;
  }
  return lens;
}

/**
 * Runs `call` (which enters the module whose glue is `glue`, by default the core's) on the numbers
 * that stand for `texts` once they are written into its arguments' buffer, watching for a trap.
 * @template T
 * @param {Array<string | Uint8Array | undefined>} texts
 * @param {(args: number[]) => T} call
 * @param {any} [glue]
 * @returns {T}
 */
export function withTexts(texts, call, glue = engine.core) {
  return guard.run(() => call(placed(texts, glue)));
}

/** An operation's answer: its JSON text parsed (nothing: `undefined`). */
export const parsed = (/** @type {string | undefined} */ text) => (text === undefined ? undefined : JSON.parse(text));

/**
 * Runs static operation `name` on its arguments, in the order of its parameters, in the module that
 * serves it.
 */
export function callStaticOp(name, values) {
  if (!engine.open) guard.check(name);
  const texts = textsOf(engine.constants.staticParams[engine.staticOps[name]], values);
  const glue = engine.sandboxOps.has(name) ? sandboxFor(name) : engine.core;
  return parsed(withTexts(texts, (t) => glue[name](...t), glue));
}

/**
 * The constant `name` of what the core module says of itself: a list as a fresh array (the host may
 * change its copy), a record as the one frozen object.
 */
export function constant(name) {
  if (!engine.open) guard.check(name);
  const value = engine.constants[name];
  return Array.isArray(value) ? [...value] : value;
}
