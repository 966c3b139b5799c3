#!/usr/bin/env node
// The package's command line: `code-session-gate check-sdk …` (see cli.js, or --help).
import { EXIT, main } from './cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`code-session-gate: unexpected failure: ${e?.stack ?? e}\n`);
    process.exitCode = EXIT.sdk;
  },
);
