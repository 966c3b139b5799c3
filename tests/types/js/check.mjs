// Type-checks the package's hand-written JavaScript (packages/code-session-gate, its CommonJS sources in packages/code-session-gate/cjs) with
// tsc's checkJs: a name used but never imported, a call with the wrong arguments, a member that does
// not exist. The sources import what the build makes beside them (the modules' glue, whose declarations
// wasm-bindgen writes here from the built modules; the modules' base64 texts), so they are checked in a
// scratch folder that holds both.
//
//   node tests/types/js/check.mjs   (after scripts/build.sh: it reads target/wasm32-unknown-unknown)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const release = join(root, 'target/wasm32-unknown-unknown/release');
/** Each module the build makes: its cargo artefact and the glue's name. */
const MODULES = [
  ['code_session_gate_core_module', 'code_session_gate'],
  ['code_session_gate_sandbox_module', 'code_session_sandbox'],
];

const scratch = mkdtempSync(join(tmpdir(), 'csg-checkjs-'));
mkdirSync(join(scratch, 'js'));
try {
  for (const [artefact, glue] of MODULES) {
    const wasm = join(release, `${artefact}.wasm`);
    if (!existsSync(wasm)) throw new Error(`${wasm} is missing: run scripts/build.sh first`);
    // The glue's declarations, as wasm-bindgen writes them for the glue the build ships.
    execFileSync('wasm-bindgen', ['--target', 'web', '--experimental-reset-state-function', '--out-name', glue, '--out-dir', join(scratch, 'glue'), wasm]);
    // packages/assemble.mjs exports two of the glue's own functions, which engine.js calls.
    const declared = readFileSync(join(scratch, 'glue', `${glue}.d.ts`), 'utf8');
    writeFileSync(
      join(scratch, 'js', `${glue}.d.ts`),
      `${declared}\nexport function __wbg_get_imports(): WebAssembly.Imports;\n` +
        'export function __wbg_finalize_init(instance: WebAssembly.Instance, module: WebAssembly.Module): unknown;\n',
    );
    // The compiled module, as workerd and Bun import a `.wasm` (allowArbitraryExtensions' name).
    writeFileSync(join(scratch, 'js', `${glue}_bg.d.wasm.ts`), 'declare const module: WebAssembly.Module;\nexport default module;\n');
    // The module's base64 text (a default-exported string: packages/assemble.mjs writes it).
    writeFileSync(join(scratch, 'js', `${glue}_bg.base64.d.ts`), 'declare const text: string;\nexport default text;\n');
  }
  for (const name of readdirSync(join(root, 'packages/code-session-gate'))) {
    // unwasm.js (six lines) is left out: tsc resolves no declaration for its `?module` imports.
    if ((name.endsWith('.js') && name !== 'unwasm.js') || name === 'package.json') cpSync(join(root, 'packages/code-session-gate', name), join(scratch, 'js', name));
  }
  // The CommonJS entries' sources import what sits beside them in the built package: checked there.
  for (const name of readdirSync(join(root, 'packages/code-session-gate/cjs'))) cpSync(join(root, 'packages/code-session-gate/cjs', name), join(scratch, 'js', `cjs-${name}`));
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        allowJs: true,
        checkJs: true,
        noEmit: true,
        target: 'es2022',
        module: 'nodenext',
        lib: ['es2024', 'esnext.disposable', 'dom'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
        skipLibCheck: true,
        strict: false,
        allowArbitraryExtensions: true,
        noUnusedLocals: true,
        noImplicitReturns: true,
        noFallthroughCasesInSwitch: true,
      },
      include: ['js/*.js', 'js/*.d.ts'],
    }),
  );
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', scratch], { stdio: 'inherit' });
  console.log('checkJs: packages/code-session-gate type-checks');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
