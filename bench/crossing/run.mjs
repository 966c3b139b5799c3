// JSON text vs serde-wasm-bindgen across the wasm boundary, for the package's two hot paths.
// Build first: bash bench/crossing/build.sh. Run: node bench/crossing/run.mjs
//
// fold: JS results → typed Vec<NamedResult> in wasm.
//   JSON: JSON.stringify + TextEncoder.encodeInto into a reused Uint8Array, fold_json(&[u8])
//         (wasm-bindgen then copies the bytes into wasm memory), serde_json::from_str.
//   swb:  fold_swb(results), serde_wasm_bindgen::from_value on the JS object.
//   extra row: JSON passed as &str (wasm-bindgen encodeInto's straight into wasm memory).
// ctx: typed Context in wasm → JS objects.
//   JSON: ctx_json(n) (serde_json::to_string) + JSON.parse.
//   swb:  ctx_swb(n) (to_value, default Serializer) / ctx_swb_json_compatible(n).
//
// Each timing: mitata measure() p50 per call; ROUNDS rounds, interleaved, median of the p50s.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { deepStrictEqual, strictEqual } from 'node:assert';
import v8 from 'node:v8';
import vm from 'node:vm';
import { measure, do_not_optimize } from 'mitata';

const HERE = new URL('.', import.meta.url);
const pkgPath = new URL('pkg/crossing_bench.js', HERE);
if (!existsSync(pkgPath)) throw new Error('bench/crossing/pkg missing: run bash bench/crossing/build.sh');
const wasm = createRequire(import.meta.url)(pkgPath.pathname);

// A real gc() for mitata before each measurement, without node --expose-gc.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const SIZES = [1, 20, 200];
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const MEASURE = { gc, min_cpu_time: Number(process.env.MIN_CPU_MS ?? 400) * 1e6 };

/** The fold input: N inherited echoes + 5 new files in one bash_tool result. */
function makeResults(n) {
  const files = [];
  for (let i = 0; i < n; i++) {
    files.push({
      id: `file-${i}-abcdefghij`,
      name: `dir/data-${i}.csv`,
      storage_session_id: `storage-${i % 3}-abcdefgh`,
      inherited: true,
    });
  }
  for (let j = 0; j < 5; j++) files.push({ id: `new-${j}-abcdefghij`, name: `out-${j}.txt` });
  return [{ name: 'bash_tool', status: 'success', artifact: { session_id: 'exec-1', files } }];
}

const enc = new TextEncoder();
const buf = new Uint8Array(1 << 20);

/** One case: a row of the table, with the JSON and the swb function. */
const cases = [];
for (const n of SIZES) {
  const results = makeResults(n);
  const foldJson = () => {
    const { written } = enc.encodeInto(JSON.stringify(results), buf);
    return wasm.fold_json(buf.subarray(0, written));
  };
  const foldStr = () => wasm.fold_json_str(JSON.stringify(results));
  const foldSwb = () => wasm.fold_swb(results);
  // Same answer on every side (files count in the low 16 bits).
  strictEqual(foldJson() & 0xffff, n + 5);
  strictEqual(foldSwb(), foldJson());
  strictEqual(foldStr(), foldJson());
  cases.push({ path: 'fold', files: n, json: foldJson, swb: foldSwb });
  cases.push({ path: 'fold (JSON as &str)', files: n, json: foldStr, swb: foldSwb });

  const ctxJson = () => JSON.parse(wasm.ctx_json(n));
  const ctxSwb = () => wasm.ctx_swb(n);
  const ctxSwbJc = () => wasm.ctx_swb_json_compatible(n);
  const strip = ({ gen, ...rest }) => rest; // gen counts calls
  const want = strip(ctxJson());
  strictEqual(want.files.length, n);
  deepStrictEqual(strip(ctxSwb()), want);
  deepStrictEqual(strip(ctxSwbJc()), want);
  cases.push({ path: 'ctx (swb default)', files: n, json: ctxJson, swb: ctxSwb });
  cases.push({ path: 'ctx (swb json_compatible)', files: n, json: ctxJson, swb: ctxSwbJc });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Rounds interleave every case and side, so a slow patch of a shared machine hits all of them.
const p50s = cases.map(() => ({ json: [], swb: [] }));
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, c] of cases.entries()) {
    for (const side of r % 2 ? ['swb', 'json'] : ['json', 'swb']) {
      const f = c[side];
      const stats = await measure(() => do_not_optimize(f()), MEASURE);
      p50s[i][side].push(stats.p50);
    }
  }
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}

const rows = cases.map((c, i) => {
  const json = median(p50s[i].json) / 1e3;
  const swb = median(p50s[i].swb) / 1e3;
  return {
    path: c.path,
    files: c.files,
    json_us: +json.toFixed(2),
    swb_us: +swb.toFixed(2),
    swb_over_json: +(swb / json).toFixed(2),
    rounds_ns: { json: p50s[i].json.map(Math.round), swb: p50s[i].swb.map(Math.round) },
  };
});

const order = ['fold', 'fold (JSON as &str)', 'ctx (swb default)', 'ctx (swb json_compatible)'];
rows.sort((a, b) => order.indexOf(a.path) - order.indexOf(b.path) || a.files - b.files);

const lines = [
  '| path | files | JSON text µs | serde-wasm-bindgen µs | swb/JSON ratio |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.path} | ${r.files} | ${r.json_us.toFixed(2)} | ${r.swb_us.toFixed(2)} | ${r.swb_over_json.toFixed(2)} |`),
];
console.log(lines.join('\n'));

const sizesPath = new URL('pkg/sizes.json', HERE);
const sizes = existsSync(sizesPath) ? JSON.parse(readFileSync(sizesPath, 'utf8')) : null;
if (sizes) {
  console.log('\n.wasm after wasm-opt -Os (bytes, gzip -9):');
  for (const [k, v] of Object.entries(sizes)) console.log(`  ${k}: ${v.wasm_bytes} (${v.wasm_gzip_bytes})`);
}

writeFileSync(new URL('results.json', HERE), JSON.stringify({
  node: process.version,
  date: new Date().toISOString(),
  unit: 'µs per call: mitata p50, median over rounds',
  rounds: ROUNDS,
  mitata: { min_cpu_time_ms: MEASURE.min_cpu_time / 1e6, gc: true },
  notes: {
    files: 'fold: N inherited echoes + 5 new files (N + 5 in total); ctx: N files',
    fold_json: 'JSON.stringify + encodeInto a reused Uint8Array + fold_json(&[u8])',
    fold_json_str: 'fold_json_str(JSON.stringify(x)): wasm-bindgen encodes the string into wasm memory',
    ctx_json: 'JSON.parse(ctx_json(n))',
  },
  rows,
  wasm_sizes: sizes,
}, null, 2) + '\n');
