// The sandbox requests' bodies across the wasm boundary: one text with each body after a line break
// (split in JavaScript, what the package does) against wasm-bindgen's `Vec<String>` (an array of the
// head and each body), and a body as text encoded in JavaScript against `Vec<u8>` (its bytes as a
// `Uint8Array`). The same Rust work on both sides, only the crossing differs (each side builds the
// same head and bodies; the text side also copies the bodies after the head, as the package does).
// Build first: bash bench/crossing/build.sh. Run: node bench/crossing/framing.mjs
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { strictEqual } from 'node:assert';
import { measure, do_not_optimize } from 'mitata';

const pkgPath = new URL('pkg/crossing_bench.js', import.meta.url);
if (!existsSync(pkgPath)) throw new Error('bench/crossing/pkg missing: run bash bench/crossing/build.sh');
const wasm = createRequire(import.meta.url)(pkgPath.pathname);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const encoder = new TextEncoder();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const cases = [];
for (const [n, calls] of [[1, 1], [20, 1], [200, 1], [20, 8]]) {
  const text = () => {
    const parts = wasm.framed_text(n, calls).split('\n');
    return [JSON.parse(parts[0]), parts[1]];
  };
  const vec = () => {
    const parts = wasm.framed_parts(n, calls);
    return [JSON.parse(parts[0]), parts[1]];
  };
  strictEqual(text()[1], vec()[1]);
  cases.push({ what: `bodies: text + split vs Vec<String>, ${n} files, ${calls} call(s)`, a: text, b: vec });
}
for (const n of [1, 20, 200]) {
  const text = () => encoder.encode(wasm.body_text(n));
  const bytes = () => wasm.body_bytes(n);
  strictEqual(text().length, bytes().length);
  cases.push({ what: `body bytes: text + encode vs Vec<u8>, ${n} files`, a: text, b: bytes });
}

const p50s = cases.map(() => ({ a: [], b: [] }));
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, c] of cases.entries()) {
    for (const side of r % 2 ? ['b', 'a'] : ['a', 'b']) {
      const f = c[side];
      p50s[i][side].push((await measure(() => do_not_optimize(f()), { min_cpu_time: 300e6 })).p50);
    }
  }
}
console.log('| case | today µs | wasm-bindgen type µs | ratio |');
console.log('| --- | ---: | ---: | ---: |');
for (const [i, c] of cases.entries()) {
  const a = median(p50s[i].a) / 1e3;
  const b = median(p50s[i].b) / 1e3;
  console.log(`| ${c.what} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(2)} |`);
}
