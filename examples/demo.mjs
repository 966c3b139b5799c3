#!/usr/bin/env node
// The main demo (scripts/run.sh): starts the local sandbox and the edge worker (workerd) on 127.0.0.1,
// replays the seed scenario through the worker over HTTP, and prints a timeline: each call, the gate's
// verdict, the session and files sent, what the sandbox answered, and the session after the fold.
//
//   node examples/demo.mjs [--dialect codeapi|librecodeinterpreter] [--once] [--port N] [--devtools-port N]
//
// It also serves the devtools page (www/serve.mjs) and prints `devtools page: <url>`; its live mode sends
// the page's calls to this worker and sandbox.
// The worker authenticates every caller: its secret is WORKER_AUTH_SECRET from the environment, or one
// made for this run; the demo prints a token for its user (`demo-user`), which the replay and the page's
// server send.
// --once: replay, then exit 0 when the scenario behaved as expected (1 otherwise). Without it the sandbox
// and the worker keep serving until Ctrl-C, and their URLs are printed.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startSandbox } from './sandbox/server.mjs';
import { WorkerError, createClient } from '../worker/client/client.js';
import { DECLARED, SEED_STEPS, judgeSeed } from '../worker/scenario.js';
import { ensureWorkerDeps, startWorker } from '../worker/serve.mjs';
import { startDevtoolsNear } from '../www/serve.mjs';

// token.mjs signs with jose from the worker's own dependencies.
ensureWorkerDeps();
const { mintToken, newSecret } = await import('../worker/token.mjs');
const DEMO_USER = 'demo-user';

const { values: opts } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'codeapi' },
    once: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
    'devtools-port': { type: 'string', default: '8790' },
  },
});
if (!['codeapi', 'librecodeinterpreter'].includes(opts.dialect)) {
  console.error(`--dialect must be codeapi or librecodeinterpreter, not ${opts.dialect}`);
  process.exit(2);
}

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (s) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const bold = paint(1);
const dim = paint(2);
const green = paint(32);
const red = paint(31);
const cyan = paint(36);
const short = (id) => (typeof id === 'string' && id.length > 10 ? `${id.slice(0, 8)}…` : String(id));
const clip = (s, n = 60) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
const yes = (b) => (b ? 'yes' : 'no');

function describeArgs(args) {
  return Object.entries(args)
    .map(([k, v]) => `${k}=${JSON.stringify(typeof v === 'string' ? clip(v.replace(/\n/g, '⏎'), 50) : v)}`)
    .join(' ');
}

/** What changed between two file lists of a partition. */
function changes(before, after) {
  const old = new Map((before ?? []).map((f) => [f.name, f]));
  const out = [];
  for (const f of after ?? []) {
    const prev = old.get(f.name);
    old.delete(f.name);
    const what = !prev ? green('added') : prev.id === f.id && prev.storage_session_id === f.storage_session_id ? dim('kept') : cyan('replaced');
    const kind = f.kind ? `${f.kind}${f.version !== undefined ? ` v${f.version}` : ''}` : 'user (by default)';
    out.push(`${f.name} [${what}] ${dim(`id ${short(f.id)} · storage ${short(f.storage_session_id)} · ${kind}`)}`);
  }
  for (const name of old.keys()) out.push(`${name} [${red('deleted')}]`);
  return out;
}

const secretFromEnv = process.env.WORKER_AUTH_SECRET;
const secret = secretFromEnv || newSecret();
const token = await mintToken({ secret, sub: DEMO_USER, ttlSeconds: 12 * 3600 });
// The sandbox runs code on this machine: its keys are made for this run and die with it. codeapi is run
// with its production auth (a token the worker mints per request, signed with this run's key pair);
// LibreCodeInterpreter with this run's API key.
const sandboxKey = generateKeyPairSync('ed25519');
const lciKey = randomBytes(24).toString('base64url');
const sb = await startSandbox({
  port: 0,
  log: () => {},
  apiKey: lciKey,
  codeapiJwt: { publicKeyPem: sandboxKey.publicKey.export({ type: 'spki', format: 'pem' }).toString(), kid: 'demo' },
});
const base = opts.dialect === 'codeapi' ? sb.codeapiUrl : sb.lciUrl;
const sandboxAuth =
  opts.dialect === 'codeapi'
    ? { SANDBOX_AUTH: 'codeapi-jwt', SANDBOX_JWT_KID: 'demo', SANDBOX_JWT_PRIVATE_KEY: sandboxKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }
    : { SANDBOX_CREDENTIAL: lciKey };
const w = await startWorker({
  port: opts.port === '0' ? undefined : Number(opts.port),
  env: {
    WORKER_AUTH_SECRET: secret,
    SANDBOX_URL: base,
    SANDBOX_DIALECT: opts.dialect,
    ...sandboxAuth,
    GATE_CONFIG: JSON.stringify(DECLARED),
  },
});
const devtoolsPort = Number(opts['devtools-port']);
if (!Number.isInteger(devtoolsPort) || devtoolsPort < 0 || devtoolsPort > 65535) {
  console.error(`--devtools-port must be a port number (0-65535), not ${opts['devtools-port']}`);
  await w.stop();
  await sb.close();
  process.exit(2);
}
const page = await startDevtoolsNear(devtoolsPort, w.url, token);
const stop = async () => {
  await page.close();
  await w.stop();
  await sb.close();
};

console.log(bold(`code-session-gate: the seed scenario through the edge worker (${opts.dialect})`));
console.log(dim(`sandbox ${base} · worker ${w.url} (workerd) · declared session tools: ${DECLARED.codeSessionToolNames.join(', ')}`));
console.log(`devtools page: ${page.url}`);
console.log(dim(`worker secret: ${secretFromEnv ? 'WORKER_AUTH_SECRET from the environment' : 'made for this run (set WORKER_AUTH_SECRET to choose it)'}`));
console.log(`token for ${DEMO_USER} (12 h): ${token}`);
const conversation = `demo-${Date.now().toString(36)}`;
// The worker's typed client (worker/client), as a host would call the worker.
const worker = createClient({ baseUrl: w.url, token });
const outcomes = [];
let previous = [];
try {
  for (const [i, step] of SEED_STEPS.entries()) {
    const answer = await worker.toolCalls(conversation, [step]);
    const r = answer.results[0];
    outcomes.push(r);
    const v = r.verdict;
    console.log(`\n${bold(`── ${i + 1}. ${step.name}`)} ${dim(describeArgs(step.args))}`);
    console.log(`   gate     session tool: ${yes(v.participates)} · gets the session: ${yes(v.eventContext)} · its answer moves the session: ${yes(v.eventFold)} · runtime hint: ${yes(v.eventRuntimeHint)}`);
    if (r.sent) {
      // The refs a batch sent are listed once per request (`answer.sent`), the count per call.
      const files = r.sent.files ? answer.sent.files.map((f) => `${f.name} (${f.kind}${f.version !== undefined ? ` v${f.version}` : ''}, storage ${short(f.storage_session_id)})`).join(', ') : '(none)';
      const session = r.sent.session_id
        ? short(r.sent.session_id)
        : opts.dialect === 'codeapi'
          ? dim('(codeapi mints a fresh one: the files carry the session)')
          : '(none)';
      console.log(`   sent     session_id: ${session} · hint: ${r.sent.runtime_session_hint ?? '(none)'} · files: ${files}`);
      if (r.sent.droppedFields.length) console.log(`            dropped from the model's args: ${r.sent.droppedFields.join(', ')}`);
      for (const n of answer.sent.refs) console.log(`            ref ${n.name}: ${n.action} (${n.reason})`);
    }
    if (r.output) {
      const exit = r.output.exitCode ?? 0;
      console.log(`   sandbox  exit ${exit === 0 ? green(exit) : red(exit)}`);
      for (const line of r.output.stdout.trimEnd().split('\n')) if (line) console.log(`            ${line}`);
      for (const line of r.output.stderr.trimEnd().split('\n')) if (line) console.log(`            ${red(line)}`);
    }
    if (r.error) console.log(`   sandbox  ${red(`${r.error.code}: ${r.error.message}`)}`);
    const files = answer.session?.files ?? [];
    console.log(`   session  ${answer.partition}: exec ${short(answer.session?.session_id ?? '(none)')} · persisted: ${yes(answer.persisted)}`);
    for (const line of changes(previous, files)) console.log(`            ${line}`);
    previous = files;
  }
} catch (e) {
  const why = e instanceof WorkerError ? `${e.code}${e.status ? ` (${e.status})` : ''}: ${e.message}${e.requestId ? ` (request ${e.requestId})` : ''}` : e.message;
  console.error(red(`\nthe replay failed: ${why}`));
  await stop();
  process.exit(1);
}

const judged = judgeSeed(outcomes);
const ok = Object.values(judged).every(Boolean);
console.log(`\n${ok ? green('✔ as expected') : red('✘ not as expected')}: mandelbrot.py ${judged.listed ? 'listed' : 'NOT listed'} by bash_tool, the edited file ${judged.ranEdited ? 'ran' : 'did NOT run'}`);

if (opts.once) {
  // The page is served too: its document, the package's module and the worker's client (live mode) answer.
  const served = await Promise.all(['', 'app.js', 'pkg/code_session_gate_bg.wasm', 'worker-client.js'].map((p) => fetch(new URL(p, page.url)).then((r) => r.status)));
  const pageOk = served.every((s) => s === 200);
  if (!pageOk) console.log(red(`✘ the devtools page is not served (${served.join(', ')})`));
  await stop();
  process.exit(ok && pageOk ? 0 : 1);
}
console.log(`\nserving until Ctrl-C:
  devtools ${page.url}   (open it in a browser; "send to the local worker" replays through the worker below)
  worker   ${w.url}/conversations/<id>/tool-calls   (POST { calls: [{ id, name, args }], agent? })
           ${w.url}/conversations/${conversation}              (GET: this conversation's snapshot)
           ${w.url}/conversations/<id>/files[/<name>]        (GET: list or download; PUT <name>: upload)
           every request with  Authorization: Bearer <the token above>   (worker/README.md)
  sandbox  ${sb.codeapiUrl}   (codeapi)
           ${sb.lciUrl}       (librecodeinterpreter)`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await stop();
    process.exit(0);
  });
}
