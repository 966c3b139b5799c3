// Type tests of the session API: CodeEnvFile is a real discriminated union, and the Gate's inputs and
// outputs are typed without `any`. Compile-only (tsc --noEmit).
import {
  Gate,
  JsonText,
  type CodeEnvFile,
  type CodeSessionGateError,
  type DirectInjection,
  type EventBatch,
  type ExecPath,
  type FileRef,
  type GateVerdict,
  type RequestSessionFields,
  type SessionPairs,
  type ToolCallRequest,
} from 'code-session-gate';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(): void;

// --- CodeEnvFile: skill needs a version, agent/user must not carry one ---------------------------------
const skill: CodeEnvFile = { id: 's', resource_id: 'sk', name: 'SKILL.md', storage_session_id: 'st', kind: 'skill', version: 2 };
const agent: CodeEnvFile = { id: 'a', resource_id: 'ag', name: 'x.py', storage_session_id: 'st', kind: 'agent' };
const user: CodeEnvFile = { id: 'u', resource_id: 'u', name: 'a.csv', storage_session_id: 'st', kind: 'user' };
// @ts-expect-error a user file must not carry a version
const userWithVersion: CodeEnvFile = { id: 'u', resource_id: 'u', name: 'a.csv', storage_session_id: 'st', kind: 'user', version: 1 };
// @ts-expect-error an agent file must not carry a version
const agentWithVersion: CodeEnvFile = { id: 'a', resource_id: 'a', name: 'x', storage_session_id: 'st', kind: 'agent', version: 1 };
// @ts-expect-error a skill file needs its version
const skillWithoutVersion: CodeEnvFile = { id: 's', resource_id: 'sk', name: 'SKILL.md', storage_session_id: 'st', kind: 'skill' };
// @ts-expect-error kind is a closed set
const systemKind: CodeEnvFile = { id: 's', resource_id: 's', name: 'n', storage_session_id: 'st', kind: 'system' };
// @ts-expect-error resource_id is required on the wire shape
const noResource: CodeEnvFile = { id: 's', name: 'n', storage_session_id: 'st', kind: 'user' };

function versionOf(f: CodeEnvFile): number | undefined {
  if (f.kind === 'skill') {
    expectType<Equal<typeof f.version, number>>();
    return f.version;
  }
  return f.version;
}

// --- FileRef: the stored shape is looser (the SDK's fallbacks narrow it) --------------------------------
const stored: FileRef = { id: 'f', name: 'a.txt', kind: 'system', version: null, inherited: true, custom: 1 };
// @ts-expect-error a stored file still needs an id
const noId: FileRef = { name: 'a.txt' };

// --- Gate -------------------------------------------------------------------------------------------------
const sessions: SessionPairs = [['execute_code', { session_id: 'e0', files: [stored], lastUpdated: 1 }]];
const gate = new Gate({ profile: '3.9', codeSessionToolNames: ['create_file'], sessions });
// @ts-expect-error unknown profile
new Gate({ profile: '3.8' });
const bits: number = gate.verdict('bash_tool');
const verdict: GateVerdict = gate.classify('skill');
// contextForCall: one answer shape per path, the union only for a path not known statically.
const direct = gate.contextForCall('direct', 'bash_tool', { threadId: 't' });
expectType<Equal<typeof direct, DirectInjection>>();
const onEvent = gate.contextForCall('event', 'bash_tool');
expectType<Equal<typeof onEvent, RequestSessionFields>>();
const onEager = gate.contextForCall('eager', 'bash_tool');
expectType<Equal<typeof onEager, RequestSessionFields>>();
declare const somePath: ExecPath;
const either = gate.contextForCall(somePath, 'bash_tool');
expectType<Equal<typeof either, DirectInjection | RequestSessionFields>>();
// @ts-expect-error not a path
gate.contextForCall('stream', 'bash_tool');
const batch: EventBatch = gate.beginEventBatch([{ id: 'c1', name: 'execute_code', args: { code: 'x' } }], { toolSchemas: {} });
const requests: ToolCallRequest[] = batch.dispatch;
const end = gate.completeEventBatch(batch.id, { requests, results: [{ toolCallId: 'c1', status: 'success' }], now: 1 });
expectType<Equal<typeof end, 'folded' | 'failed'>>();
// @ts-expect-error writers need `now`: the gate reads no clock
gate.updateSession('execute_code', { session_id: 'e1' }, {});
gate.foldResults('event', new JsonText('[]'), { now: 1 });
gate.updateSession('execute_code', new JsonText('{"session_id":"e1"}'), { now: 1 });
const jsonText: string = new JsonText('[]').text;
// @ts-expect-error a JsonText holds text, not objects
new JsonText([]);
const read: SessionPairs | null = gate.sessions();

function codeOf(e: unknown): string | undefined {
  return e instanceof Error && e.name === 'CodeSessionGateError' ? (e as CodeSessionGateError).code : undefined;
}

export { jsonText, skill, agent, user, userWithVersion, agentWithVersion, skillWithoutVersion, systemKind, noResource, versionOf, noId, bits, verdict, read, codeOf };
