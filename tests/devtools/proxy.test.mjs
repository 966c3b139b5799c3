// The devtools page's live proxy lends its token to what it forwards, and the local sandbox runs what it
// is sent: it must answer its own page only (issue 30). A stand-in worker records what reaches it; the
// attacks are a cross-site form POST, a `text/plain` POST from another origin, DNS rebinding (a foreign
// `Host`), routes live mode never uses, and bodies that are not JSON.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest, createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { startDevtools } from '../../www/serve.mjs';

/** A request with every header as given (fetch would set Host and Origin itself). */
function raw(port, { method = 'GET', path = '/', headers = {}, body } = {}) {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => done({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

let worker;
/** @type {{ method: string, url: string, authorization?: string }[]} */
const reached = [];
let page;
let port;

before(async () => {
  worker = createServer((req, res) => {
    reached.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/conversations/busy/')) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7', 'x-request-id': 'req-busy', 'set-cookie': 'a=b' });
        res.end('{"error":{"code":"rate_limited","message":"slow down","requestId":"req-busy"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"results":[]}');
    });
  });
  await new Promise((r) => worker.listen(0, '127.0.0.1', r));
  page = await startDevtools({ port: 0, worker: `http://127.0.0.1:${worker.address().port}`, token: 'demo-token' });
  port = Number(new URL(page.url).port);
});

after(async () => {
  await page?.close();
  await new Promise((r) => worker?.close(r));
});

const own = () => ({ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` });
const toolCalls = '/live/conversations/c1/tool-calls';
const json = '{"calls":[{"id":"x","name":"bash_tool","args":{"command":"id"}}]}';

test('the page\'s own JSON POST is forwarded, with the token', async () => {
  reached.length = 0;
  const r = await raw(port, { method: 'POST', path: toolCalls, headers: { ...own(), 'content-type': 'application/json' }, body: json });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(reached, [{ method: 'POST', url: '/conversations/c1/tool-calls', authorization: 'Bearer demo-token' }]);
});

test('a refusal comes back as the worker gave it: status, Retry-After and the request id, nothing else', async () => {
  const r = await raw(port, { method: 'POST', path: '/live/conversations/busy/tool-calls', headers: { ...own(), 'content-type': 'application/json' }, body: json });
  assert.equal(r.status, 429, r.text);
  assert.equal(r.headers['retry-after'], '7');
  assert.equal(r.headers['x-request-id'], 'req-busy');
  assert.equal(r.headers['set-cookie'], undefined, 'the worker\'s other headers stay behind');
  assert.equal(JSON.parse(r.text).error.code, 'rate_limited');
});

test('what another site or a rebinding page sends never reaches the worker', async () => {
  reached.length = 0;
  const attacks = [
    ['a cross-site text/plain POST', { method: 'POST', path: toolCalls, headers: { host: own().host, origin: 'https://evil.example', 'content-type': 'text/plain' }, body: json }, 403],
    ['a cross-site JSON POST (no preflight would pass, but say it did)', { method: 'POST', path: toolCalls, headers: { host: own().host, origin: 'https://evil.example', 'content-type': 'application/json' }, body: json }, 403],
    ['a form POST with Origin null', { method: 'POST', path: toolCalls, headers: { host: own().host, origin: 'null', 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' }, 403],
    ['a cross-site request without Origin', { method: 'POST', path: toolCalls, headers: { host: own().host, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: json }, 403],
    ['no Origin and no Sec-Fetch-Site', { method: 'POST', path: toolCalls, headers: { host: own().host, 'content-type': 'application/json' }, body: json }, 403],
    ['DNS rebinding: a foreign Host', { method: 'POST', path: toolCalls, headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'content-type': 'application/json' }, body: json }, 421],
    ['DNS rebinding: reading a page', { path: '/', headers: { host: `evil.example:${port}` } }, 421],
    ['our origin, another port', { method: 'POST', path: toolCalls, headers: { host: own().host, origin: 'http://127.0.0.1:1', 'content-type': 'application/json' }, body: json }, 403],
    ['our origin, text/plain', { method: 'POST', path: toolCalls, headers: { ...own(), 'content-type': 'text/plain' }, body: json }, 403],
    ['our origin, a route live mode never uses (GET snapshot)', { path: '/live/conversations/c1', headers: { host: own().host, 'sec-fetch-site': 'same-origin' } }, 403],
    ['our origin, a prime', { method: 'POST', path: '/live/conversations/c1/files', headers: { ...own(), 'content-type': 'application/json' }, body: '{"files":[]}' }, 403],
    ['our origin, an upload', { method: 'PUT', path: '/live/conversations/c1/files/a.txt', headers: { ...own(), 'content-type': 'application/json' }, body: '{}' }, 403],
    ['our origin, a path that climbs', { method: 'POST', path: '/live/conversations/c1/../c2/tool-calls', headers: { ...own(), 'content-type': 'application/json' }, body: json }, 403],
  ];
  for (const [what, request, status] of attacks) {
    const r = await raw(port, request);
    assert.equal(r.status, status, `${what}: ${r.text}`);
    assert.equal(typeof JSON.parse(r.text).error.code, 'string', what);
  }
  assert.deepEqual(reached, [], 'nothing was forwarded');
});

test('the page itself still loads for its own Host, by name or address', async () => {
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
    const r = await raw(port, { path: '/live/status', headers: { host } });
    assert.equal(r.status, 200, host);
    assert.equal(JSON.parse(r.text).live, true);
  }
});

test("the worker's client is served as one file (live mode imports it); the rest of its folder is not", async () => {
  const r = await raw(port, { path: '/worker-client.js', headers: { host: own().host } });
  assert.equal(r.status, 200);
  assert.equal(r.text, readFileSync(new URL('../../worker/client/client.js', import.meta.url), 'utf8'));
  for (const path of ['/worker-client.js/', '/client.js', '/package.json', '/client/package.json', '/worker-client/package.json']) {
    assert.equal((await raw(port, { path, headers: { host: own().host } })).status, 404, path);
  }
});
