// A conversation's ledger: per file identity it holds, where the ref came from and what the worker
// knows of the file (src/provenance.js): its origin and kind as recorded when it came in (a host's ref
// with its resource and version), when the sandbox received it, when the worker last checked it there,
// and where its bytes are kept. Entries are written in the same storage transaction as the snapshot
// that names their refs (src/store.js `save`), so a partition never names a ref whose entry is gone.
import { identity } from './provenance.js';

/** Storage key prefix of the ledger's entries (the snapshot's are `meta` and `files:*`). */
export const LEDGER_PREFIX = 'ledger:';

/** The storage key of a ref's entry. @param {{ id: string, storage_session_id?: string }} f */
export const ledgerKey = (f) => LEDGER_PREFIX + identity(f);

/**
 * The entries of `files` (by identity; duplicates looked up once).
 * @param {DurableObjectStorage} storage
 * @param {{ id: string, storage_session_id?: string }[]} files
 * @returns {Promise<Map<string, import('./provenance.js').LedgerEntry>>}
 */
export async function readLedger(storage, files) {
  const keys = [...new Set(files.map(ledgerKey))];
  const out = new Map();
  for (let i = 0; i < keys.length; i += 128) {
    const got = await storage.get(keys.slice(i, i + 128));
    for (const [k, v] of got) out.set(k.slice(LEDGER_PREFIX.length), v);
  }
  return out;
}

/**
 * Every entry of the ledger (for deleting the conversation).
 * @param {DurableObjectStorage} storage
 * @returns {Promise<Map<string, import('./provenance.js').LedgerEntry>>}
 */
export async function wholeLedger(storage) {
  const out = new Map();
  for (const [k, v] of await storage.list({ prefix: LEDGER_PREFIX })) out.set(k.slice(LEDGER_PREFIX.length), v);
  return out;
}

/** Ledger writes collected for one storage transaction (src/store.js `save`). */
export class LedgerWrites {
  constructor() {
    /** @type {Record<string, unknown>} */
    this.put = {};
    /** @type {string[]} */
    this.delete = [];
  }

  /** @param {{ id: string, storage_session_id?: string }} f @param {import('./provenance.js').LedgerEntry} entry */
  set(f, entry) {
    this.put[ledgerKey(f)] = entry;
    return this;
  }

  /** @param {{ id: string, storage_session_id?: string }} f */
  drop(f) {
    this.delete.push(ledgerKey(f));
    return this;
  }

  get empty() {
    return this.delete.length === 0 && Object.keys(this.put).length === 0;
  }
}
