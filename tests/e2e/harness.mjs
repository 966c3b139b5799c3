// Shared by the end-to-end tests: the sandbox (in-process), workers in workerd, and small HTTP helpers.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { after, before } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../examples/sandbox/server.mjs';
import { ensureWorkerDeps, startWorker } from '../../worker/serve.mjs';

// worker/token.mjs imports jose, and the contract check ajv, from the worker's own node_modules:
// install them first.
ensureWorkerDeps();
const { mintToken } = await import('../../worker/token.mjs');
const { checkAnswers } = await import('./contract.mjs');

export const DIALECTS = ['codeapi', 'librecodeinterpreter'];
/** The sandbox's LibreCodeInterpreter key, and the codeapi user (its Bearer token is the user). */
export const LCI_KEY = 'test-key';
export const USER = 'user-e2e';
/** The worker's WORKER_AUTH_SECRET in the tests: 39 bytes of key, written as base64url. */
export const SECRET = Buffer.from('e2e-secret-of-at-least-thirty-two-bytes').toString('base64url');
/** How long a worker waits for the sandbox (the timeout test makes the sandbox slower than this). */
export const DEADLINE_MS = 2500;

/** Starts the sandbox with a short keep-alive (the LCI quirk shows within a test's time). */
export async function sandbox() {
  return startSandbox({ keepaliveMs: 300, log: () => {} });
}

/** The test file's sandbox, `box.sb`: started before its tests, closed after them. */
export function useSandbox() {
  const box = /** @type {{ sb: Awaited<ReturnType<typeof sandbox>> }} */ ({});
  before(async () => {
    box.sb = await sandbox();
  });
  after(async () => {
    await box.sb?.close();
  });
  return box;
}

/** The base URL of `dialect` on sandbox `sb`. */
export const baseOf = (sb, dialect) => (dialect === 'codeapi' ? sb.codeapiUrl : sb.lciUrl);

/**
 * A worker in workerd forwarding to `dialect` with gate configuration `config`.
 * @returns {Promise<Awaited<ReturnType<typeof startWorker>>>}
 */
export async function worker(sb, dialect, config, stateDir, env = {}) {
  const w = await startWorker({
    stateDir,
    env: {
      WORKER_AUTH_SECRET: SECRET,
      SANDBOX_URL: baseOf(sb, dialect),
      SANDBOX_DIALECT: dialect,
      SANDBOX_CREDENTIAL: dialect === 'codeapi' ? USER : LCI_KEY,
      SANDBOX_TIMEOUT_MS: '20000',
      SANDBOX_DEADLINE_MS: String(DEADLINE_MS),
      GATE_CONFIG: JSON.stringify(config),
      ...env,
    },
  });
  // Every answer of the worker from here on is held to its OpenAPI document (tests/e2e/contract.mjs).
  checkAnswers(w.url);
  return w;
}

const tokens = new Map();
/** A valid token for `user` (one per user and scope, for the tests' hour); `scope`: a host's token. */
export async function tokenFor(user = USER, scope = undefined) {
  const key = JSON.stringify([user, scope]);
  if (!tokens.has(key)) tokens.set(key, await mintToken({ secret: SECRET, sub: user, scope }));
  return tokens.get(key);
}

/** The scope of a host's token, which primes skill and agent refs. */
export const PRIME_SCOPE = 'files:prime';

/** Another token: `mintToken`'s options with the tests' secret unless given. */
export const forge = (options) => mintToken({ secret: SECRET, ...options });

/** fetch on the worker as `user` (a valid token), or with `init.headers` as given when `user` is null. */
export async function api(w, path, init = {}, user = USER) {
  const auth = user === null ? {} : { authorization: `Bearer ${await tokenFor(user)}` };
  return fetch(`${w.url}${path}`, { ...init, headers: { ...auth, ...init.headers } });
}

/** A fresh directory, removed by `cleanup()`. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** POSTs tool calls; returns the parsed answer (and fails on a non-200). */
export async function call(w, conversation, calls, agent, user = USER) {
  const res = await api(w, `/conversations/${conversation}/tool-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(agent === undefined ? { calls } : { calls, agent }),
  }, user);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST tool-calls: ${res.status} ${text}\n${w.output()}`);
  return JSON.parse(text);
}

/** One call; returns its outcome and the answer. */
export async function one(w, conversation, name, args, agent, user = USER) {
  const answer = await call(w, conversation, [{ id: `call_${name}_${Math.random().toString(36).slice(2, 8)}`, name, args }], agent, user);
  return { ...answer.results[0], answer };
}

/** The conversation's snapshot text as the worker has it. */
export async function snapshotText(w, conversation, user = USER) {
  const res = await api(w, `/conversations/${conversation}`, {}, user);
  if (res.status !== 200) throw new Error(`GET conversation: ${res.status} ${await res.text()}`);
  return res.text();
}

/** Primes uploaded files into a conversation (`host: true`: with a host's token, scope files:prime). */
export async function prime(w, conversation, files, agent, user = USER, { host = false } = {}) {
  const res = await fetch(`${w.url}/conversations/${conversation}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor(user, host ? PRIME_SCOPE : undefined)}` },
    body: JSON.stringify(agent === undefined ? { files } : { files, agent }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST files: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Queues a fault on the sandbox. */
export async function fault(sb, spec) {
  const res = await fetch(`${sb.url}/__control/faults`, { method: 'POST', body: JSON.stringify(spec) });
  if (res.status !== 200) throw new Error(`fault: ${res.status} ${await res.text()}`);
}

/** The sandbox's request counts per dialect (every route, faulted ones included). */
export async function sandboxRequests(sb) {
  const res = await fetch(`${sb.url}/__control/stats`);
  return (await res.json()).requests;
}

/** Every request the sandbox received, as `METHOD /path?query` exactly as sent (last 1,000). */
export async function sandboxPaths(sb) {
  const res = await fetch(`${sb.url}/__control/stats`);
  return (await res.json()).paths;
}

/** The exec requests the sandbox received (last 100). */
export async function execRequests(sb) {
  const res = await fetch(`${sb.url}/__control/stats`);
  return (await res.json()).execRequests;
}

/** Uploads `text` as a file to the sandbox in `dialect`, with codeapi identity `fields`. */
export async function upload(sb, dialect, filename, text, fields = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
  form.append('file', new Blob([text]), filename);
  const headers = dialect === 'codeapi' ? { authorization: `Bearer ${USER}` } : { 'x-api-key': LCI_KEY };
  const res = await fetch(`${baseOf(sb, dialect)}/upload`, { method: 'POST', body: form, headers });
  const out = await res.json();
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/** The names of the files a partition holds in a snapshot document. */
export function partitionNames(snapshot, key = 'execute_code') {
  const doc = typeof snapshot === 'string' ? JSON.parse(snapshot) : snapshot;
  const entry = (doc.partitions ?? []).find(([k]) => k === key)?.[1];
  return (entry?.files ?? []).map((f) => f.name).sort();
}

/** POSTs a prime as `user` (a host's token with `host`); returns status and body, whatever they are. */
export async function primeRaw(w, conversation, body, user = USER, host = false) {
  const res = await fetch(`${w.url}/conversations/${conversation}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor(user, host ? PRIME_SCOPE : undefined)}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/**
 * A local sandbox whose codeapi runs its production auth (a token per request, verified with this key
 * pair), and the worker settings that mint those tokens: codeapi then knows each user apart, as in
 * production. `token(sub)` mints one for any subject (a host uploading a skill file, say).
 */
export async function jwtSandbox() {
  const { generateKeyPairSync } = await import('node:crypto');
  const { mintSandboxToken } = await import('../../worker/src/sandbox-auth.js');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const sb = await startSandbox({ keepaliveMs: 300, log: () => {}, codeapiJwt: { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), kid: 'e2e' } });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const env = { SANDBOX_AUTH: 'codeapi-jwt', SANDBOX_CREDENTIAL: '', SANDBOX_JWT_KID: 'e2e', SANDBOX_JWT_PRIVATE_KEY: privateKeyPem };
  const token = (sub) => mintSandboxToken({ mode: 'codeapi-jwt', privateKeyPem, kid: 'e2e', ttlSeconds: 300, issuer: 'librechat', audience: 'codeapi' }, sub);
  return { sb, env, token };
}

/**
 * A host's upload straight to the sandbox, as LibreChat uploads a skill's or agent's files: codeapi with
 * the identity fields (`kind`, `id`, `version`) and `bearer` (a token, or in the default mode any user);
 * LibreCodeInterpreter into a new session. Answers the ref a host would prime (`kind`, `resource_id`, `version`).
 * @param {{ kind: 'skill' | 'agent', id: string, version?: number }} owner
 */
export async function hostUpload(sb, dialect, filename, text, owner, bearer = 'host-admin') {
  const form = new FormData();
  if (dialect === 'codeapi') {
    form.append('kind', owner.kind);
    form.append('id', owner.id);
    if (owner.version !== undefined) form.append('version', String(owner.version));
  }
  form.append('file', new Blob([text]), filename);
  const headers = dialect === 'codeapi' ? { authorization: `Bearer ${bearer}` } : { 'x-api-key': LCI_KEY };
  const res = await fetch(`${baseOf(sb, dialect)}/upload`, { method: 'POST', body: form, headers });
  const out = await res.json();
  if (res.status !== 200) throw new Error(`host upload: ${res.status} ${JSON.stringify(out)}`);
  const file = out.files[0];
  return {
    id: file.fileId,
    name: file.filename,
    storage_session_id: out.storage_session_id ?? out.session_id,
    kind: owner.kind,
    resource_id: owner.id,
    ...(owner.version !== undefined ? { version: owner.version } : {}),
  };
}

/** Every storage session of the local sandbox expires now, as both real servers' do after about a day. */
export async function expireAll(sb) {
  const res = await fetch(`${sb.url}/__control/expire`, { method: 'POST', body: '{}' });
  if (res.status !== 200) throw new Error(`expire: ${res.status} ${await res.text()}`);
}

/** The objects a worker kept in its local bucket (their metadata files on disk under `stateDir`). */
export const keptObjects = (stateDir) => readdirSync(join(stateDir, 'r2')).filter((f) => f.endsWith('.meta'));
