// The worker as a newcomer gets it (issue 50): a copy of its folder alone, the package installed from its
// tarball as from a registry, then only what the worker's README says — a secret and a token from
// token.mjs, the settings in .dev.vars and wrangler.toml, `npm start` (serve.mjs), `npm run check`
// (wrangler deploy --dry-run) — and a tool call through it against the local sandbox. Nothing of the
// repository is reached from the copy.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT } from '../js/consumer.mjs';
import { LCI_KEY, sandbox, tempDir } from './harness.mjs';

const WORKER = resolve(ROOT, 'worker');
/** What a copy of the folder leaves out: what `npm ci` and the runs make. */
const NOT_COPIED = new Set(['node_modules', '.wrangler', 'dist', '.dev.vars']);

/** Runs a command; resolves with its exit code and output. */
function run(cmd, args, options = {}) {
  return new Promise((done) => {
    execFile(cmd, args, { timeout: 300_000, maxBuffer: 16 * 1024 * 1024, ...options }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let sb;
let home;
let copy;
before(async () => {
  sb = await sandbox();
  home = tempDir('csg-newcomer-');
  copy = join(home.dir, 'worker');
  cpSync(WORKER, copy, { recursive: true, filter: (src) => !NOT_COPIED.has(src.split('/').pop() ?? '') });
  // The package as a registry would give it: its tarball.
  const packed = await run('npm', ['pack', join(ROOT, 'pkg'), '--pack-destination', home.dir, '--silent']);
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = join(home.dir, packed.stdout.trim().split('\n').pop() ?? '');
  const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
  manifest.dependencies['code-session-gate'] = `file:${tarball}`;
  writeFileSync(join(copy, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: copy });
  assert.equal(installed.code, 0, installed.stderr);
});
after(async () => {
  await sb?.close();
  home?.cleanup();
});

test('from a copy of the folder: a secret, a token, npm start with .dev.vars and [vars], a tool call, npm run check', async () => {
  const node = (args, options = {}) => run(process.execPath, args, { cwd: copy, ...options });
  const secret = (await node(['token.mjs', '--new-secret'])).stdout.trim();
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
  writeFileSync(join(copy, '.dev.vars'), `WORKER_AUTH_SECRET=${secret}\nSANDBOX_CREDENTIAL=${LCI_KEY}\n`);
  const token = (await node(['token.mjs', 'newcomer'], { env: { ...process.env, WORKER_AUTH_SECRET: secret } })).stdout.trim();
  assert.equal(token.split('.').length, 3);
  // wrangler.toml's [vars] are the deploy's; a local run points them at the local sandbox.
  const serve = spawn('npm', ['start', '--', '--port', '0', '--var', `SANDBOX_URL=${sb.lciUrl}`, '--var', 'SANDBOX_DIALECT=librecodeinterpreter', '--var', 'SANDBOX_AUTH=static', '--var', 'AUTH_ISSUER=', '--var', 'AUTH_AUDIENCE='], { cwd: copy, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  serve.stdout.on('data', (d) => (output += d));
  serve.stderr.on('data', (d) => (output += d));
  try {
    let url;
    for (let i = 0; i < 300 && url === undefined; i++) {
      url = /"listening":"([^"]+)"/.exec(output)?.[1];
      if (url === undefined) await sleep(100);
    }
    assert.ok(url, `npm start announces its URL:\n${output}`);
    const res = await fetch(`${url}/conversations/first/tool-calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ calls: [{ id: 'c1', name: 'create_file', args: { file_path: 'hello.txt', content: 'hello\n' } }, { id: 'c2', name: 'bash_tool', args: { command: 'true' } }] }),
    });
    const answer = await res.json();
    assert.equal(res.status, 200, JSON.stringify(answer));
    assert.deepEqual(answer.results.map((r) => r.status), ['success', 'success']);
    const cat = await fetch(`${url}/conversations/first/tool-calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ calls: [{ id: 'c3', name: 'bash_tool', args: { command: 'cat /mnt/data/hello.txt' } }] }),
    });
    assert.equal((await cat.json()).results[0].output.stdout, 'hello\n');
    assert.ok(readdirSync(join(copy, '.wrangler', 'serve-state')).length > 0, 'its state under .wrangler/');
  } finally {
    process.kill(-(/** @type {number} */ (serve.pid)), 'SIGTERM');
  }
  const checked = await run('npm', ['run', 'check'], { cwd: copy, env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' } });
  assert.equal(checked.code, 0, `${checked.stderr}\n${checked.stdout}`);
  assert.match(`${checked.stdout}${checked.stderr}`, /--dry-run: exiting now/);
});
