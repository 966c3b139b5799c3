// The worker's client in another runtime (Deno, workerd; tests/e2e/client.test.mjs runs it there): the same
// file as Node and browsers import, as it is. An upload, a tool call reading it, the download, a refusal.
import { WorkerError, createClient } from '../../worker/client/client.js';

/** @param {string} baseUrl @param {string} token */
export async function smoke(baseUrl, token) {
  const client = createClient({ baseUrl, token });
  const up = await client.upload('smoke', 'hello.txt', 'hi from the client\n');
  const ran = await client.toolCalls('smoke', [{ id: 'c1', name: 'bash_tool', args: { command: 'cat /mnt/data/hello.txt' } }]);
  const back = await (await client.download('smoke', 'hello.txt')).text();
  const refused = await client.download('smoke', 'nope.txt').catch((/** @type {unknown} */ e) => e);
  return {
    name: up.file.name,
    stdout: ran.results[0].output?.stdout,
    back,
    refused: refused instanceof WorkerError ? [refused.code, refused.status, typeof refused.requestId] : String(refused),
  };
}
