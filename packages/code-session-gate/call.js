// Calls into the modules: the arguments' texts (an options object some of whose members the caller has
// read, a size limit, long texts as UTF-8 bytes), the call watched by the guard, and the answer parsed.
import { engine } from './engine.js';
import { gateError } from './errors.js';
import { guard, sandboxFor } from './modules.js';
import { argumentText } from './read-once.js';

/** Writes a sandbox request's body as bytes (`bodyBytes`), and long arguments (`encodeLong`). */
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
 * Texts longer than this cross as their UTF-8 bytes: one `encodeInto` here and one copy into the module
 * (measured: a 200-file wire turn 1.3x slower when its answer body crossed as a string, which the glue
 * writes into the module unit by unit).
 */
const LONG_TEXT = 1024;
/** The buffer long texts are encoded into, kept between calls up to this size. */
const KEEP_SCRATCH = 1 << 20;
let long = new Uint8Array(0);

/**
 * Replaces each text of `texts` longer than `LONG_TEXT` by a view of its UTF-8 bytes in the scratch
 * buffer (the module copies them during the call); returns the bytes used.
 * @param {Array<string | Uint8Array | undefined>} texts
 */
function encodeLong(texts) {
  let need = 0;
  for (const t of texts) if (typeof t === 'string' && t.length > LONG_TEXT) need += t.length * 3;
  if (need === 0) return 0;
  if (long.length < need) long = new Uint8Array(need);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i];
    if (typeof t !== 'string' || t.length <= LONG_TEXT) continue;
    const { written } = encoder.encodeInto(t, long.subarray(at));
    texts[i] = long.subarray(at, at + written);
    at += written;
  }
  return need;
}

/**
 * Runs `call` (which enters the module) on `texts`, long ones as their bytes, watching for a trap.
 * @template T
 * @param {Array<string | Uint8Array | undefined>} texts
 * @param {(texts: Array<string | Uint8Array | undefined>) => T} call
 * @returns {T}
 */
export function withTexts(texts, call) {
  const used = encodeLong(texts);
  try {
    return guard.run(() => call(texts));
  } finally {
    if (used > KEEP_SCRATCH) long = new Uint8Array(0);
  }
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
  return parsed(withTexts(texts, (t) => glue[name](...t)));
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
