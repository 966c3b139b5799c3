// Files outlive the sandbox. Both servers drop a session's files after about a day; LibreChat's own host
// answers that by keeping every file's bytes and uploading again any file older than 23 hours before it
// runs code. So does the worker:
//
// - the bytes of every upload, and with KEEP_OUTPUTS = "1" of every file the model writes (fetched once,
//   after the call that produced it, up to MAX_FILE_BYTES), go to the R2 bucket `FILES`, keyed by user,
//   conversation and file identity;
// - the conversation's ledger (its Durable Object's storage, `ledger:<storage>\0<id>`) holds, per file
//   identity, its name, when the sandbox received it and where its bytes are kept;
// - before a batch runs, each file of the partition older than FILE_FRESH_S is checked against the
//   sandbox; a missing or stale one is uploaded again from R2 and replaced in the partition (new id and
//   storage session, same name), so the call runs with the file. codeapi gets them together, up to 200 in
//   one `/upload/batch` request (one request against its per-user upload limit of 30 in 5 minutes). One
//   whose bytes the worker does not hold is expired: the calls that would send it fail with
//   `file_expired`, naming it, and are not sent.
import { Refusal } from './errors.js';
import { UPLOAD_BATCH_FILES, probeFile, uploadFiles } from './sandbox-files.js';

/** LibreChat's threshold: a file older than 23 h is uploaded again before code runs (the servers keep ~24 h). */
export const DEFAULT_FILE_FRESH_S = 82_800;

/** Bytes of kept files held at once while uploading them again (they go to the sandbox in batches). */
const REFRESH_BATCH_BYTES = 32 * 1024 * 1024;
const LEDGER = 'ledger:';

/** A file's identity. @param {{ id: string, storage_session_id?: string }} f */
export const identity = (f) => `${f.storage_session_id ?? ''}\u0000${f.id}`;

/** Where a conversation's kept bytes live in the bucket. @param {string} user @param {string} conversation */
export const keptPrefix = (user, conversation) => `${encodeURIComponent(user)}/${encodeURIComponent(conversation)}/`;

/**
 * @typedef {{ name: string, receivedAt: number, kept?: string, contentType?: string }} LedgerEntry
 *   `kept`: the bucket key of the file's bytes
 */

/** The file settings, from the worker's environment. @param {Record<string, any>} env */
export function keepingFrom(env) {
  const raw = env.FILE_FRESH_S;
  const freshS = raw === undefined || raw === '' ? DEFAULT_FILE_FRESH_S : Number(raw);
  if (!Number.isSafeInteger(freshS) || freshS < 0) {
    throw new Refusal(500, 'worker_settings', `FILE_FRESH_S must be a whole number of seconds, not ${JSON.stringify(raw)}`);
  }
  return { freshMs: freshS * 1000, keepOutputs: env.KEEP_OUTPUTS === '1', bucket: env.FILES };
}

/** One conversation's ledger and kept bytes. */
export class KeptFiles {
  /**
   * @param {DurableObjectStorage} storage the conversation's
   * @param {ReturnType<typeof keepingFrom>} keeping
   * @param {string} user
   * @param {string} conversation
   */
  constructor(storage, keeping, user, conversation) {
    this.storage = storage;
    this.keeping = keeping;
    this.user = user;
    this.conversation = conversation;
  }

  /** @param {{ id: string, storage_session_id?: string }[]} files @returns {Promise<Map<string, LedgerEntry>>} */
  async entries(files) {
    const keys = [...new Set(files.map((f) => LEDGER + identity(f)))];
    const out = new Map();
    for (let i = 0; i < keys.length; i += 128) {
      const got = await this.storage.get(keys.slice(i, i + 128));
      for (const [k, v] of got) out.set(k.slice(LEDGER.length), /** @type {LedgerEntry} */ (v));
    }
    return out;
  }

  /** Records files the sandbox received at `now` (those already known keep their entry). */
  async received(files, now) {
    const known = await this.entries(files);
    const fresh = files.filter((f) => !known.has(identity(f)));
    for (let i = 0; i < fresh.length; i += 128) {
      await this.storage.put(Object.fromEntries(fresh.slice(i, i + 128).map((f) => [LEDGER + identity(f), { name: f.name, receivedAt: now }])));
    }
    return fresh;
  }

  /** Keeps `bytes` as the file `ref`'s, and notes it in the ledger (received at `now`). */
  async keep(ref, bytes, contentType, now) {
    if (!this.keeping.bucket) return false;
    const key = `${keptPrefix(this.user, this.conversation)}${encodeURIComponent(ref.storage_session_id)}/${encodeURIComponent(ref.id)}`;
    await this.keeping.bucket.put(key, bytes, { httpMetadata: { contentType }, customMetadata: { name: ref.name, receivedAt: String(now) } });
    await this.storage.put(LEDGER + identity(ref), { name: ref.name, receivedAt: now, kept: key, contentType });
    return true;
  }

  /**
   * Makes sure the sandbox has every file of `files` that is older than FILE_FRESH_S: each is checked;
   * a missing or stale one is uploaded again from its kept bytes. Answers the replacements (old ref →
   * new ref, for the caller to put in the partition) and the identities of the expired files (no bytes
   * kept; present ones it could not check are trusted).
   * @param {import('./forward.js').SandboxSettings} sandbox
   * @param {any[]} files
   * @param {number} now
   */
  async refresh(sandbox, files, now) {
    const ledger = await this.entries(files);
    /** @type {{ from: any, to: any }[]} */
    const replaced = [];
    /** @type {Map<string, string>} identity → name */
    const expired = new Map();
    /** @type {{ f: any, entry: any, bytes: Uint8Array, contentType: string }[]} files to upload again, sent together */
    let pending = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      const uploaded = await uploadFiles(sandbox, this.user, pending.map((p) => ({ name: p.f.name, bytes: p.bytes, contentType: p.contentType })));
      for (const [i, { f, entry }] of pending.entries()) {
        // The partition keeps the name it knows the file by (a sandbox may shorten a nested name).
        const to = { ...uploaded[i], name: f.name };
        await this.storage.put(LEDGER + identity(to), { name: f.name, receivedAt: now, kept: entry?.kept, contentType: entry?.contentType });
        await this.storage.delete(LEDGER + identity(f));
        replaced.push({ from: f, to });
      }
      pending = [];
      pendingBytes = 0;
    };
    for (const f of files) {
      // A ref without a storage session names no object the sandbox could be asked about.
      if (typeof f.storage_session_id !== 'string') continue;
      const entry = ledger.get(identity(f));
      // A file the ledger never saw (primed before it existed) is as old as can be: it is checked.
      if (entry !== undefined && now - entry.receivedAt <= this.keeping.freshMs) continue;
      const probe = await probeFile(sandbox, this.user, f);
      if (probe.state === 'unknown') continue;
      if (probe.state === 'present' && probe.lastModified !== undefined && now - probe.lastModified <= this.keeping.freshMs) {
        await this.storage.put(LEDGER + identity(f), { ...(entry ?? { name: f.name }), receivedAt: probe.lastModified });
        continue;
      }
      const kept = entry?.kept ? await this.keeping.bucket?.get(entry.kept) : null;
      if (!kept) {
        if (probe.state === 'missing') expired.set(identity(f), f.name);
        continue;
      }
      const bytes = new Uint8Array(await kept.arrayBuffer());
      pending.push({ f, entry, bytes, contentType: entry?.contentType ?? kept.httpMetadata?.contentType ?? 'application/octet-stream' });
      pendingBytes += bytes.byteLength;
      // Sent in batches (codeapi: one upload request each), holding at most about REFRESH_BATCH_BYTES.
      if (pending.length >= UPLOAD_BATCH_FILES || pendingBytes >= REFRESH_BATCH_BYTES) await flush();
    }
    await flush();
    return { replaced, expired };
  }

  /** Removes the bytes this conversation kept in the bucket; answers how many objects went. */
  async forget() {
    let removed = 0;
    const bucket = this.keeping.bucket;
    if (bucket) {
      let cursor;
      do {
        const page = await bucket.list({ prefix: keptPrefix(this.user, this.conversation), cursor });
        if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
        removed += page.objects.length;
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor !== undefined);
    }
    return removed;
  }
}
