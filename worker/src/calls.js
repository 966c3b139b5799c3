// `POST /conversations/:id/tool-calls`: one event batch of tool calls, forwarded to the sandbox, folded
// and persisted. Before it runs, the partition's files are kept fresh in the sandbox (src/upkeep.js);
// after, the files the calls wrote are recorded as the user's own (src/provenance.js) — and only those:
// what a call was given and answered back is an echo, which keeps the record it had.
import { Refusal } from './errors.js';
import { LedgerWrites, readLedger } from './ledger.js';
import { checkCalls } from './limits.js';
import { ORIGIN, dropUndefined, identity } from './provenance.js';
import { runBatch } from './batch.js';
import { keepOutputs, refresh } from './upkeep.js';
import { userCall } from './user.js';

/** How long past its deadline a run's slot is held if the conversation never releases it. */
const LEASE_MARGIN_MS = 30_000;

/**
 * @param {import('./upkeep.js').UpkeepContext & { threadId: string }} ctx  `partition` the request's
 * @param {{ gate: import('code-session-gate').Gate, checkRoom(count: number, partition: string): void, checkPartition(partition: string): void,
 *   checkSnapshotRoom(): void, upkeepHost(partition: string, now: number): any, persist(writes?: LedgerWrites): Promise<boolean> }} conv
 * @param {any} input the request's body
 * @param {{ codeSessionKey?: string, deadlineMs: number, maxConcurrentRuns: number }} run
 */
export async function toolCalls(ctx, conv, input, run) {
  const calls = input?.calls;
  if (!Array.isArray(calls) || calls.length === 0) {
    throw new Refusal(400, 'invalid_request', 'calls must be a non-empty array of { id, name, args }');
  }
  checkCalls(calls, ctx.limits.MAX_CALLS_PER_REQUEST);
  const { gate } = conv;
  const partition = ctx.partition;
  conv.checkPartition(partition);
  // Every call sends the whole partition: past the cap (reachable only through the model's own
  // outputs, which are never dropped) the conversation sends no more.
  conv.checkRoom(gate.session(partition)?.files?.length ?? 0, partition);
  conv.checkSnapshotRoom();
  // The runtime hint is the conversation object's id: unique per (user, conversation), so two users'
  // conversations of one id never share a runtime session on the sandbox, and it fits codeapi's alphabet.
  const options = { threadId: ctx.threadId, ...(run.codeSessionKey !== undefined ? { codeSessionKey: run.codeSessionKey } : {}) };
  const now = Date.now();
  const fresh = await refresh(ctx, gate.session(partition)?.files ?? [], conv.upkeepHost(partition, now), now);
  let lease;
  // The user's runs, across conversations, are reserved once the batch knows how many go out.
  const admit = async (/** @type {number} */ runs) => {
    const leaseMs = run.deadlineMs * Math.ceil(runs / run.maxConcurrentRuns) + LEASE_MARGIN_MS;
    const granted = await userCall(ctx.env, ctx.user, 'reserve', { runs, leaseMs });
    lease = granted.lease;
    return granted.slots;
  };
  let outcome;
  try {
    outcome = await runBatch(gate, ctx.sandbox, calls, options, { admit, blocked: fresh.expired });
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal(400, /** @type {any} */ (e).code ?? 'invalid_request', /** @type {Error} */ (e).message);
  } finally {
    if (lease !== undefined) await userCall(ctx.env, ctx.user, 'release', { lease });
  }
  const { writes, notKept } = await recordOutputs(ctx, outcome);
  const persisted = await conv.persist(writes);
  return {
    outcome,
    answer: {
      batch: outcome.end,
      persisted,
      sent: outcome.sent,
      refreshed: fresh.replaced.map(({ from, to }) => ({ name: to.name, from: { id: from.id, storage_session_id: from.storage_session_id }, to: { id: to.id, storage_session_id: to.storage_session_id } })),
      results: outcome.results,
      inherited: outcome.inherited,
      ...(notKept.length > 0 ? { notKept } : {}),
      partition,
      session: gate.session(partition) ?? null,
    },
  };
}

/**
 * The files the calls wrote, recorded as the user's own: in the user's object (primeable in their other
 * conversations, deleted with the last conversation holding them) and in this conversation's ledger,
 * received now. Not an identity the batch sent (an echo the sandbox did not mark as one), not a host's
 * file, not a kind the sandbox reports as shared. With KEEP_OUTPUTS their bytes are kept too.
 * @param {import('./upkeep.js').UpkeepContext} ctx
 * @param {{ sent: { files: any[] }, written: any[] }} outcome
 */
async function recordOutputs(ctx, outcome) {
  const writes = new LedgerWrites();
  const sent = new Set(outcome.sent.files.map(identity));
  const candidates = outcome.written.filter((f) => typeof f?.id === 'string' && typeof f?.storage_session_id === 'string' && !sent.has(identity(f)) && (f.kind ?? 'user') === 'user');
  if (candidates.length === 0) return { writes, notKept: [] };
  const known = await readLedger(ctx.storage, candidates);
  const outputs = [...new Map(candidates.filter((f) => known.get(identity(f))?.origin !== ORIGIN.host).map((f) => [identity(f), f])).values()];
  const now = Date.now();
  const { kept, skipped } = await keepOutputs(ctx, outputs, now);
  const refs = outputs.map((f) => dropUndefined({ id: f.id, storage_session_id: f.storage_session_id, origin: ORIGIN.output, name: f.name, receivedAt: now, ...kept.get(identity(f)) }));
  if (refs.length > 0) await userCall(ctx.env, ctx.user, 'remember', { conversation: ctx.conversation, refs });
  for (const r of refs) {
    const { id, storage_session_id, ...record } = r;
    writes.set({ id, storage_session_id }, { ...record, kind: 'user', conversation: ctx.conversation });
  }
  return { writes, notKept: skipped };
}
