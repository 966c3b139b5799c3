// Replays the seed scenario (www/demo/scenario.json) through the built package, the way a LibreChat-like
// host drives it on the event path: for each model tool call it prints every gate's verdict, the session
// and files sent with the request, the sandbox body a built-in tool would POST, and what was folded back.
//
//   node www/demo/replay.mjs          (after scripts/build.sh; scripts/run.sh does both)
import { readFileSync } from 'node:fs';
import { Gate, buildExecRequest, readExecResponse } from '../../pkg/node.js';

const scenario = JSON.parse(readFileSync(new URL('./scenario.json', import.meta.url), 'utf8'));
const short = (id) => (typeof id === 'string' && id.length > 10 ? `${id.slice(0, 8)}…` : String(id));
const fileLine = (f) =>
  `${f.name} [${f.kind ?? '—'}${f.kind === 'skill' ? ` v${f.version}` : ''}] ${short(f.id)}@${short(f.storage_session_id)}` +
  (f.inherited === true ? ' (inherited)' : '');
const bits = (v) =>
  Object.entries(v)
    .map(([k, on]) => `${on ? '✓' : '·'} ${k}`)
    .join('  ');

// LibreChat's wiring: its file tools share the code session; stateful sandbox sessions keyed by the
// conversation (thread id).
const gate = new Gate({
  profile: '3.9',
  codeSessionToolNames: ['create_file', 'edit_file', 'read_file'],
  toolExecution: { sandbox: { statefulSessions: true } },
  eagerEventToolExecution: { excludeToolNames: ['create_file', 'edit_file', 'execute_code', 'bash_tool'] },
});
gate.seedRun([['execute_code', scenario.initialSession]]);
let now = scenario.initialSession.lastUpdated;

console.log(`conversation ${scenario.conversation}: seeded partition execute_code`);
for (const f of gate.session('execute_code').files) console.log(`   ${fileLine(f)}`);

for (const call of scenario.calls) {
  console.log(`\n── ${call.id}: ${call.name}`);
  console.log(`   verdict: ${bits(gate.classify(call.name))}`);
  console.log(`   eager prestart: ${gate.isEagerExcluded(call.name) ? 'excluded' : 'allowed'}`);

  const batch = gate.beginEventBatch([{ id: call.id, name: call.name, args: call.args }], { threadId: scenario.conversation });
  const [request] = batch.dispatch;
  const ctx = request.codeSessionContext;
  if (ctx === undefined) console.log('   sent: no codeSessionContext (the gate keeps this tool out of the session)');
  else {
    console.log(`   sent: session_id=${ctx.session_id}  baseline=${request.codeSessionBaselineId}  hint=${request.runtimeSessionHint ?? '—'}`);
    for (const f of ctx.files ?? []) console.log(`      → ${fileLine(f)}`);
  }

  // The host runs the call. A built-in tool's POST is what the SDK executor would send.
  let artifact;
  if (call.name === 'bash_tool') {
    const factory = { statefulSessions: true, executionProfile: 'stateful', user_id: scenario.initialSession.files[0].resource_id };
    const toolCall = { session_id: ctx.session_id, _injected_files: ctx.files, _runtime_session_hint: request.runtimeSessionHint };
    const wire = buildExecRequest({ tool: 'bash_tool', factory, toolCall, modelArgs: call.args });
    console.log(`   POST /${wire.endpoint}: lang=${wire.body.lang} files=${wire.body.files?.length ?? 0} runtime_session_hint=${wire.body.runtime_session_hint ?? '—'} (intent stripped: ${!('intent' in wire.body)})`);
    artifact = readExecResponse({ tool: 'bash_tool', factory, response: call.sandboxAnswer }).artifact;
  } else if (call.sandboxAnswer !== null) {
    // A host tool (create_file) writes through its own /exec and puts the sandbox's answer on its artifact.
    artifact = { session_id: call.sandboxAnswer.session_id, files: call.sandboxAnswer.files };
  } else {
    artifact = { session_id: 'ws-should-not-fold', files: [{ id: 'x', name: 'x.html' }] };
  }

  now += 1000;
  const before = gate.session('execute_code');
  const end = gate.completeEventBatch(batch.id, {
    requests: batch.dispatch,
    results: [{ toolCallId: call.id, status: 'success', artifact }],
    now,
  });
  const after = gate.session('execute_code');
  if (after.lastUpdated === before.lastUpdated) {
    console.log(`   folded: nothing (${end}; artifact session ${short(artifact.session_id)} ignored)`);
  } else {
    console.log(`   folded: session_id ${short(before.session_id)} → ${short(after.session_id)}; ${after.files.length} files:`);
    for (const f of after.files) console.log(`      ${fileLine(f)}`);
  }
}
