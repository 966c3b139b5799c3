// Identifiers shaped like the nanoid() ids both real servers hand out, so that
// clients which validate ids (LibreChat accepts only /^[A-Za-z0-9_-]{21}$/)
// treat ours exactly like production ones.
import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/** The shape every file id and session id must have. */
export const ID_RE = /^[A-Za-z0-9_-]{21}$/;

/**
 * A fresh 21-character id from [A-Za-z0-9_-].
 * @returns {string}
 */
export function newId() {
  let id = '';
  // randomInt is unbiased, unlike `byte % 64` tricks that are only unbiased by luck.
  for (let i = 0; i < 21; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

/**
 * @param {unknown} value
 * @returns {value is string}
 */
export function isValidId(value) {
  return typeof value === 'string' && ID_RE.test(value);
}
