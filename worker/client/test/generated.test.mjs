// The client's types cannot drift from the worker's contract: the committed openapi.d.ts and client.d.ts
// must be what generate.mjs writes now from ../src/openapi.js and client.js. The generator's tools are
// this package's dev dependencies, installed here as its lockfile pins them when they are missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const HERE = dirname(dirname(fileURLToPath(import.meta.url)));
if (!['openapi-typescript', 'typescript'].every((d) => existsSync(join(HERE, 'node_modules', d, 'package.json')))) {
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
}
const { clientTypes, generated, openApiTypes } = await import('../generate.mjs');
const { ROUTES, SCHEMAS } = await import('../../src/contract.js');

test('openapi.d.ts and client.d.ts are what generate.mjs writes now (run node generate.mjs and commit)', async () => {
  for (const [file, text] of Object.entries(await generated())) {
    assert.ok(readFileSync(join(HERE, file), 'utf8') === text, `${file} is not what generate.mjs writes from the contract now`);
  }
});

test("openapi.d.ts has every route's operation and every schema of the contract", async () => {
  const text = await openApiTypes();
  for (const r of ROUTES) {
    const operation = r.action.replace(/-(\w)/g, (/** @type {string} */ _, /** @type {string} */ c) => c.toUpperCase());
    assert.match(text, new RegExp(`${r.method.toLowerCase()}: operations\\["${operation}"\\]`), `${r.method} ${r.path}`);
  }
  for (const name of Object.keys(SCHEMAS)) assert.match(text, new RegExp(`\\b${name}: `), name);
});

test('client.d.ts follows openapi.d.ts: a contract that lost a shape no longer types the client', async () => {
  const openapi = await openApiTypes();
  await assert.rejects(clientTypes(openapi.replace(/\bDeleteAnswer: /, 'Removed: ')), /DeleteAnswer/);
});
