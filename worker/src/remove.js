// `DELETE /conversations/:id`: the conversation goes, and with it what only it held. A file is deleted in
// the sandbox only when the worker's records say it is the user's own (uploaded or written by them) and
// no other conversation of theirs holds it; a host's skill or agent file, an echo, or a file another
// conversation holds is kept, and the answer says which and why. Deletions in the sandbox count against
// the user's upkeep budget: past it, the rest are left to expire there (both servers drop files after
// about a day), never a reason to keep the conversation.
import { Refusal } from './errors.js';
import { wholeLedger } from './ledger.js';
import { SHARED_KINDS, identity } from './provenance.js';
import { deleteFile } from './sandbox-files.js';
import { legacyPrefix } from './upkeep.js';
import { userCall } from './user.js';

/** Why a file was not deleted in the sandbox. */
const KEPT_BECAUSE = {
  shared: 'a skill or agent file a host primed: shared with other users, never deleted by a user',
  held: 'another conversation of yours holds it',
  not_yours: 'not a file you uploaded or wrote (an echo of a file you were given, or one recorded before the worker kept records of origin)',
  upkeep_budget: 'over your file upkeep budget (UPKEEP_PER_MINUTE): left to expire in the sandbox',
};

/**
 * Deletes the conversation: its files as above, the bytes kept of them (by the user's object, once no
 * record refers to them), its snapshot, trace and ledger.
 * @param {import('./upkeep.js').UpkeepContext} ctx
 * @param {import('code-session-gate').Gate} gate
 */
export async function removeConversation(ctx, gate) {
  const storage = ctx.storage;
  const stored = (await storage.list({ limit: 1 })).size > 0;
  const legacyKept = await forgetLegacy(ctx);
  if (!stored && legacyKept === 0) throw new Refusal(404, 'not_found', `no conversation ${JSON.stringify(ctx.conversation)} of yours`);
  /** @type {Map<string, { ref: { id: string, storage_session_id: string }, name: string, entry: any }>} */
  const files = new Map();
  for (const [, entry] of gate.sessions()) {
    for (const f of entry?.files ?? []) {
      if (typeof f?.id === 'string' && typeof f?.storage_session_id === 'string' && !files.has(identity(f))) {
        files.set(identity(f), { ref: { id: f.id, storage_session_id: f.storage_session_id }, name: f.name, entry: { kind: f.kind } });
      }
    }
  }
  for (const [id, entry] of await wholeLedger(storage)) {
    const [storage_session_id, fileId] = id.split('\u0000');
    const known = files.get(id);
    files.set(id, { ref: { id: fileId, storage_session_id }, name: known?.name ?? entry.name, entry });
  }
  /** @type {{ name: string, id: string, storage_session_id: string, reason: string, because: string }[]} */
  const kept = [];
  const keep = (/** @type {any} */ f, /** @type {keyof typeof KEPT_BECAUSE} */ reason) =>
    kept.push({ name: f.name, id: f.ref.id, storage_session_id: f.ref.storage_session_id, reason, because: KEPT_BECAUSE[reason] });
  const candidates = [];
  for (const f of files.values()) {
    if (SHARED_KINDS.includes(f.entry?.kind)) keep(f, 'shared');
    else candidates.push(f);
  }
  const { outcomes, keptDeleted } = candidates.length > 0
    ? await userCall(ctx.env, ctx.user, 'let-go', { conversation: ctx.conversation, refs: candidates.map((f) => f.ref) })
    : { outcomes: [], keptDeleted: 0 };
  const doomed = [];
  candidates.forEach((f, i) => {
    if (outcomes[i] === 'deleted') doomed.push(f);
    else keep(f, outcomes[i] === 'held' ? 'held' : 'not_yours');
  });
  const sandbox = { deleted: 0, failed: 0, unsupported: 0 };
  if (ctx.sandbox.dialect !== 'codeapi') {
    sandbox.unsupported = doomed.length;
  } else if (doomed.length > 0) {
    let allowed = true;
    try {
      await userCall(ctx.env, ctx.user, 'upkeep', { count: doomed.length, what: 'deletions in the sandbox' });
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      allowed = false;
    }
    for (const f of doomed) {
      if (!allowed) {
        keep(f, 'upkeep_budget');
        continue;
      }
      sandbox[await deleteFile(ctx.sandbox, ctx.sandbox.userId ?? ctx.user, { ...f.ref, kind: 'user' })] += 1;
    }
  }
  const trace = (await storage.get('trace')) !== undefined;
  await storage.deleteAll();
  return { conversation: ctx.conversation, deleted: { snapshot: stored, trace, keptFiles: legacyKept + keptDeleted, sandbox }, kept };
}

/** Removes the bytes an older worker kept under this conversation's own prefix; answers how many went. */
async function forgetLegacy(/** @type {import('./upkeep.js').UpkeepContext} */ ctx) {
  let removed = 0;
  const bucket = ctx.keeping.bucket;
  if (!bucket) return 0;
  let cursor;
  do {
    const page = await bucket.list({ prefix: legacyPrefix(ctx.user, ctx.conversation), cursor });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((/** @type {any} */ o) => o.key));
    removed += page.objects.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return removed;
}
