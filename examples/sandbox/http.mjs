// Small HTTP helpers shared by both dialects. Bodies are read whole because
// both real servers only act once a request is complete, and it lets the
// fault layer record exec bodies before deciding to drop a connection.

/** Largest request body accepted (uploads included). */
export const MAX_BODY_BYTES = 100 * 1024 * 1024;

/**
 * Read a request body into one Buffer. Rejects with status 413 past `limit`.
 * @param {import('node:http').IncomingMessage} req
 * @param {number} [limit]
 * @returns {Promise<Buffer>}
 */
export function readBody(req, limit = MAX_BODY_BYTES) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(Object.assign(new Error('Request body too large'), { status: 413 }));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => { if (!failed) resolve(Buffer.concat(chunks)); });
    req.on('error', (err) => { if (!failed) { failed = true; reject(err); } });
  });
}

/**
 * Parse a JSON body; returns `{ ok: false }` instead of throwing so each
 * dialect can answer malformed input with its own status and body.
 * @param {Buffer} buf
 * @returns {{ ok: true, value: unknown } | { ok: false, error: string }}
 */
export function parseJson(buf) {
  try {
    return { ok: true, value: JSON.parse(buf.toString('utf8')) };
  } catch (err) {
    return { ok: false, error: /** @type {Error} */ (err).message };
  }
}

/**
 * Parse a multipart/form-data body with the WHATWG parser that ships in
 * Node's fetch implementation (no npm dependency). Entry order is preserved,
 * which matters: codeapi reads identity fields as they stream past.
 * @param {Buffer} buf
 * @param {string} contentType
 * @returns {Promise<Array<{ name: string, value: string } | { name: string, filename: string, type: string, bytes: Buffer }>>}
 */
export async function parseMultipart(buf, contentType) {
  const request = new Request('http://127.0.0.1/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: buf,
  });
  const form = await request.formData();
  const entries = [];
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      entries.push({ name, value });
    } else {
      entries.push({
        name,
        filename: value.name,
        type: value.type || 'application/octet-stream',
        bytes: Buffer.from(await value.arrayBuffer()),
      });
    }
  }
  return entries;
}

/**
 * Send a JSON answer unless something was already sent.
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
export function sendJson(res, status, body, headers = {}) {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Send raw bytes.
 * @param {import('node:http').ServerResponse} res
 * @param {Buffer} bytes
 * @param {Record<string, string>} headers
 */
export function sendBytes(res, bytes, headers) {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(200, { ...headers, 'content-length': bytes.length });
  res.end(bytes);
}

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
