// Type tests of the published declarations (client.d.ts, openapi.d.ts), checked by tsc (tsconfig.json),
// never run: each `@ts-expect-error` fails the check when the line it covers is accepted.
import { WorkerError, createClient } from '../client.js';
import type { CodesOf, FileRef, ToolCallsAnswer, WorkerErrorCode } from '../client.js';

const worker = createClient({ baseUrl: 'https://gate.example', getToken: async () => 'token' });

export async function answers(): Promise<void> {
  const answer: ToolCallsAnswer = await worker.toolCalls('c', [{ id: 'c1', name: 'bash_tool', args: { command: 'ls' } }], { agent: 'a' });
  const batch: 'folded' | 'failed' = answer.batch;
  const exit: number | null | undefined = answer.results[0]?.output?.exitCode;
  const files: FileRef[] | undefined = answer.session?.files;
  void [batch, exit, files];
  // @ts-expect-error a call has an id and a name
  await worker.toolCalls('c', [{ name: 'bash_tool' }]);
  // @ts-expect-error the agent is its codeSessionKey, a string
  await worker.listFiles('c', { agent: { codeSessionKey: 'a' } });
  const upload = await worker.upload('c', 'a.txt', new Uint8Array([1]), { contentType: 'text/plain' });
  const name: string = upload.file.name;
  // @ts-expect-error uploads take bytes, a Blob or a string
  await worker.upload('c', 'a.txt', 42);
  const response: Response = await worker.download('c', 'a.txt');
  const kept = (await worker.deleteConversation('c')).kept.map((k) => k.reason);
  const reasons: ('shared' | 'held' | 'not_yours' | 'upkeep_budget')[] = kept;
  const format: 'code-session-gate/snapshot' = (await worker.snapshot('c')).format;
  const version: 1 = (await worker.trace('c')).version;
  await worker.prime('c', [{ id: 'i', name: 'n', kind: 'skill', version: 2 }]);
  // @ts-expect-error a ref's kind is user, skill or agent
  await worker.prime('c', [{ id: 'i', name: 'n', kind: 'tool' }]);
  void [name, response, reasons, format, version];
}

export function errors(e: unknown): string | undefined {
  if (!(e instanceof WorkerError)) return undefined;
  const code: WorkerErrorCode = e.code;
  const status: number = e.status;
  const retry: number | undefined = e.retryAfterSeconds;
  const id: string | undefined = e.requestId;
  void [status, retry, id];
  return code;
}

// The documented codes are known per operation; the client's own are among WorkerErrorCode.
const uploadCode: CodesOf<'upload'> = 'kept_quota_exceeded';
const common: CodesOf<'snapshot'> = 'rate_limited';
// @ts-expect-error a snapshot is never refused for the kept quota
const notSnapshot: CodesOf<'snapshot'> = 'kept_quota_exceeded';
// @ts-expect-error not a code of the worker's
const unknown: CodesOf<'toolCalls'> = 'teapot';
const own: WorkerErrorCode[] = ['network', 'unexpected_answer', 'invalid_path', 'invalid_token'];
void [uploadCode, common, notSnapshot, unknown, own];
