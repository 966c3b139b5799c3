// Type tests of the edge-middleware API: sandbox requests and answers, refusals' HTTP facts, snapshots.
// Compile-only (tsc --noEmit).
import {
  Gate,
  buildSandboxRequest,
  readSandboxResponse,
  stripTrustedFields,
  type CodeSessionGateError,
  type CodeSessionGateErrorCode,
  type ForwardedAnswer,
  type ForwardedBatch,
  type ForwardedRequest,
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

// The forwarding path: the body as text (or bytes), the answer as text or bytes, the artifact kept inside.
const batch = gate.beginEventBatch([{ id: 'c1', name: 'bash_tool', args: { command: 'ls' } }], { threadId: 't' });
const forwarded: ForwardedRequest = gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', userId: 'u', withFiles: true });
const sendable: string | Uint8Array = forwarded.body;
const sentNames: string[] | undefined = forwarded.files?.map((f) => f.name);
// @ts-expect-error the tool, its arguments and its context are the batch's
gate.sandboxRequest(batch.id, 'c1', { dialect: 'codeapi', tool: 'bash_tool' });
const read: ForwardedAnswer = gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: new Uint8Array(0), retryAfter: null });
const kept: number = read.files;
gate.sandboxAnswer(batch.id, 'c1', { status: 200, body: new ArrayBuffer(0) });
// @ts-expect-error a status is required
gate.sandboxAnswer(batch.id, 'c1', { body: '' });
const folded: 'folded' | 'failed' = gate.completeEventBatch(batch.id, { now: 1 });
const forwardedBatch: ForwardedBatch = gate.forwardEventBatch([{ id: 'c2', name: 'bash_tool', args: { command: 'ls' } }], undefined, { dialect: 'codeapi' });
const firstCall: string | undefined = forwardedBatch.requests[0]?.id;
const firstBody: string | Uint8Array | undefined = forwardedBatch.requests[0]?.body;
const refusedCode: CodeSessionGateErrorCode | undefined = forwardedBatch.refused[0]?.error.code;
// @ts-expect-error the options come before the request options (undefined for none)
gate.forwardEventBatch([], { dialect: 'codeapi' });

export { endpoint, reason, stdout, args, dropList, retryOf, restored, sendable, sentNames, kept, folded, firstCall, firstBody, refusedCode };
