// The gate's snapshot in Durable Object storage. A SQLite-backed object holds at most 2 MB per key and
// value, and a conversation may hold thousands of files, so the snapshot is laid out as one `meta` key
// plus the partitions' files in chunks of bounded size, all written in one transaction (a reader never
// sees half a write) and only when the snapshot changed.

/** Bytes of JSON per chunk: well under the 2 MB per-value limit. */
export const CHUNK_BYTES = 512 * 1024;
const META = 'meta';

/**
 * Splits a snapshot document (parsed) into storage entries.
 * @param {any} doc
 * @returns {Map<string, unknown>}
 */
export function layout(doc) {
  const entries = new Map();
  const { partitions, ...rest } = doc;
  const parts = [];
  (partitions ?? []).forEach(([key, entry], p) => {
    const { files, ...head } = entry;
    const chunks = [];
    let chunk = [];
    let bytes = 0;
    for (const file of files ?? []) {
      const size = JSON.stringify(file).length;
      if (chunk.length > 0 && bytes + size > CHUNK_BYTES) {
        chunks.push(chunk);
        chunk = [];
        bytes = 0;
      }
      chunk.push(file);
      bytes += size;
    }
    if (chunk.length > 0) chunks.push(chunk);
    chunks.forEach((c, i) => entries.set(`files:${p}:${i}`, c));
    parts.push({ key, head, hasFiles: files !== undefined, chunks: chunks.length });
  });
  entries.set(META, { ...rest, partitions: partitions === null ? null : parts });
  return entries;
}

/**
 * The snapshot document stored by `save`, or `undefined` when nothing is stored.
 * @param {DurableObjectStorage} storage
 */
export async function load(storage) {
  const meta = await storage.get(META);
  if (meta === undefined) return undefined;
  const { partitions, ...rest } = meta;
  if (partitions === null) return { ...rest, partitions: null };
  const keys = partitions.flatMap((part, p) => Array.from({ length: part.chunks }, (_, i) => `files:${p}:${i}`));
  const stored = keys.length > 0 ? await storage.get(keys) : new Map();
  const out = partitions.map((part, p) => {
    const entry = { ...part.head };
    if (part.hasFiles) {
      entry.files = [];
      for (let i = 0; i < part.chunks; i++) {
        const chunk = stored.get(`files:${p}:${i}`);
        if (!Array.isArray(chunk)) throw new Error(`stored snapshot is missing files:${p}:${i}`);
        entry.files.push(...chunk);
      }
    }
    // Key order as the gate writes it: session_id, files, lastUpdated, then the rest.
    const { session_id, files, lastUpdated, ...extra } = entry;
    const ordered = {};
    if (session_id !== undefined) ordered.session_id = session_id;
    if (files !== undefined) ordered.files = files;
    if (lastUpdated !== undefined) ordered.lastUpdated = lastUpdated;
    return [part.key, Object.assign(ordered, extra)];
  });
  // The document's own key order, with partitions back in place.
  const { suppressedEagerTools, ...head } = rest;
  return { ...head, partitions: out, suppressedEagerTools };
}

/**
 * Writes `doc` in one transaction, deleting the chunks of the previous layout it no longer uses, together
 * with `writes` (the ledger's entries put and deleted, src/ledger.js): a partition and the records of the
 * files it names change together or not at all. `doc` undefined writes `writes` alone.
 * @param {DurableObjectStorage} storage
 * @param {any} doc
 * @param {{ put?: Record<string, unknown>, delete?: string[] }} [writes]
 */
export async function save(storage, doc, writes = {}) {
  const entries = doc === undefined ? new Map() : layout(doc);
  for (const [k, v] of Object.entries(writes.put ?? {})) entries.set(k, v);
  const gone = writes.delete ?? [];
  await storage.transaction(async (txn) => {
    const stale = [];
    if (doc !== undefined) {
      const old = await txn.list({ prefix: 'files:' });
      for (const k of old.keys()) if (!entries.has(k)) stale.push(k);
    }
    for (const k of gone) if (!entries.has(k)) stale.push(k);
    // put/delete take at most 128 keys per call.
    const all = [...entries];
    for (let i = 0; i < all.length; i += 128) await txn.put(Object.fromEntries(all.slice(i, i + 128)));
    for (let i = 0; i < stale.length; i += 128) await txn.delete(stale.slice(i, i + 128));
  });
}
