// `POST /conversations/:id/files`: refs primed into a partition, each accepted only as what the worker's
// own records say it is (src/provenance.js): the user's own uploads and outputs, in any of their
// conversations, as kind `user`; a host's skill and agent files with a host's token. The partition's exec
// session is never the caller's to choose, and never a shared file's. A refused prime stores nothing.
import { PRIME_SCOPE } from './auth.js';
import { Refusal } from './errors.js';
import { LedgerWrites, readLedger } from './ledger.js';
import { identity, isOwn, primeDecision, refAtDoor, seedSession } from './provenance.js';
import { userCall } from './user.js';

/**
 * @param {import('./upkeep.js').UpkeepContext & { scopes: string[] }} ctx
 * @param {{ gate: import('code-session-gate').Gate, checkRoom(count: number, partition: string): void, checkPartition(partition: string): void,
 *   apply(change: () => void, writes: LedgerWrites): Promise<boolean> }} conv
 * @param {any} input the request's body
 * @returns {Promise<{ partition: string, persisted: boolean }>}
 */
export async function prime(ctx, conv, input) {
  const files = input?.files;
  if (!Array.isArray(files) || files.length === 0) throw new Refusal(400, 'invalid_request', 'files must be a non-empty array of file refs');
  if (input.session_id !== undefined) {
    throw new Refusal(403, 'forbidden_session', "session_id is not the caller's to choose: the partition keeps the session the sandbox gave it");
  }
  if (files.length > ctx.limits.MAX_REFS_PER_PRIME) {
    throw new Refusal(413, 'too_many_files', `${files.length} refs in one prime; at most ${ctx.limits.MAX_REFS_PER_PRIME} (MAX_REFS_PER_PRIME)`);
  }
  const refs = files.map(refAtDoor);
  const partition = ctx.partition;
  conv.checkPartition(partition);
  const { records } = await userCall(ctx.env, ctx.user, 'records', { refs: refs.map(({ id, storage_session_id }) => ({ id, storage_session_id })) });
  const held = await readLedger(ctx.storage, refs);
  const hostToken = ctx.scopes.includes(PRIME_SCOPE);
  const accepted = refs.map((ref, i) => primeDecision(ref, i, { own: records[i] ?? null, held: held.get(identity(ref)), hostToken }));
  const current = conv.gate.session(partition);
  const names = new Set((current?.files ?? []).map((/** @type {any} */ f) => f.name));
  conv.checkRoom(names.size + new Set(accepted.map((a) => a.ref.name).filter((n) => !names.has(n))).size, partition);
  const own = accepted.filter((a) => isOwn(a.entry)).map((a) => ({ id: a.ref.id, storage_session_id: a.ref.storage_session_id }));
  if (own.length > 0) await userCall(ctx.env, ctx.user, 'hold', { conversation: ctx.conversation, refs: own });
  const session_id = current?.session_id ?? seedSession(accepted);
  const writes = new LedgerWrites();
  for (const a of accepted) writes.set(a.ref, a.entry);
  const persisted = await conv.apply(() => {
    conv.gate.seedRun([[partition, session_id === undefined ? { files: accepted.map((a) => a.ref) } : { session_id, files: accepted.map((a) => a.ref) }]]);
  }, writes);
  return { partition, persisted };
}
