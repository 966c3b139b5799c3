// Where each file ref came from, and what that lets a caller do with it. The worker never trusts what a
// request says about a ref (its `kind`, whose it is): it looks the ref up in what it recorded itself when
// the ref came in, and decides from that record alone.
//
// A ref comes in one of four ways, and only these:
//
// - `upload`: the user uploaded it through one of their conversations (`PUT …/files/:name`), or the
//   worker uploaded it again for them from its kept bytes; kind `user`, in the user's sandbox namespace;
// - `output`: a call of the user's wrote it in one of their conversations; kind `user` (the sandbox puts
//   every output in the caller's own namespace);
// - `host`: a host's token (scope `files:prime`) primed it as a `skill` or `agent` file, with the
//   `resource_id` (and a skill's `version`) the sandbox keys it on: shared with every user of the tenant;
// - an inherited echo (a file a call was given, answered back unchanged) is no new ref at all: it keeps
//   the record of the ref it echoes, and never becomes the user's.
//
// The user's own refs (`upload`, `output`) are recorded per user (src/user.js: which conversations hold
// each) and per conversation (src/ledger.js); a host's refs per conversation. From those records:
//
// - prime: a ref is accepted only as what its record says: the user's own as kind `user`, a host's as
//   its kind, resource and version (and only with a host's token); anything else is 403;
// - seeding: a partition's exec session is only ever the storage session of the user's own file;
// - given: only the user's own refs are primeable in their other conversations;
// - deletion: only the user's own files, once no conversation of theirs holds them; never a shared one;
// - age: when the sandbox received the file, never when it was last echoed.
import { Refusal } from './errors.js';
import { fileName } from './routes.js';

/** The id rule of both sandboxes: every file and session id is a 21-character nanoid. */
export const SANDBOX_ID = /^[A-Za-z0-9_-]{21}$/;
/** codeapi's `isValidResourceId`: a skill's or agent's id in its host's identity system. */
export const RESOURCE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** The kinds a sandbox keys files on (codeapi's CODE_ENV_KINDS). */
export const KINDS = ['user', 'skill', 'agent'];
/** The shared kinds: keyed on the resource, not on the user, so every user of the tenant reaches them. */
export const SHARED_KINDS = ['skill', 'agent'];
/** How a ref came in (see above). */
export const ORIGIN = Object.freeze({ upload: 'upload', output: 'output', host: 'host' });

/**
 * @typedef {{ id: string, name: string, storage_session_id: string, kind?: string, resource_id?: string, version?: number }} Ref
 *   a file ref as a prime request names it, after the door
 * @typedef {{ origin: 'upload' | 'output', conversation: string, name: string, receivedAt?: number, kept?: string, contentType?: string }} OwnRecord
 *   the user's record of one of their own refs (src/user.js)
 * @typedef {{ origin: 'upload' | 'output' | 'host', kind: string, name: string, conversation?: string, resource_id?: string,
 *   version?: number, receivedAt?: number, checkedAt?: number, kept?: string, contentType?: string }} LedgerEntry
 *   a conversation's record of a ref it holds (src/ledger.js)
 */

/** A file's identity: what both sandboxes authorise and store a file by. @param {{ id: string, storage_session_id?: string }} f */
export const identity = (f) => `${f.storage_session_id ?? ''}\u0000${f.id}`;

/** Whether a ledger entry is the user's own file (uploaded or written), as opposed to a host's shared one. */
export const isOwn = (/** @type {{ origin?: string, kind?: string } | undefined} */ entry) =>
  (entry?.origin === ORIGIN.upload || entry?.origin === ORIGIN.output) && (entry.kind ?? 'user') === 'user';

const invalidRef = (/** @type {string} */ message) => new Refusal(400, 'invalid_file_ref', message);

/**
 * A prime request's ref as the door lets it in: ids by the sandbox's id rule, a relative file name, a
 * known kind, a shared kind's resource (and a skill's version). Anything else is 400 `invalid_file_ref`,
 * naming the field, before anything is looked up or stored.
 * @param {unknown} raw
 * @param {number} i its index, for the message
 * @returns {Ref}
 */
export function refAtDoor(raw, i) {
  const at = `files[${i}]`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidRef(`${at} must be a file ref object`);
  const f = /** @type {Record<string, unknown>} */ (raw);
  for (const key of ['id', 'storage_session_id']) {
    if (typeof f[key] !== 'string' || !SANDBOX_ID.test(/** @type {string} */ (f[key]))) {
      throw invalidRef(`${at}.${key} must be an id the sandbox mints (21 characters of A-Z a-z 0-9 _ -)`);
    }
  }
  if (typeof f.name !== 'string') throw invalidRef(`${at}.name must be a string`);
  let name;
  try {
    name = fileName([encodeURIComponent(f.name)]);
  } catch (e) {
    throw invalidRef(`${at}.name: ${e instanceof URIError ? 'not well-formed Unicode (a lone surrogate)' : /** @type {Error} */ (e).message}`);
  }
  const ref = { id: /** @type {string} */ (f.id), name, storage_session_id: /** @type {string} */ (f.storage_session_id) };
  if (f.kind === undefined) return ref;
  if (typeof f.kind !== 'string' || !KINDS.includes(f.kind)) throw invalidRef(`${at}.kind must be one of ${KINDS.join(', ')}`);
  if (f.kind === 'user') return { ...ref, kind: 'user' };
  if (typeof f.resource_id !== 'string' || !RESOURCE_ID.test(f.resource_id)) {
    throw invalidRef(`${at}.resource_id is required for kind ${f.kind}: 1 to 128 characters of A-Z a-z 0-9 _ . : -`);
  }
  if (f.kind === 'skill') {
    if (typeof f.version !== 'number' || !Number.isSafeInteger(f.version) || f.version < 0) {
      throw invalidRef(`${at}.version is required for kind skill: a whole number`);
    }
    return { ...ref, kind: 'skill', resource_id: f.resource_id, version: f.version };
  }
  if (f.version !== undefined) throw invalidRef(`${at}.version is only valid for kind skill`);
  return { ...ref, kind: 'agent', resource_id: f.resource_id };
}

/**
 * What a prime does with one ref, decided from the records alone: the ref the partition stores and the
 * ledger entry it gets, or a 403 `forbidden_file_ref` that says why.
 * @param {Ref} ref as the door let it in
 * @param {number} i
 * @param {{ own: OwnRecord | null, held: LedgerEntry | undefined, hostToken: boolean }} records
 *   `own`: the user's record of the identity (given within REF_TTL_S), `held`: this conversation's
 * @returns {{ ref: Required<Pick<Ref, 'id' | 'name' | 'storage_session_id' | 'kind'>> & Ref, entry: LedgerEntry }}
 */
export function primeDecision(ref, i, { own, held, hostToken }) {
  const at = `files[${i}]`;
  const asked = ref.kind ?? 'user';
  if (own !== null) {
    if (asked !== 'user') {
      throw new Refusal(403, 'forbidden_file_ref', `${at} is your own file (${own.origin === ORIGIN.upload ? 'uploaded' : 'written'} in a conversation of yours): it is primed as kind user, never as ${asked}`);
    }
    const entry = { origin: own.origin, kind: 'user', name: ref.name, conversation: own.conversation, receivedAt: own.receivedAt, kept: own.kept, contentType: own.contentType };
    return { ref: { id: ref.id, resource_id: ref.id, name: ref.name, storage_session_id: ref.storage_session_id, kind: 'user' }, entry: dropUndefined(entry) };
  }
  if (asked === 'user') {
    const what = held?.origin === ORIGIN.host ? `a ${held.kind} file a host primed here` : 'not a file this worker gave you';
    throw new Refusal(403, 'forbidden_file_ref', `${at} is ${what}: prime only refs from your own answers and uploads (a host's token primes skill and agent files)`);
  }
  if (!hostToken) {
    throw new Refusal(403, 'forbidden_file_ref', `${at} is a ${asked} ref: only a host's token (scope files:prime) primes skill and agent files`);
  }
  if (held !== undefined && (held.kind !== asked || held.resource_id !== ref.resource_id || held.version !== ref.version)) {
    throw new Refusal(403, 'forbidden_file_ref', `${at} is held here as ${held.kind === 'user' ? 'a user file' : `${held.kind} ${held.resource_id}${held.version !== undefined ? ` version ${held.version}` : ''}`}: a ref is primed only as what it is`);
  }
  const entry = { origin: ORIGIN.host, kind: asked, name: ref.name, resource_id: ref.resource_id, version: ref.version, receivedAt: held?.receivedAt, checkedAt: held?.checkedAt };
  return { ref: { ...ref, kind: asked }, entry: dropUndefined(entry) };
}

/**
 * The exec session a new partition starts from: the storage session of the first of the user's own
 * files among `accepted`, never a shared one (LibreCodeInterpreter would run every user of a skill in
 * the skill's session, their outputs landing beside it); none when there is no such file.
 * @param {{ ref: Ref, entry: LedgerEntry }[]} accepted
 */
export function seedSession(accepted) {
  return accepted.find((a) => isOwn(a.entry) && a.ref.kind === 'user')?.ref.storage_session_id;
}

/** @template {Record<string, unknown>} T @param {T} o @returns {T} */
export function dropUndefined(o) {
  return /** @type {T} */ (Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
}
