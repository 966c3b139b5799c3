// The seed scenario driven from a plain host process instead of workerd: the same batch steps
// (src/batch.js), importing the package the host's own way. In Node the package is ready at import; in
// Deno (and browsers) `init()` loads the .wasm first — calling it is harmless everywhere.
//
//   node host.mjs <sandbox base URL> <codeapi|librecodeinterpreter> [credential]
//   deno run --allow-read --allow-net=127.0.0.1 host.mjs <...>
//
// Prints one JSON line (the judgement and the outcomes) and exits 0 when the scenario behaved as expected.
import init, { Gate } from 'code-session-gate';
import { runBatch } from './src/batch.js';
import { DECLARED, SEED_STEPS, judgeSeed } from './scenario.js';

const args = globalThis.Deno ? globalThis.Deno.args : process.argv.slice(2);
const [url, dialect = 'codeapi', credential] = args;
if (!url) {
  console.error('usage: host.mjs <sandbox base URL> <codeapi|librecodeinterpreter> [credential]');
  globalThis.Deno ? globalThis.Deno.exit(2) : process.exit(2);
}
await init();
const gate = new Gate(DECLARED);
const sandbox = {
  url: url.replace(/\/+$/, ''),
  dialect,
  credential: credential ?? (dialect === 'codeapi' ? 'host-user' : 'test-key'),
  userId: 'host-user',
  timeoutMs: 30000,
  deadlineMs: 35000,
};
const outcomes = [];
for (const step of SEED_STEPS) {
  const { results } = await runBatch(gate, sandbox, [step], { threadId: 'host-conversation' });
  outcomes.push(results[0]);
}
const judged = judgeSeed(outcomes);
console.log(JSON.stringify({ runtime: globalThis.Deno ? 'deno' : 'node', judged, outcomes }));
const ok = Object.values(judged).every(Boolean);
if (!ok) globalThis.Deno ? globalThis.Deno.exit(1) : process.exit(1);
