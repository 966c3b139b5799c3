#!/usr/bin/env node
// Smoke test of a running codeapi (`scripts/sandboxes/codeapi.sh start`): real requests, with tokens
// from mint-codeapi-token.mjs, through exec, upload, exec with an input file, download, object
// metadata, and the auth refusals. Prints each exchange (trimmed) and a closing "N passed, N failed".
//
//   node scripts/sandboxes/smoke-codeapi.mjs [--endpoint FILE] [--quiet]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mintCodeapiToken } from './mint-codeapi-token.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    endpoint: { type: 'string', default: join(resolve(here, '..', '..'), '.cache', 'sandboxes', 'codeapi', 'endpoint.json') },
    quiet: { type: 'boolean', default: false },
  },
});
const ep = JSON.parse(readFileSync(values.endpoint, 'utf8'));
const base = ep.url;
// A fresh user per run: codeapi's rate limits are per user, and its file authorization too.
const sub = `smoke-${randomBytes(4).toString('hex')}`;
const token = (o = {}) => mintCodeapiToken({ sub, endpoint: values.endpoint, ...o });

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `\n     ${detail}` : ''}`);
}
const trim = (s, n = 400) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

async function call(method, path, { auth, json, form, headers = {} } = {}) {
  const h = { ...headers };
  if (auth !== null) h.authorization = `Bearer ${auth ?? (await token())}`;
  let body;
  if (json !== undefined) {
    h['content-type'] = 'application/json';
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    body = form;
  }
  const t0 = Date.now();
  const res = await fetch(`${base}${path}`, { method, headers: h, body });
  const text = await res.text();
  let data;
  try { data = JSON.parse(text); } catch { data = undefined; }
  if (!values.quiet) {
    const shown = json !== undefined ? ` ${trim(JSON.stringify(json), 300)}` : form !== undefined ? ' <multipart>' : '';
    console.log(`  > ${method} ${path}${shown}\n  < ${res.status} (${Date.now() - t0} ms) ${trim(text)}`);
  }
  return { status: res.status, headers: res.headers, text, data };
}

// 1. Plain executions.
{
  const r = await call('POST', '/exec', { json: { lang: 'py', code: 'print(1)' } });
  check('exec python print(1) -> 200, stdout "1\\n"', r.status === 200 && r.data?.stdout === '1\n' && typeof r.data?.session_id === 'string', r.text);
}
{
  const r = await call('POST', '/exec', { json: { lang: 'bash', code: 'echo "hi from $(basename "$SHELL" 2>/dev/null || echo bash)"; echo err >&2; exit 3' } });
  check('exec bash -> 200, stdout, stderr, code 3', r.status === 200 && r.data?.stdout.startsWith('hi from') && r.data?.stderr.includes('err') && r.data?.code === 3, r.text);
}

// 2. Upload: the identity fields come BEFORE the file part (codeapi reads them as the file streams).
const content = `alpha,beta\n${randomBytes(6).toString('hex')},2\n`;
let upload;
{
  const form = new FormData();
  form.append('kind', 'user');
  form.append('id', sub);
  form.append('file', new Blob([content], { type: 'text/csv' }), 'data.csv');
  const r = await call('POST', '/upload', { form });
  upload = r.data;
  check('upload -> 200 {message, storage_session_id, files:[{filename, fileId}]}',
    r.status === 200 && r.data?.message === 'success' && r.data?.files?.[0]?.fileId && r.data?.files?.[0]?.filename === 'data.csv', r.text);
}

// 3. An execution that reads the uploaded file (by its ref) and writes one.
let exec3;
if (upload?.files?.[0]) {
  const ref = { id: upload.files[0].fileId, resource_id: sub, storage_session_id: upload.storage_session_id, name: 'data.csv', kind: 'user' };
  const code = "data = open('data.csv').read()\nprint(data, end='')\nopen('out.txt', 'w').write(data.upper())\n";
  const r = await call('POST', '/exec', { json: { lang: 'py', code, files: [ref] } });
  exec3 = r.data;
  const out = r.data?.files?.find((f) => f.name === 'out.txt');
  check('exec with an input file -> reads it, lists the written out.txt', r.status === 200 && r.data?.stdout === content && out?.id, r.text);
}

// 4. Download the file the execution wrote, and read its metadata.
const out = exec3?.files?.find((f) => f.name === 'out.txt');
if (out) {
  const sid = out.storage_session_id ?? exec3.session_id;
  const r = await call('GET', `/download/${sid}/${out.id}?kind=user&id=${encodeURIComponent(sub)}`);
  check('download the written file -> 200, its bytes', r.status === 200 && r.text === content.toUpperCase(), r.text);
  const m = await call('GET', `/sessions/${sid}/objects/${out.id}?kind=user&id=${encodeURIComponent(sub)}`);
  check('GET /sessions/:session/objects/:file -> 200 metadata', m.status === 200 && typeof m.data === 'object', m.text);
  const up = await call('GET', `/sessions/${upload.storage_session_id}/objects/${upload.files[0].fileId}?kind=user&id=${encodeURIComponent(sub)}`);
  check('GET metadata of the uploaded file -> 200', up.status === 200, up.text);
  const other = await call('GET', `/download/${sid}/${out.id}?kind=user&id=someone-else`, {
    auth: await mintCodeapiToken({ sub: 'someone-else', endpoint: values.endpoint }),
  });
  check("another user's download -> 403", other.status === 403, other.text);
}

// 5. Auth refusals.
{
  const old = await call('POST', '/exec', { auth: await token({ ageSeconds: 400 }), json: { lang: 'py', code: 'print(1)' } });
  check('token older than 300 s -> 401', old.status === 401, old.text);
  const long = await call('POST', '/exec', { auth: await token({ ttlSeconds: 301 }), json: { lang: 'py', code: 'print(1)' } });
  check('token living 301 s -> 401', long.status === 401, long.text);
  const key = await call('POST', '/exec', { auth: null, headers: { 'x-api-key': 'anything' }, json: { lang: 'py', code: 'print(1)' } });
  check('x-api-key -> 401', key.status === 401, key.text);
  const none = await call('POST', '/exec', { auth: null, json: { lang: 'py', code: 'print(1)' } });
  check('no credentials -> 401', none.status === 401, none.text);
}

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
