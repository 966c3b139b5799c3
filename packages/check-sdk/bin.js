#!/usr/bin/env node
// The command line of code-session-gate-check-sdk (see cli.js, or --help).
import { EXIT, main } from './cli.js';

// Until main settles the status is 3: should the SDK leave a promise nothing settles and Node's event
// loop run dry, the command must not end with 0 as if everything agreed.
process.exitCode = EXIT.sdk;
let finished = false;
process.once('exit', (code) => {
  if (!finished) process.stderr.write(`code-session-gate-check-sdk: ended before the report (exit ${code})\n`);
});

main(process.argv.slice(2)).then(
  (code) => {
    finished = true;
    process.exitCode = code;
  },
  (e) => {
    finished = true;
    process.stderr.write(`code-session-gate-check-sdk: unexpected failure: ${e?.stack ?? e}\n`);
    process.exitCode = EXIT.sdk;
  },
);
