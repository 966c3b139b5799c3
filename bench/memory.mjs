// Memory of one long-lived gate: runs `--turns N` turns (context, fold of one artifact, context) on
// one Gate whose partition stays bounded (MEMORY_FILES seeded files + 5 fixed-name outputs), and
// reports the wasm linear memory (the module's `memory`, returned by the package's `initSync()` once
// the Node entry has instantiated it) after `--warmup` turns and at the end, plus Node's own figures
// (rss, heapUsed and arrayBuffers after a full GC).
// Run in a fresh process by bench/run.mjs (so no other gate shares the module's memory); standalone:
//
//   node bench/memory.mjs [--turns 1000000] [--warmup 20000]     (prints one JSON line)
import { artifactPool, seedPairs, KEY, MEMORY_FILES, THREAD_ID, TOOL_EXECUTION, TOOL_NAMES } from './fixtures.mjs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { importGate } from './pkg.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const turns = arg('--turns', 1_000_000);
const warmup = Math.min(arg('--warmup', 20_000), turns);

const pkg = await importGate();
// A full GC before each reading, so that heapUsed counts live objects (no `node --expose-gc` needed).
setFlagsFromString('--expose-gc');
const gc = /** @type {() => void} */ (runInNewContext('gc'));
const mem = () => {
  gc();
  const m = process.memoryUsage();
  return { wasmBytes: pkg.memoryBytes(), rss: m.rss, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers };
};

const before = mem();
const gate = new pkg.Gate({ codeSessionToolNames: TOOL_NAMES, toolExecution: TOOL_EXECUTION, sessions: seedPairs(MEMORY_FILES) });
const opts = { threadId: THREAD_ID };
const results = artifactPool(MEMORY_FILES).map((artifact) => [{ name: 'bash_tool', status: /** @type {const} */ ('success'), artifact }]);
let sink = 0;
const turn = (i) => {
  gate.contextForCall('event', 'bash_tool', opts);
  gate.foldResults('event', results[i & 63], { now: i });
  sink ^= /** @type {any} */ (gate.contextForCall('event', 'bash_tool', opts)).codeSessionContext.files.length;
};
const t0 = performance.now();
for (let i = 0; i < warmup; i++) turn(i);
const afterWarmup = mem();
for (let i = warmup; i < turns; i++) turn(i);
const end = mem();
const ms = performance.now() - t0;
const filesAtEnd = gate.session(KEY)?.files?.length ?? 0;
gate.free();
console.log(JSON.stringify({ turns, warmup, partitionFiles: filesAtEnd, ms, before, afterWarmup, end, sink }));
