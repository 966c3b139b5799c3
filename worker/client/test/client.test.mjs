// The client against a stub HTTP server (node:http) that records what it was sent and answers as told:
// the requests it builds (paths, encoding, bodies, headers, tokens) and the errors it makes of every kind
// of answer. The same client against the real worker in workerd: tests/e2e/client.test.mjs.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { WorkerClient, WorkerError, createClient } from '../client.js';

/**
 * @typedef {{ method: string, url: string, headers: import('node:http').IncomingHttpHeaders, body: Buffer }} Seen
 * @typedef {(req: Seen, res: import('node:http').ServerResponse) => void} Answer
 */

/** @type {Seen[]} */
let seen = [];
/** @type {Answer} */
let answer = (_req, res) => json(res, 200, { ok: true });
/** @type {import('node:http').Server} */
let server;
let base = '';

const json = (/** @type {import('node:http').ServerResponse} */ res, /** @type {number} */ status, /** @type {unknown} */ body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

before(async () => {
  server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const one = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
    seen.push(one);
    answer(one, res);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  base = `http://127.0.0.1:${address.port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

beforeEach(() => {
  seen = [];
  answer = (_req, res) => json(res, 200, { ok: true });
});

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
const client = (options = {}) => createClient({ baseUrl: `${base}/gate/`, token: TOKEN, ...options });

/** The WorkerError a promise rejects with (fails when it resolves or rejects with anything else). */
async function refusal(/** @type {Promise<unknown>} */ promise) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof WorkerError, `a WorkerError, not ${e}`);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'WorkerError');
    return e;
  }
  assert.fail('resolved; a WorkerError was expected');
}

describe('requests', () => {
  test('each method: its route, method, body and partition; a path prefix kept; JSON answers parsed', async () => {
    answer = (req, res) => json(res, 200, { echo: `${req.method} ${req.url}` });
    const c = client();
    const calls = [{ id: 'c1', name: 'bash_tool', args: { command: 'ls /mnt/data' } }];
    assert.deepEqual(await c.toolCalls('conv-1', calls, { agent: 'agent b' }), { echo: 'POST /gate/conversations/conv-1/tool-calls' });
    await c.toolCalls('conv-1', calls);
    await c.listFiles('conv-1', { agent: 'a&b=c' });
    await c.listFiles('conv-1');
    await c.prime('conv-1', [{ id: 'f', name: 'a.txt' }], { agent: 'x' });
    await c.snapshot('conv-1');
    await c.deleteConversation('conv-1');
    await c.trace('conv-1');
    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.url}`),
      [
        'POST /gate/conversations/conv-1/tool-calls',
        'POST /gate/conversations/conv-1/tool-calls',
        'GET /gate/conversations/conv-1/files?agent=a%26b%3Dc',
        'GET /gate/conversations/conv-1/files',
        'POST /gate/conversations/conv-1/files',
        'GET /gate/conversations/conv-1',
        'DELETE /gate/conversations/conv-1',
        'GET /gate/conversations/conv-1/trace',
      ],
    );
    assert.deepEqual(JSON.parse(seen[0].body.toString()), { calls, agent: { codeSessionKey: 'agent b' } });
    assert.deepEqual(JSON.parse(seen[1].body.toString()), { calls }, 'no agent: the worker picks the default partition');
    assert.deepEqual(JSON.parse(seen[4].body.toString()), { files: [{ id: 'f', name: 'a.txt' }], agent: { codeSessionKey: 'x' } });
    for (const s of [seen[0], seen[4]]) assert.equal(s.headers['content-type'], 'application/json');
    for (const s of [seen[2], seen[5], seen[6]]) {
      assert.equal(s.headers['content-type'], undefined, `${s.method} ${s.url} sends no body`);
      assert.equal(s.body.length, 0);
    }
  });

  test("paths: a file name's / kept as directory separators, every other character of a part encoded", async () => {
    const c = client();
    await c.upload('c:1', 'out dir/ä?#%/plot.png', 'x', { agent: 'k/1' });
    await c.download('c:1', 'a%2Fb.txt');
    await c.download('c.1', '/abs');
    assert.deepEqual(
      seen.map((s) => s.url),
      [
        '/gate/conversations/c%3A1/files/out%20dir/%C3%A4%3F%23%25/plot.png?agent=k%2F1',
        // A literal `%2F` in a name is the name's own text, not a separator: encoded as `%252F`.
        '/gate/conversations/c%3A1/files/a%252Fb.txt',
        // An absolute name is sent as it is (an empty first part): the worker refuses it, not the client.
        '/gate/conversations/c.1/files//abs',
      ],
    );
  });

  test('a "." or ".." part, which URL parsing would resolve away, is refused before anything is sent', async () => {
    const c = client();
    for (const [conversation, name] of [['..', 'a.txt'], ['.', 'a.txt'], ['c', '../other/files/x'], ['c', 'a/./b'], ['c', '..']]) {
      const e = await refusal(c.download(conversation, name));
      assert.equal(e.code, 'invalid_path');
      assert.equal(e.status, 0);
      assert.match(e.message, /nothing was sent/);
    }
    assert.equal(seen.length, 0);
  });

  test('arguments of the wrong type are TypeErrors, nothing sent', async () => {
    const c = client();
    await assert.rejects(async () => c.upload('c', 'a.bin', /** @type {any} */ ({ bytes: [1] })), TypeError);
    await assert.rejects(async () => c.listFiles('c', { agent: /** @type {any} */ ({ codeSessionKey: 'k' }) }), TypeError);
    await assert.rejects(async () => c.snapshot(/** @type {any} */ (7)), TypeError);
    assert.throws(() => createClient(/** @type {any} */ ({ token: TOKEN })), TypeError);
    assert.equal(seen.length, 0);
  });

  test('uploads: bytes, text and Blobs arrive byte for byte, with their content type', async () => {
    answer = (_req, res) => json(res, 200, { partition: 'execute_code' });
    const c = client();
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    await c.upload('c', 'all.bin', bytes);
    await c.upload('c', 'all.buf', bytes.buffer);
    await c.upload('c', 'note.txt', 'é\n');
    await c.upload('c', 'page.html', new Blob(['<p>'], { type: 'text/html' }));
    await c.upload('c', 'untyped', new Blob([bytes]));
    await c.upload('c', 'data.csv', 'a,b\n', { contentType: 'text/csv' });
    assert.deepEqual(
      seen.map((s) => [s.method, s.headers['content-type'], s.body.toString('hex')]),
      [
        ['PUT', 'application/octet-stream', Buffer.from(bytes).toString('hex')],
        ['PUT', 'application/octet-stream', Buffer.from(bytes).toString('hex')],
        ['PUT', 'text/plain; charset=utf-8', Buffer.from('é\n').toString('hex')],
        ['PUT', 'text/html', Buffer.from('<p>').toString('hex')],
        ['PUT', 'application/octet-stream', Buffer.from(bytes).toString('hex')],
        ['PUT', 'text/csv', Buffer.from('a,b\n').toString('hex')],
      ],
    );
  });

  test('download: the Response unread (a large file streams), a refusal thrown before any byte', async () => {
    const size = 8 * 1024 * 1024;
    answer = (req, res) => {
      if (req.url.endsWith('/missing')) return json(res, 404, { error: { code: 'file_not_found', message: 'no such file', requestId: 'r-404' } });
      res.writeHead(200, { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="big.png"' });
      // Written in chunks: the client hands the body on as a stream, it does not wait for it.
      let sent = 0;
      const chunk = Buffer.alloc(64 * 1024, 7);
      const more = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    };
    const c = client();
    const res = await c.download('c', 'big.png', { agent: 'k' });
    assert.ok(res instanceof Response);
    assert.equal(res.bodyUsed, false);
    assert.equal(res.headers.get('content-type'), 'image/png');
    let total = 0;
    for await (const part of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (res.body))) total += part.length;
    assert.equal(total, size);
    assert.equal(seen[0].url, '/gate/conversations/c/files/big.png?agent=k');
    const e = await refusal(c.download('c', 'missing'));
    assert.deepEqual([e.code, e.status, e.requestId, e.message], ['file_not_found', 404, 'r-404', 'no such file']);
  });

  test('a custom fetch is used, called detached (a browser refuses its fetch as a method of another object)', async () => {
    /** @type {unknown[]} */
    const thisValues = [];
    const c = new WorkerClient({
      baseUrl: new URL(`${base}/gate`),
      token: TOKEN,
      fetch: /** @type {typeof fetch} */ (
        /** @this {unknown} */
        function (input, init) {
          thisValues.push(this);
          return fetch(input, init);
        }
      ),
    });
    await c.snapshot('c');
    assert.deepEqual(thisValues, [undefined]);
    assert.equal(seen[0].url, '/gate/conversations/c');
  });

  test('the global fetch is looked up at each request (a wrapper installed later is used)', async () => {
    const c = client();
    const real = globalThis.fetch;
    let wrapped = 0;
    globalThis.fetch = (input, init) => {
      wrapped += 1;
      return real(input, init);
    };
    try {
      await c.snapshot('c');
    } finally {
      globalThis.fetch = real;
    }
    assert.equal(wrapped, 1);
  });
});

describe('tokens', () => {
  test('a token is sent as a bearer token; getToken is asked before every request; neither: no Authorization', async () => {
    await client().snapshot('c');
    let n = 0;
    const rotating = createClient({ baseUrl: base, getToken: async () => `tok-${++n}` });
    await rotating.snapshot('c');
    await rotating.listFiles('c');
    await createClient({ baseUrl: base }).snapshot('c');
    await createClient({ baseUrl: base, getToken: () => null }).snapshot('c');
    assert.deepEqual(
      seen.map((s) => s.headers.authorization),
      [`Bearer ${TOKEN}`, 'Bearer tok-1', 'Bearer tok-2', undefined, undefined],
    );
  });

  test('a token that cannot be a header value is refused unsent, and never repeated in the message', async () => {
    const bad = `${TOKEN}\r\nx-evil: 1`;
    const e = await refusal(createClient({ baseUrl: base, token: bad }).snapshot('c'));
    assert.equal(e.code, 'invalid_token');
    assert.equal(e.status, 0);
    assert.ok(!e.message.includes(TOKEN) && !String(e.stack).includes(TOKEN));
    assert.equal(seen.length, 0);
  });

  test('an answer that echoes the token has it taken out of the message', async () => {
    answer = (req, res) => json(res, 401, { error: { code: 'invalid_token', message: `bad token: ${req.headers.authorization}` } });
    const e = await refusal(client().snapshot('c'));
    assert.equal(e.message, 'bad token: Bearer [token]');
  });
});

describe('errors', () => {
  test("the worker's JSON error: code, status, message and request id (the body's, else x-request-id)", async () => {
    answer = (req, res) => {
      if (req.url.includes('with-id')) return json(res, 413, { error: { code: 'too_many_calls', message: 'at most 64 calls', requestId: 'req-body' } }, { 'x-request-id': 'req-body' });
      return json(res, 403, { error: { code: 'cross_origin', message: 'live mode answers its own page only' } }, { 'x-request-id': 'req-header' });
    };
    const c = client();
    const a = await refusal(c.toolCalls('with-id', []));
    assert.deepEqual([a.code, a.status, a.message, a.requestId, a.retryAfterSeconds], ['too_many_calls', 413, 'at most 64 calls', 'req-body', undefined]);
    const b = await refusal(c.toolCalls('other', []));
    assert.deepEqual([b.code, b.status, b.requestId], ['cross_origin', 403, 'req-header']);
  });

  test('Retry-After as seconds or as an HTTP date is retryAfterSeconds', async () => {
    const at = new Date(Date.now() + 90_000).toUTCString();
    answer = (req, res) => {
      const retry = req.url.includes('date') ? at : req.url.includes('junk') ? 'soon' : '17';
      json(res, 429, { error: { code: 'rate_limited', message: 'slow down', requestId: 'r' } }, { 'retry-after': retry });
    };
    const c = client();
    const seconds = await refusal(c.snapshot('seconds'));
    assert.deepEqual([seconds.code, seconds.status, seconds.retryAfterSeconds], ['rate_limited', 429, 17]);
    const date = await refusal(c.snapshot('date'));
    assert.ok(date.retryAfterSeconds !== undefined && date.retryAfterSeconds > 80 && date.retryAfterSeconds <= 90, String(date.retryAfterSeconds));
    assert.equal((await refusal(c.snapshot('junk'))).retryAfterSeconds, undefined);
  });

  test('no retries: a 429 and a 503 are one request each', async () => {
    answer = (req, res) => json(res, req.url.includes('busy') ? 503 : 429, { error: { code: 'rate_limited', message: 'm' } }, { 'retry-after': '0' });
    const c = client();
    await refusal(c.toolCalls('limited', []));
    await refusal(c.toolCalls('busy', []));
    assert.equal(seen.length, 2);
  });

  test('an error answer that is not JSON (a proxy page) is unexpected_answer with its status; its text is not repeated', async () => {
    answer = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'edge-1' });
      res.end('<html>Bad gateway at internal-host-17</html>');
    };
    const e = await refusal(client().listFiles('c'));
    assert.deepEqual([e.code, e.status, e.requestId], ['unexpected_answer', 502, 'edge-1']);
    assert.match(e.message, /502 \(text\/html\)/);
    assert.doesNotMatch(e.message, /internal-host/);
  });

  test('JSON that is not an error of the worker\'s shape is unexpected_answer too', async () => {
    answer = (_req, res) => json(res, 500, { message: 'no code here' });
    assert.equal((await refusal(client().listFiles('c'))).code, 'unexpected_answer');
  });

  test('a 200 that is not JSON is unexpected_answer', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    };
    const e = await refusal(client().snapshot('c'));
    assert.deepEqual([e.code, e.status], ['unexpected_answer', 200]);
  });

  test('no answer at all is network (status 0), with the cause kept and no token in the message', async () => {
    const closed = createServer();
    await new Promise((done) => closed.listen(0, '127.0.0.1', () => done(undefined)));
    const port = /** @type {import('node:net').AddressInfo} */ (closed.address()).port;
    await new Promise((done) => closed.close(done));
    const e = await refusal(createClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN }).toolCalls('c', []));
    assert.deepEqual([e.code, e.status, e.requestId], ['network', 0, undefined]);
    assert.match(e.message, /POST \/conversations\/c\/tool-calls: the worker could not be reached .*ECONNREFUSED/);
    assert.ok(e.cause instanceof Error);
    assert.ok(!e.message.includes(TOKEN));
  });

  test('an answer that breaks off is network', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"partition":');
      setTimeout(() => res.destroy(), 20);
    };
    const e = await refusal(client().listFiles('c'));
    assert.deepEqual([e.code, e.status], ['network', 0]);
    assert.match(e.message, /broke off/);
  });

  test('an aborted request rejects with the signal\'s reason, not a WorkerError', async () => {
    answer = () => {}; // never answers
    const controller = new AbortController();
    const pending = client().toolCalls('c', [], { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(pending, (e) => !(e instanceof WorkerError) && /** @type {Error} */ (e).name === 'AbortError');
  });
});
