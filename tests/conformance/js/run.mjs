// The wasm half of the conformance runner: runs every vector of the given files through the built
// package (pkg/, Node entry) under each profile the vector names, prints each failure with its
// expected and actual value, and ends with `wasm: N passed, N failed`. Exit status 1 on any failure.
//
// Each vector op is answered by the gate side of `check-sdk` (packages/check-sdk/gate.js), the code the package
// ships to compare the gate with an SDK release: one mapping of the vector format onto the JavaScript API.
//
//   node tests/conformance/js/run.mjs <vectors.json>...

import { readFileSync } from 'node:fs';
import * as pkg from '../../../pkg/node.js';
import { diff, show, wireExpect, wireView } from '../../../packages/check-sdk/compare.js';
import { OPS } from '../../../packages/check-sdk/gate.js';

/**
 * Where `actual` differs from the vector's `expect`, one line each (`exec_wire` compares only what its
 * `expect` names).
 * @param {string} op @param {unknown} expect @param {unknown} actual
 */
function differences(op, expect, actual) {
  const found = op === 'exec_wire' ? diff(wireExpect(expect), wireView(expect, actual)) : diff(expect, actual);
  return found.map((d) => `${d.path}: expected ${show(d.a)}, actual ${show(d.b)}`);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: run.mjs <vectors.json>...');
  process.exit(2);
}

let passed = 0;
let failed = 0;
for (const file of files) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const vectors = Array.isArray(doc) ? doc : doc.vectors;
  for (const v of vectors) {
    for (const profile of v.profiles ?? ['3.6', '3.9']) {
      const tag = `[wasm ${profile}] ${v.name}`;
      const op = Object.hasOwn(OPS, v.op) ? OPS[v.op] : undefined;
      if (op === undefined) {
        failed++;
        console.log(`FAIL ${tag}: unknown op ${JSON.stringify(v.op)}`);
        continue;
      }
      let actual;
      try {
        actual = op(pkg, structuredClone(v.input), profile);
      } catch (e) {
        failed++;
        console.log(`FAIL ${tag}: ${e?.name}: ${e?.message}${e?.code ? ` (${e.code} at ${e.path})` : ''}`);
        console.log(`    expected: ${show(v.expect)}`);
        continue;
      }
      const lines = differences(v.op, v.expect, actual);
      if (lines.length === 0) {
        passed++;
      } else {
        failed++;
        console.log(`FAIL ${tag}`);
        for (const l of lines) console.log(`    ${l}`);
        console.log(`    expected: ${show(v.expect)}\n    actual:   ${show(actual)}`);
      }
    }
  }
}
console.log(`wasm: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
