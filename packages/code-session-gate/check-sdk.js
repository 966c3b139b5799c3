#!/usr/bin/env node
// `code-session-gate check-sdk` moved to its own package, code-session-gate-check-sdk (this package carries
// only what its entries load): this bin only says so, with the command to run instead, and exits 2.
const args = process.argv.slice(2).filter((a, i) => !(i === 0 && a === 'check-sdk'));
/** @param {string} a an argument as a POSIX shell reads it back */
const quoted = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
process.stderr.write(
  'code-session-gate: check-sdk is a package of its own now (it carries the conformance vectors it replays); run\n' +
    `  npx code-session-gate-check-sdk${args.map((a) => ` ${quoted(a)}`).join('')}\n`,
);
process.exitCode = 2;
