#!/usr/bin/env node
// Prints a codeapi JWT as LibreChat mints them (codeapi's production auth): EdDSA with the key and kid
// that `scripts/sandboxes/codeapi.sh start` wrote into .cache/sandboxes/codeapi/endpoint.json.
//
//   node scripts/sandboxes/mint-codeapi-token.mjs [sub] [--ttl S] [--age S] [--endpoint FILE] [--claims JSON]
//
//   sub        the user id (claim `sub`; default "e2e-user")
//   --ttl S    exp - iat (default 300, codeapi's maximum; more is refused as ttl_too_long)
//   --age S    backdate iat/nbf by S seconds (with --age 400 the token is older than 300 s: expired)
//   --claims   JSON merged over the claims (a key set to null is dropped), to forge bad tokens
//
// Also an ES module: `import { mintCodeapiToken } from './mint-codeapi-token.mjs'`.
import { randomUUID, createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const defaultEndpoint = join(root, '.cache', 'sandboxes', 'codeapi', 'endpoint.json');

// jose from wherever it is installed: the repo, the worker's own node_modules, or the copy that
// `codeapi.sh setup` puts in .cache (machines where the worker's dependencies are not installed).
async function loadJose() {
  const bases = [here, join(root, 'worker'), join(root, '.cache', 'sandboxes', 'codeapi', 'node')];
  for (const base of bases) {
    try {
      const path = createRequire(join(base, 'noop.js')).resolve('jose');
      return await import(pathToFileURL(path).href);
    } catch {
      // not there: try the next place
    }
  }
  throw new Error('jose not found: run scripts/sandboxes/codeapi.sh setup (or npm ci in worker)');
}

/**
 * A signed codeapi token.
 * @param {{ sub?: string, ttlSeconds?: number, ageSeconds?: number, endpoint?: string,
 *   claims?: Record<string, unknown> }} [o]
 * @returns {Promise<string>}
 */
export async function mintCodeapiToken({ sub = 'e2e-user', ttlSeconds = 300, ageSeconds = 0, endpoint = defaultEndpoint, claims = {} } = {}) {
  if (!existsSync(endpoint)) throw new Error(`${endpoint} not found: run scripts/sandboxes/codeapi.sh start`);
  const ep = JSON.parse(readFileSync(endpoint, 'utf8'));
  const { SignJWT, importPKCS8 } = await loadJose();
  const key = await importPKCS8(readFileSync(ep.privateKeyPem, 'utf8'), 'EdDSA');
  const iat = Math.floor(Date.now() / 1000) - ageSeconds;
  const payload = {
    iss: ep.issuer,
    aud: ep.audience,
    sub,
    jti: randomUUID(),
    iat,
    nbf: iat,
    exp: iat + ttlSeconds,
    principal_source: 'librechat_jwt',
    // LibreChat hashes its auth context; codeapi only requires a non-empty string. Stable per user.
    auth_context_hash: createHash('sha256').update(`code-session-gate-e2e:${sub}`).digest('hex'),
  };
  for (const [k, v] of Object.entries(claims)) {
    if (v === null) delete payload[k];
    else payload[k] = v;
  }
  return new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: ep.kid }).sign(key);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ttl: { type: 'string', default: '300' },
      age: { type: 'string', default: '0' },
      endpoint: { type: 'string', default: defaultEndpoint },
      claims: { type: 'string', default: '{}' },
    },
  });
  const token = await mintCodeapiToken({
    sub: positionals[0] ?? 'e2e-user',
    ttlSeconds: Number(values.ttl),
    ageSeconds: Number(values.age),
    endpoint: values.endpoint,
    claims: JSON.parse(values.claims),
  });
  console.log(token);
}
