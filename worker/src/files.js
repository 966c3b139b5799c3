// A conversation's files through the worker: uploads primed into the caller's partition, the list, and
// downloads of the partition's own files. Which file a name means is the partition's answer, never the
// caller's: a name that is not in it is 404 however it is spelled.
import { Refusal } from './errors.js';
import { LedgerWrites, readLedger } from './ledger.js';
import { ORIGIN, isOwn } from './provenance.js';
import { attachment, downloadFile, uploadFile } from './sandbox-files.js';
import { checkKeptRoom, keepBytes } from './upkeep.js';
import { userCall } from './user.js';

/**
 * @typedef {import('./upkeep.js').UpkeepContext & { gate: import('code-session-gate').Gate }} FileContext
 */

/** The partition's files (a copy the gate made). @param {{ gate: import('code-session-gate').Gate, partition: string }} ctx */
export function partitionFiles({ gate, partition }) {
  return gate.session(partition)?.files ?? [];
}

/**
 * Uploads `bytes` as `name` for the caller and records it as their own: room in the kept-bytes quota
 * first (nothing reaches the sandbox otherwise), the sandbox's upload, the bytes kept, the user's
 * record. Answers the sandbox's ref (kind `user`, named as the sandbox stored it: LibreCodeInterpreter
 * reduces names to a safe base name) and its ledger entry; the caller puts it in the partition.
 * @param {FileContext} ctx
 * @param {string} name
 * @param {Uint8Array} bytes
 * @param {string} contentType
 * @param {number} now
 */
export async function upload(ctx, name, bytes, contentType, now) {
  await checkKeptRoom(ctx, bytes.byteLength);
  const ref = await uploadFile(ctx.sandbox, ctx.sandbox.userId ?? ctx.user, name, bytes, contentType);
  const kept = await keepBytes(ctx, ref, bytes, contentType, now);
  const record = { origin: ORIGIN.upload, name: ref.name, receivedAt: now, ...(kept !== undefined ? { kept, contentType } : {}) };
  await userCall(ctx.env, ctx.user, 'remember', { conversation: ctx.conversation, refs: [{ id: ref.id, storage_session_id: ref.storage_session_id, ...record }] });
  const writes = new LedgerWrites().set(ref, { ...record, kind: 'user', conversation: ctx.conversation });
  return { ref, writes };
}

/**
 * The current version of `name`: streamed from the sandbox, or, when the sandbox no longer has it (404,
 * or codeapi's 403 once the file's storage expired), from the bytes the worker kept of the user's own
 * file. Either way an attachment.
 * @param {FileContext} ctx
 * @param {string} name
 */
export async function download(ctx, name) {
  const ref = partitionFiles(ctx).find((f) => f.name === name);
  if (!ref) throw new Refusal(404, 'file_not_found', `no file named ${JSON.stringify(name)} in this conversation's partition ${JSON.stringify(ctx.partition)}`);
  try {
    return await downloadFile(ctx.sandbox, ctx.sandbox.userId ?? ctx.user, ref);
  } catch (e) {
    if (!(e instanceof Refusal) || (e.code !== 'file_gone' && e.code !== 'forbidden_file_ref')) throw e;
    const entry = (await readLedger(ctx.storage, [ref])).get(`${ref.storage_session_id ?? ''}\u0000${ref.id}`);
    const own = entry !== undefined && typeof entry.kept === 'string' && (isOwn(entry) || entry.origin === undefined);
    const object = own ? await ctx.keeping.bucket?.get(/** @type {string} */ (entry.kept)) : null;
    if (!object) {
      if (e.code === 'forbidden_file_ref') throw new Refusal(404, 'file_gone', `download: the sandbox no longer lets this user read ${JSON.stringify(name)} (its copy expired) and the worker keeps no copy of it`);
      throw e;
    }
    return attachment(ref, object.body ?? new Uint8Array(await object.arrayBuffer()), entry?.contentType ?? object.httpMetadata?.contentType ?? null, object.size ?? null);
  }
}
