// Type tests of the edge-middleware API: sandbox requests and answers, refusals' HTTP facts, snapshots.
// Compile-only (tsc --noEmit).
import {
  Gate,
  buildSandboxRequest,
  readSandboxResponse,
  stripTrustedFields,
  type CodeSessionGateError,
  type RefNote,
  type SandboxAnswer,
  type SandboxRequest,
} from 'code-session-gate';

const gate = new Gate({ codeSessionToolNames: ['create_file'] });
const request: SandboxRequest = buildSandboxRequest({
  dialect: 'codeapi',
  tool: 'create_file',
  run: { lang: 'py', code: 'print(1)' },
  context: gate.contextForCall('event', 'create_file', { threadId: 't' }),
  credential: 'token',
});
const endpoint: 'exec' = request.endpoint;
const notes: RefNote[] = request.refs;
const reason: 'repaired' | 'dropped' | undefined = notes[0]?.action;
// @ts-expect-error only the two dialects exist
buildSandboxRequest({ dialect: 'e2b', tool: 'bash_tool' });
const answer: SandboxAnswer = readSandboxResponse({ dialect: 'librecodeinterpreter', status: 200, body: '{}', retryAfter: null });
const stdout: string = answer.stdout;
const { args, dropped } = stripTrustedFields({ command: 'ls', session_id: 'x' });
const dropList: string[] = dropped;

function retryOf(e: CodeSessionGateError): number | undefined {
  return e.code === 'rate_limited' ? e.retryAfterSeconds : undefined;
}

const text: string = gate.snapshot();
const restored: Gate = Gate.fromSnapshot(text, { codeSessionToolNames: ['create_file'] });
Gate.fromSnapshot(JSON.parse(text) as object);

export { endpoint, reason, stdout, args, dropList, retryOf, restored };
