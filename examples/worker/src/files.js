// A conversation's files through the worker: uploads primed into the caller's partition, the list, and
// downloads of the partition's own files. Which file a name means is the partition's answer, never the
// caller's: a name that is not in it is 404 however it is spelled.
import { Refusal } from './errors.js';
import { downloadFile, uploadFile } from './sandbox-files.js';

/**
 * @typedef {object} FileContext
 * @property {import('code-session-gate').Gate} gate
 * @property {import('./forward.js').SandboxSettings} sandbox  with `userId` the caller
 * @property {string} partition
 */

/** The partition's files (a copy the gate made). @param {FileContext} ctx */
export function partitionFiles({ gate, partition }) {
  return gate.session(partition)?.files ?? [];
}

/**
 * Uploads `bytes` as `name` and primes the sandbox's ref into the partition, replacing a file of the
 * same name and keeping the partition's exec session (a new partition starts from the upload's).
 * Nothing is folded when the upload fails.
 * @param {FileContext} ctx
 * @param {string} name
 * @param {Uint8Array} bytes
 * @param {string} contentType
 * @param {number} now
 */
export async function upload(ctx, name, bytes, contentType, now) {
  const ref = await uploadFile(ctx.sandbox, /** @type {string} */ (ctx.sandbox.userId), name, bytes, contentType);
  const current = ctx.gate.session(ctx.partition);
  ctx.gate.updateSession(ctx.partition, { session_id: current?.session_id || ref.storage_session_id, files: [ref] }, { now });
  return ref;
}

/**
 * The current version of `name` from the sandbox, streamed.
 * @param {FileContext} ctx
 * @param {string} name
 */
export async function download(ctx, name) {
  const ref = partitionFiles(ctx).find((f) => f.name === name);
  if (!ref) throw new Refusal(404, 'file_not_found', `no file named ${JSON.stringify(name)} in this conversation's partition ${JSON.stringify(ctx.partition)}`);
  return downloadFile(ctx.sandbox, /** @type {string} */ (ctx.sandbox.userId), ref);
}
