// Files outlive the sandbox. Both servers drop a session's files after about a day; LibreChat's own host
// answers that by keeping every file's bytes and uploading again any file older than 23 hours before it
// runs code. So does the worker, within the user's budgets:
//
// - the bytes of every upload, and with KEEP_OUTPUTS = "1" of every file the model writes (fetched once,
//   after the call that produced it, up to MAX_FILE_BYTES), go to the R2 bucket `FILES` under
//   `kept/<user>/<storage session>/<file id>`, counted against KEPT_BYTES_PER_USER and deleted after
//   KEPT_TTL_S (the user's object, src/user.js, holds their sizes and ages);
// - before a batch runs, each distinct file (by identity: one ref under a thousand names is one file) of
//   the partition older than FILE_FRESH_S is checked against the sandbox, the checks reserved first
//   against UPKEEP_PER_MINUTE; a missing or stale one is uploaded again from its kept bytes (reserved
//   likewise) and replaced in the partition, under every name it has there. codeapi gets them together, up
//   to 200 in one `/upload/batch` request. Each upload request's replacements go to the partition and
//   the ledger in one storage transaction: a failure or a crash at any point leaves every file as it was
//   or replaced, never named by the partition without its record;
// - a file that is gone and whose bytes the worker does not hold is expired: the calls that would send it
//   fail with `file_expired`, naming it, and are not sent;
// - a 429 from the sandbox on any of this is the request's 429, with the sandbox's Retry-After.
import { Refusal } from './errors.js';
import { LedgerWrites, readLedger } from './ledger.js';
import { pooled } from './pool.js';
import { ORIGIN, identity, isOwn } from './provenance.js';
import { UPLOAD_BATCH_FILES, credentialReuseMs, fetchFile, probeFile, uploadFiles } from './sandbox-files.js';
import { userCall } from './user.js';

/** LibreChat's threshold: a file older than 23 h is uploaded again before code runs (the servers keep ~24 h). */
export const DEFAULT_FILE_FRESH_S = 82_800;
/** Bytes of kept files held at once while uploading them again (they go to the sandbox in batches). */
const REFRESH_BATCH_BYTES = 32 * 1024 * 1024;
/** A check that found a file present but of unknown or stale age is trusted this long (at most FILE_FRESH_S). */
const RECHECK_MS = 10 * 60_000;
/** Checks (and output fetches) in flight at once. */
const CHECKS_IN_FLIGHT = 8;

/**
 * @typedef {object} UpkeepContext
 * @property {any} env
 * @property {DurableObjectStorage} storage      the conversation's
 * @property {string} user                       the caller
 * @property {string} conversation               the caller's conversation id
 * @property {import('./forward.js').SandboxSettings} sandbox
 * @property {import('./limits.js').Limits} limits
 * @property {ReturnType<typeof keepingFrom>} keeping
 * @property {string} partition
 */

/** The file settings, from the worker's environment. @param {Record<string, any>} env */
export function keepingFrom(env) {
  const raw = env.FILE_FRESH_S;
  const freshS = raw === undefined || raw === '' ? DEFAULT_FILE_FRESH_S : Number(raw);
  if (!Number.isSafeInteger(freshS) || freshS < 0) throw new Refusal(500, 'worker_settings', 'FILE_FRESH_S must be a whole number of seconds');
  return { freshMs: freshS * 1000, keepOutputs: env.KEEP_OUTPUTS === '1', bucket: env.FILES };
}

/** Where a user's kept file lives in the bucket. @param {string} user @param {{ id: string, storage_session_id: string }} ref */
export const keptKey = (user, ref) => `kept/${encodeURIComponent(user)}/${ref.storage_session_id}/${ref.id}`;

/** Where an older worker kept a conversation's files (one prefix per conversation). */
export const legacyPrefix = (/** @type {string} */ user, /** @type {string} */ conversation) => `${encodeURIComponent(user)}/${encodeURIComponent(conversation)}/`;

/**
 * Keeps `bytes` as the file `ref`'s: room made in the user's quota first (413 `kept_quota_exceeded`
 * otherwise, nothing written), then the bucket. Answers the bucket key, or undefined without a bucket.
 * @param {UpkeepContext} ctx
 */
export async function keepBytes(ctx, ref, bytes, contentType, now) {
  const bucket = ctx.keeping.bucket;
  if (!bucket) return undefined;
  const key = keptKey(ctx.user, ref);
  await userCall(ctx.env, ctx.user, 'keep', { key, bytes: bytes.byteLength });
  await bucket.put(key, bytes, { httpMetadata: { contentType }, customMetadata: { name: ref.name, receivedAt: String(now) } });
  return key;
}

/**
 * Whether there is room for `bytes` more kept bytes, asked before an upload reaches the sandbox (a refused
 * upload then sends nothing).
 * @param {UpkeepContext} ctx
 */
export async function checkKeptRoom(ctx, bytes) {
  if (ctx.keeping.bucket) await userCall(ctx.env, ctx.user, 'keep', { key: '', bytes, dryRun: true });
}

/** The sandbox settings with one credential reused for a request's checks (codeapi-jwt mints one per check otherwise). */
function reusingCredential(/** @type {import('./forward.js').SandboxSettings} */ sandbox) {
  if (!sandbox.credentialFor) return sandbox;
  let minted;
  let at = 0;
  const mint = sandbox.credentialFor;
  const reuse = credentialReuseMs(sandbox);
  return {
    ...sandbox,
    credentialFor: () => {
      if (minted === undefined || Date.now() - at > reuse) {
        minted = mint();
        at = Date.now();
      }
      return minted;
    },
  };
}

/** The sandbox's 429 on a file request, as the request's own. */
const sandboxLimited = (/** @type {string | undefined} */ retryAfter) =>
  new Refusal(429, 'sandbox_rate_limited', 'the sandbox refused a file check of this request for now (its own rate limit); nothing ran', retryAfter ? { 'retry-after': retryAfter } : {});

/**
 * Makes sure the sandbox has every file of the partition that is older than FILE_FRESH_S (see above).
 * `host` applies replacements: `replace(files, writes)` updates the partition and persists it with the
 * ledger writes in one transaction. Answers the replacements (`{ name, from, to }`) and the expired files
 * (identity → name) no call may be sent without.
 * @param {UpkeepContext} ctx
 * @param {any[]} files the partition's
 * @param {{ replace(files: any[], writes: LedgerWrites): Promise<void>, holdsElsewhere(f: any): boolean }} host
 * @param {number} now
 */
export async function refresh(ctx, files, host, now) {
  /** @type {Map<string, { f: any, names: string[] }>} one check per file identity, every name it has */
  const distinct = new Map();
  for (const f of files) {
    if (typeof f?.storage_session_id !== 'string' || typeof f?.id !== 'string') continue;
    const found = distinct.get(identity(f));
    if (found) found.names.push(f.name);
    else distinct.set(identity(f), { f, names: [f.name] });
  }
  const ledger = await readLedger(ctx.storage, [...distinct.values()].map((d) => d.f));
  const recheckMs = Math.min(ctx.keeping.freshMs, RECHECK_MS);
  /** @type {Map<string, string>} */
  const expired = new Map();
  const due = [];
  for (const [id, d] of distinct) {
    const entry = ledger.get(id);
    if (entry?.gone === true) {
      expired.set(id, d.f.name);
      continue;
    }
    if (entry?.receivedAt !== undefined && now - entry.receivedAt <= ctx.keeping.freshMs) continue;
    if (entry?.checkedAt !== undefined && now - entry.checkedAt < recheckMs) continue;
    due.push(d);
  }
  if (due.length === 0) return { replaced: [], expired };
  await userCall(ctx.env, ctx.user, 'upkeep', { count: due.length, what: 'file checks' });
  const sandbox = reusingCredential(ctx.sandbox);
  const checks = new LedgerWrites();
  /** @type {{ d: { f: any, names: string[] }, entry: any, size: number }[]} files to upload again */
  const again = [];
  let limited;
  await pooled(due.map((d) => async () => {
    if (limited !== undefined) return;
    const entry = ledger.get(identity(d.f)) ?? { kind: d.f.kind ?? 'user', name: d.f.name };
    const probe = await probeFile(sandbox, ctx.sandbox.userId ?? ctx.user, d.f);
    if (probe.state === 'limited') {
      limited = probe.retryAfter ?? '';
      return;
    }
    if (probe.state === 'unknown') return; // sent as it is: the sandbox could not say
    if (probe.state === 'present' && probe.lastModified !== undefined && now - probe.lastModified <= ctx.keeping.freshMs) {
      checks.set(d.f, { ...entry, receivedAt: probe.lastModified, checkedAt: now });
      return;
    }
    // Missing, or present but stale (or of unknown age): given again from its kept bytes when the worker
    // holds them. Only the user's own files have any: a host's skill or agent file is the host's to prime.
    // (An entry of an older worker has no origin; it kept only the bytes of uploads and outputs.)
    const ownBytes = typeof entry.kept === 'string' && (isOwn(entry) || entry.origin === undefined);
    const head = ownBytes ? await ctx.keeping.bucket?.head(entry.kept) : null;
    if (head) {
      again.push({ d, entry, size: head.size ?? 0 });
      return;
    }
    if (probe.state === 'missing') {
      expired.set(identity(d.f), d.f.name);
      checks.set(d.f, { ...entry, gone: true, checkedAt: now });
    } else {
      checks.set(d.f, { ...entry, checkedAt: now });
    }
  }), CHECKS_IN_FLIGHT);
  if (!checks.empty) await host.replace([], checks);
  if (limited !== undefined) throw sandboxLimited(limited || undefined);
  const replaced = again.length > 0 ? await uploadAgain(ctx, sandbox, again, host, expired, now) : [];
  return { replaced, expired };
}

/**
 * Uploads kept files again, in batches of at most UPLOAD_BATCH_FILES files and about REFRESH_BATCH_BYTES
 * (their bytes read from the bucket a batch at a time), each batch's replacements applied in one
 * transaction. A kept object gone meanwhile (KEPT_TTL_S) makes its file expired.
 * @param {UpkeepContext} ctx
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {{ d: { f: any, names: string[] }, entry: any, size: number }[]} again
 * @param {{ replace(files: any[], writes: LedgerWrites): Promise<void>, holdsElsewhere(f: any): boolean }} host
 * @param {Map<string, string>} expired
 * @param {number} now
 */
async function uploadAgain(ctx, sandbox, again, host, expired, now) {
  await userCall(ctx.env, ctx.user, 'upkeep', { count: again.length, what: 're-uploads of kept files' });
  const replaced = [];
  const flush = async (/** @type {typeof again} */ batch) => {
    const writes = new LedgerWrites();
    const loaded = [];
    for (const p of batch) {
      const object = await ctx.keeping.bucket?.get(p.entry.kept);
      if (!object) {
        expired.set(identity(p.d.f), p.d.f.name);
        writes.set(p.d.f, { ...p.entry, gone: true, checkedAt: now });
        continue;
      }
      loaded.push({ ...p, bytes: new Uint8Array(await object.arrayBuffer()), contentType: p.entry.contentType ?? object.httpMetadata?.contentType ?? 'application/octet-stream' });
    }
    if (loaded.length === 0) {
      await host.replace([], writes);
      return;
    }
    const uploaded = await uploadFiles(sandbox, ctx.sandbox.userId ?? ctx.user, loaded.map((p) => ({ name: p.d.f.name, bytes: p.bytes, contentType: p.contentType })));
    const files = [];
    const own = [];
    const letGo = [];
    loaded.forEach((p, i) => {
      const fresh = uploaded[i];
      const record = { origin: ORIGIN.upload, name: p.d.f.name, receivedAt: now, kept: p.entry.kept, contentType: p.contentType };
      writes.set(fresh, { ...record, kind: 'user', conversation: ctx.conversation });
      own.push({ id: fresh.id, storage_session_id: fresh.storage_session_id, ...record });
      // Every name the file has in the partition (the sandbox may shorten a nested one) gets the new ref.
      for (const name of p.d.names) {
        const to = { ...fresh, name };
        files.push(to);
        replaced.push({ from: { ...p.d.f, name }, to });
      }
      if (!host.holdsElsewhere(p.d.f)) {
        writes.drop(p.d.f);
        letGo.push({ id: p.d.f.id, storage_session_id: p.d.f.storage_session_id });
      }
    });
    // The user's record first: a crash before the transaction leaves a record no partition names
    // (let go when the conversation is deleted), never a partition naming a ref without its record.
    await userCall(ctx.env, ctx.user, 'remember', { conversation: ctx.conversation, refs: own });
    await host.replace(files, writes);
    if (letGo.length > 0) await userCall(ctx.env, ctx.user, 'let-go', { conversation: ctx.conversation, refs: letGo });
  };
  let batch = [];
  let bytes = 0;
  for (const p of again) {
    if (batch.length > 0 && (batch.length >= UPLOAD_BATCH_FILES || bytes + p.size > REFRESH_BATCH_BYTES)) {
      await flush(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(p);
    bytes += p.size;
  }
  if (batch.length > 0) await flush(batch);
  return replaced;
}

/**
 * KEEP_OUTPUTS: the bytes of the files the model wrote, fetched once after the call that produced them (up
 * to MAX_FILE_BYTES), within the user's upkeep budget and kept-bytes quota. Answers, per identity kept,
 * its bucket key and type, and the files not kept with why.
 * @param {UpkeepContext} ctx
 * @param {any[]} outputs the user's new files
 */
export async function keepOutputs(ctx, outputs, now) {
  /** @type {Map<string, { kept: string, contentType: string }>} */
  const kept = new Map();
  /** @type {{ name: string, reason: string }[]} */
  const skipped = [];
  if (!ctx.keeping.keepOutputs || !ctx.keeping.bucket || outputs.length === 0) return { kept, skipped };
  try {
    await userCall(ctx.env, ctx.user, 'upkeep', { count: outputs.length, what: 'output fetches' });
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    for (const f of outputs) skipped.push({ name: f.name, reason: 'upkeep_budget' });
    return { kept, skipped };
  }
  const sandbox = reusingCredential(ctx.sandbox);
  await pooled(outputs.map((f) => async () => {
    const got = await fetchFile(sandbox, ctx.sandbox.userId ?? ctx.user, f, ctx.limits.MAX_FILE_BYTES).catch(() => null);
    if (!got) {
      skipped.push({ name: f.name, reason: 'not_fetched' });
      return;
    }
    try {
      const key = await keepBytes(ctx, f, got.bytes, got.contentType, now);
      if (key !== undefined) kept.set(identity(f), { kept: key, contentType: got.contentType });
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      skipped.push({ name: f.name, reason: e.code });
    }
  }), CHECKS_IN_FLIGHT);
  return { kept, skipped };
}
