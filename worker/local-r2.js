// An R2 bucket for plain workerd, which has none of its own: what `serve.mjs` binds as `FILES` when the
// worker runs locally (the tests, scripts/run.sh). It is a workerd extension module (internal: only the
// wrapped binding can import it) that answers the part of R2's binding API the worker uses — `put`,
// `get`, `head`, `delete`, `list` with `prefix` / `cursor` / `limit` — over a writable disk service, one
// data file and one metadata file per key (the key hex-encoded, so no key can name a path). A deployment
// binds a real R2 bucket instead (wrangler.toml); nothing in the worker knows the difference.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A key as a file name: its UTF-8 bytes in hex. @param {string} key */
const hexOf = (key) => [...encoder.encode(key)].map((b) => b.toString(16).padStart(2, '0')).join('');
/** @param {string} hex */
const keyOf = (hex) => decoder.decode(Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16)));

/** Bytes of whatever `put` was given. @param {unknown} value */
async function bytesOf(value) {
  if (value === null || value === undefined) return new Uint8Array(0);
  if (typeof value === 'string') return encoder.encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new Uint8Array(await new Response(/** @type {any} */ (value)).arrayBuffer());
}

/** An object's metadata as R2 answers it (`R2Object`). */
function objectOf(meta) {
  return {
    key: meta.key,
    version: meta.etag,
    size: meta.size,
    etag: meta.etag,
    httpEtag: `"${meta.etag}"`,
    uploaded: new Date(meta.uploaded),
    httpMetadata: meta.httpMetadata ?? {},
    customMetadata: meta.customMetadata ?? {},
    checksums: {},
    storageClass: 'Standard',
    writeHttpMetadata(headers) {
      if (meta.httpMetadata?.contentType) headers.set('content-type', meta.httpMetadata.contentType);
    },
  };
}

class LocalBucket {
  /** @param {{ fetch: typeof fetch }} disk */
  constructor(disk) {
    this.disk = disk;
  }

  file(name, init) {
    return this.disk.fetch(`http://disk/${name}`, init);
  }

  async meta(key) {
    const res = await this.file(`${hexOf(key)}.meta`);
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`local R2: reading ${key}: ${res.status}`);
    return res.json();
  }

  async put(key, value, options = {}) {
    const bytes = await bytesOf(value);
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    const etag = [...new Uint8Array(digest)].slice(0, 16).map((b) => b.toString(16).padStart(2, '0')).join('');
    const meta = {
      key,
      size: bytes.byteLength,
      etag,
      uploaded: Date.now(),
      httpMetadata: options.httpMetadata instanceof Headers ? { contentType: options.httpMetadata.get('content-type') ?? undefined } : options.httpMetadata ?? {},
      customMetadata: options.customMetadata ?? {},
    };
    // The data first: a metadata file names only data that is there.
    for (const [name, body] of [[`${hexOf(key)}.data`, bytes], [`${hexOf(key)}.meta`, JSON.stringify(meta)]]) {
      const res = await this.file(name, { method: 'PUT', body });
      if (!res.ok) throw new Error(`local R2: writing ${key}: ${res.status}`);
    }
    return objectOf(meta);
  }

  async head(key) {
    const meta = await this.meta(key);
    return meta === null ? null : objectOf(meta);
  }

  async get(key) {
    const meta = await this.meta(key);
    if (meta === null) return null;
    const res = await this.file(`${hexOf(key)}.data`);
    if (res.status === 404) return null;
    const bytes = new Uint8Array(await res.arrayBuffer());
    return {
      ...objectOf(meta),
      get body() {
        return new Response(bytes).body;
      },
      bodyUsed: false,
      arrayBuffer: async () => bytes.slice().buffer,
      text: async () => decoder.decode(bytes),
      json: async () => JSON.parse(decoder.decode(bytes)),
      blob: async () => new Blob([bytes]),
    };
  }

  async delete(keys) {
    for (const key of Array.isArray(keys) ? keys : [keys]) {
      for (const name of [`${hexOf(key)}.meta`, `${hexOf(key)}.data`]) {
        const res = await this.file(name, { method: 'DELETE' });
        if (!res.ok && res.status !== 404) throw new Error(`local R2: deleting ${key}: ${res.status}`);
      }
    }
  }

  async list(options = {}) {
    const res = await this.file('');
    const listing = res.ok ? await res.json() : [];
    const prefix = options.prefix ?? '';
    const keys = listing
      .filter((e) => e.type === 'file' && e.name.endsWith('.meta'))
      .map((e) => keyOf(e.name.slice(0, -'.meta'.length)))
      .filter((k) => k.startsWith(prefix))
      .sort();
    const start = options.cursor ? keys.findIndex((k) => k > options.cursor) : 0;
    const limit = Math.min(options.limit ?? 1000, 1000);
    const page = start === -1 ? [] : keys.slice(start, start + limit);
    const objects = [];
    for (const key of page) {
      const meta = await this.meta(key);
      if (meta !== null) objects.push(objectOf(meta));
    }
    const truncated = start !== -1 && start + limit < keys.length;
    return { objects, truncated, ...(truncated ? { cursor: page[page.length - 1] } : {}), delimitedPrefixes: [] };
  }
}

/** The wrapped binding's entry: workerd calls it once with the inner bindings. */
export default function makeBucket(env) {
  return new LocalBucket(env.disk);
}
