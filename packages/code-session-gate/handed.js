// What the gate handed out, it recognises: the refs, lists, contexts and fields wire.js builds from the
// module's answers are frozen plain data, so the JSON text of one never changes. A host that passes one
// back (the files it was told about, echoed in an artifact; a context it stored) has it written once,
// by read-once.js, and its text kept here; it is not read again. Recognition is by identity only: a
// private field that no other code can stamp or see (a lookalike, or a Proxy of one of these, is another
// object, read as the host's). A WeakMap measured 1.09x a 1-file object turn: its entries cost more to
// add, for every ref handed out, than the turn saves.
import { engine } from './engine.js';

/** Hands back the object it is given as `this`: how `Handed` stamps its private fields on it. */
class Stamped {
  constructor(v) {
    return v;
  }
}

/** The private fields of an object the gate handed out (only `brand` makes one). */
export class Handed extends Stamped {
  /** How deep its objects nest (1: an object of primitives). */
  #levels;
  /** @type {{ text: string, limits: object } | undefined} */
  #written = undefined;

  /** @param {object} v @param {number} levels */
  constructor(v, levels) {
    super(v);
    this.#levels = levels;
  }

  /** How deep the objects of `v` nest if the gate handed it out, else -1 (no host code runs). */
  static levels(/** @type {object} */ v) {
    return #levels in v ? v.#levels : -1;
  }

  /** The text of `v` (handed out) as written, if written under the limits in force (they bound it). */
  static written(/** @type {object} */ v) {
    const w = /** @type {Handed} */ (v).#written;
    return w !== undefined && w.limits === engine.limits ? w.text : undefined;
  }

  /** Keeps `text`, the text of `v` (handed out) just written, and answers it. */
  static remember(/** @type {object} */ v, /** @type {string} */ text) {
    /** @type {Handed} */ (v).#written = { text, limits: engine.limits };
    return text;
  }
}

/**
 * Marks `v` as handed out by the gate and freezes it (after the stamp: a frozen object may not take
 * new private fields in later JavaScript); `levels`: how deep its objects nest.
 * @template {object} T @param {T} v @param {number} levels @returns {Readonly<T>}
 */
export function brand(v, levels) {
  new Handed(v, levels);
  return Object.freeze(v);
}

/**
 * [`brand`] of record `v` whose members are primitives or what the gate handed out (its nesting from
 * theirs); one holding any other object is only frozen, and read as the host's: freezing it does not
 * reach into that object.
 * @template {object} T @param {T} v @returns {Readonly<T>}
 */
export function brandRecord(v) {
  let levels = 1;
  // Own keys only: a `for…in` would read an enumerable getter a host put on `Object.prototype`.
  for (const key of Object.keys(v)) {
    const m = v[key];
    if (typeof m !== 'object' || m === null) continue;
    const inner = Handed.levels(m);
    if (inner < 0) return Object.freeze(v);
    if (inner >= levels) levels = inner + 1;
  }
  return brand(v, levels);
}
