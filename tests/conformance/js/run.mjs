// The wasm half of the conformance runner: runs every vector of the given files through the built
// package (pkg/, Node entry) under each profile the vector names, prints each failure with its
// expected and actual value, and ends with `wasm: N passed, N failed`. Exit status 1 on any failure.
//
//   node tests/conformance/js/run.mjs <vectors.json>...

import { readFileSync } from 'node:fs';
import * as pkg from '../../../pkg/node.js';
import * as sessionOps from './session_ops.mjs';
import * as planRequest from './plan_request.mjs';
import * as execWire from './exec_wire.mjs';
import { diff, show } from './support.mjs';

const OPS = {
  gate: sessionOps.gate,
  eager_excluded: sessionOps.eager_excluded,
  narrow: sessionOps.narrow,
  context_for_call: sessionOps.context_for_call,
  update_session: sessionOps.update_session,
  fold_results: sessionOps.fold_results,
  seed: sessionOps.seed,
  plan_request: planRequest.run,
  exec_wire: execWire.run,
};

const compare = (op, expect, actual) => (op === 'exec_wire' ? execWire.compare(expect, actual) : diff(expect, actual));

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
      const op = OPS[v.op];
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
      const lines = compare(v.op, v.expect, actual);
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
