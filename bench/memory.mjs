// Memory of one long-lived gate: runs `--turns N` turns (context, fold of one artifact, context) on
// one Gate whose partition stays bounded (MEMORY_FILES seeded files + 5 fixed-name outputs), and
// reports the wasm linear memory (the module's `memory`, returned by the package's `initSync()` once
// the Node entry has instantiated it) after `--warmup` turns and at the end, plus Node's own figures
// (rss, heapUsed and arrayBuffers after a full GC), and the same every `--every` turns (`samples`).
// With `--wire`, a turn is the forwarding path's instead: the sandbox's answer body read into the
// pending batch (`sandboxAnswer`), the batch completed, the next one planned with its request body
// (`forwardEventBatch`), on a partition of MEMORY_FILES codeapi files + 5 outputs.
// Run in a fresh process by bench/run.mjs (so no other gate shares the module's memory); standalone:
//
//   node bench/memory.mjs [--wire] [--turns 1000000] [--warmup 20000] [--every 100000]   (one JSON line)
import {
  artifactPool, seedPairs, wireAnswerPool, wireSeedPairs, KEY, MEMORY_FILES, THREAD_ID, TOOL_EXECUTION, TOOL_NAMES,
  WIRE_CALL, WIRE_TIMEOUT_MS, WIRE_USER,
} from './fixtures.mjs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { importGate } from './pkg.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const turns = arg('--turns', 1_000_000);
const warmup = Math.min(arg('--warmup', 20_000), turns);
const every = arg('--every', 100_000);
const wire = process.argv.includes('--wire');

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
const gate = new pkg.Gate({
  codeSessionToolNames: TOOL_NAMES,
  toolExecution: TOOL_EXECUTION,
  sessions: wire ? wireSeedPairs(MEMORY_FILES) : seedPairs(MEMORY_FILES),
});
const opts = { threadId: THREAD_ID };
let sink = 0;
/** @type {(i: number) => void} */
let turn;
if (wire) {
  const bodies = wireAnswerPool(MEMORY_FILES);
  const request = { dialect: /** @type {const} */ ('codeapi'), userId: WIRE_USER, timeoutMs: WIRE_TIMEOUT_MS };
  // As bench/wire.mjs drives the gate: the batch and its request in one call where the package can.
  const forwards = typeof gate.forwardEventBatch === 'function';
  let batch = gate.beginEventBatch([WIRE_CALL], opts).id;
  turn = (i) => {
    gate.sandboxAnswer(batch, WIRE_CALL.id, { status: 200, body: bodies[i & 63] });
    gate.completeEventBatch(batch, { now: i + 2 });
    if (forwards) {
      const forwarded = gate.forwardEventBatch([WIRE_CALL], opts, request);
      batch = forwarded.id;
      sink ^= forwarded.requests[0].body.length;
    } else {
      batch = gate.beginEventBatch([WIRE_CALL], opts).id;
      sink ^= gate.sandboxRequest(batch, WIRE_CALL.id, request).body.length;
    }
  };
} else {
  const results = artifactPool(MEMORY_FILES).map((artifact) => [{ name: 'bash_tool', status: /** @type {const} */ ('success'), artifact }]);
  turn = (i) => {
    gate.contextForCall('event', 'bash_tool', opts);
    gate.foldResults('event', results[i & 63], { now: i });
    sink ^= /** @type {any} */ (gate.contextForCall('event', 'bash_tool', opts)).codeSessionContext.files.length;
  };
}
const samples = [];
const t0 = performance.now();
for (let i = 0; i < warmup; i++) turn(i);
const afterWarmup = mem();
for (let i = warmup; i < turns; i++) {
  turn(i);
  if ((i + 1) % every === 0) samples.push({ turns: i + 1, ...mem() });
}
const end = mem();
const ms = performance.now() - t0;
const filesAtEnd = gate.session(KEY)?.files?.length ?? 0;
gate.free();
console.log(JSON.stringify({ mode: wire ? 'wire' : 'object', turns, warmup, partitionFiles: filesAtEnd, ms, before, afterWarmup, end, samples, sink }));
