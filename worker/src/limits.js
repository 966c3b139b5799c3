// What one caller may ask of the worker. Each limit is a `[vars]` setting (worker/README.md),
// each refusal a typed error, and each is checked before anything runs or is stored.
import { Refusal } from './errors.js';

/** The settings and their defaults (worker/README.md says which are per user, per conversation). */
export const LIMIT_DEFAULTS = Object.freeze({
  /** JSON bodies (tool calls, primed refs): 1 MiB. */
  MAX_BODY_BYTES: 1024 * 1024,
  /** Tool calls in one request (one event batch); never more than RUNS_PER_MINUTE (see `limitsFrom`). */
  MAX_CALLS_PER_REQUEST: 64,
  /** One uploaded file: 25 MiB. */
  MAX_FILE_BYTES: 25 * 1024 * 1024,
  /** Requests of one user, all conversations together, in any 60 s. */
  RATE_LIMIT_PER_MINUTE: 120,
  /** Sandbox runs (tool calls sent to the sandbox) of one user, all conversations together, in any 60 s. */
  RUNS_PER_MINUTE: 120,
  /** Sandbox runs of one user in flight at once; a batch runs its calls through the slots it gets. */
  MAX_CONCURRENT_RUNS: 8,
  /** Files one partition may hold: primes and uploads past it are refused, and so is a batch once past it. */
  MAX_FILES_PER_PARTITION: 1000,
  /** Partitions (agents) one conversation may hold. */
  MAX_PARTITIONS_PER_CONVERSATION: 16,
  /** The conversation's stored snapshot, in bytes of JSON (it is rewritten whole on each change): 4 MiB. */
  MAX_SNAPSHOT_BYTES: 4 * 1024 * 1024,
  /** File refs in one prime request. */
  MAX_REFS_PER_PRIME: 100,
  /** One sandbox answer (an /exec body) the worker reads: 16 MiB. */
  MAX_ANSWER_BYTES: 16 * 1024 * 1024,
  /** Seconds a ref the worker gave a user stays primeable after it was last given (30 days). */
  REF_TTL_S: 30 * 24 * 60 * 60,
  /**
   * File upkeep of one user in any 60 s, all conversations together: freshness checks, re-uploads of
   * kept files, fetches of outputs to keep, deletions in the sandbox. At least MAX_FILES_PER_PARTITION,
   * so that one request's upkeep always fits; by default twice that (a check and a re-upload per file).
   */
  UPKEEP_PER_MINUTE: 2 * 1000,
  /** Bytes of files the worker keeps for one user (FILES), all conversations together: 1 GiB. */
  KEPT_BYTES_PER_USER: 1024 * 1024 * 1024,
  /** Seconds the worker keeps a file's bytes (FILES) after it stored them (30 days). */
  KEPT_TTL_S: 30 * 24 * 60 * 60,
});

/** @typedef {{ [K in keyof typeof LIMIT_DEFAULTS]: number }} Limits */

/** A setting the worker cannot use: named, its value never repeated (it may be a secret's neighbour). */
const unusable = (message) => new Refusal(500, 'worker_settings', message);

/**
 * The limits in force, from the worker's environment; an unusable value is a 500 naming it. Settings
 * that depend on each other default consistently: MAX_CALLS_PER_REQUEST to at most RUNS_PER_MINUTE,
 * UPKEEP_PER_MINUTE to twice MAX_FILES_PER_PARTITION; set against each other they are refused, named.
 * @param {Record<string, unknown>} env
 * @returns {Limits}
 */
export function limitsFrom(env) {
  /** @type {any} */
  const out = {};
  /** @type {Set<string>} */
  const given = new Set();
  for (const [name, fallback] of Object.entries(LIMIT_DEFAULTS)) {
    const raw = env[name];
    const set = raw !== undefined && raw !== '';
    const value = set ? Number(raw) : fallback;
    if (!Number.isSafeInteger(value) || value < 1) throw unusable(`${name} must be a positive whole number`);
    if (set) given.add(name);
    out[name] = value;
  }
  if (!given.has('MAX_CALLS_PER_REQUEST')) out.MAX_CALLS_PER_REQUEST = Math.min(out.MAX_CALLS_PER_REQUEST, out.RUNS_PER_MINUTE);
  if (!given.has('UPKEEP_PER_MINUTE')) out.UPKEEP_PER_MINUTE = 2 * out.MAX_FILES_PER_PARTITION;
  // A request the run window could never hold would be refused forever; so would a partition's upkeep.
  if (out.MAX_CALLS_PER_REQUEST > out.RUNS_PER_MINUTE) throw unusable('MAX_CALLS_PER_REQUEST must not be above RUNS_PER_MINUTE');
  if (out.UPKEEP_PER_MINUTE < out.MAX_FILES_PER_PARTITION) throw unusable('UPKEEP_PER_MINUTE must be at least MAX_FILES_PER_PARTITION');
  return out;
}

/**
 * The request's body, read up to `max` bytes: a declared length over it is refused before reading, and
 * a body that turns out longer (chunked) is refused when it passes it.
 * @param {Request} request
 * @param {number} max
 * @param {string} what  names the limit in the refusal
 * @returns {Promise<Uint8Array>}
 */
export async function readBody(request, max, what) {
  const tooLarge = () => new Refusal(413, 'payload_too_large', `${what}: more than ${max} bytes`);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > max) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const chunks = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The number of tool calls in a request, refused past `max`. @param {unknown[]} calls @param {number} max */
export function checkCalls(calls, max) {
  if (calls.length > max) {
    throw new Refusal(413, 'too_many_calls', `${calls.length} tool calls in one request; at most ${max} (MAX_CALLS_PER_REQUEST)`);
  }
}
