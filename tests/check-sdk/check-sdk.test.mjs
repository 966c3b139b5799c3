// `code-session-gate-check-sdk` as a host's CI runs it: the packaged bin, offline against the releases
// scripts/setup.sh cached in .cache/check-sdk (3.6.15 and 3.9.2, the reference release of each profile).
//
//   node --test tests/check-sdk/        (scripts/test.sh step "check-sdk"; needs scripts/build.sh)
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PRESETS } from '../../www/devtools/presets.js';
import { exportTrace } from '../../www/devtools/replay.js';
import { makeConsumer, run as runIn } from '../js/consumer.mjs';
import { CACHE, PKG_DIR, RELEASES, ROOT, assertReady, checkSdk } from './run.mjs';

const SHIPPED = join(ROOT, 'pkg-check-sdk', 'conformance-vectors.json');
let dir;
before(() => {
  assertReady();
  dir = mkdtempSync(join(tmpdir(), 'csg-check-sdk-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const other = (p) => (p === '3.6' ? '3.9' : '3.6');

for (const [profile, version] of Object.entries(RELEASES)) {
  test(`SDK ${version}: the shipped vectors agree under profile ${profile}, and profile ${other(profile)}'s differences are named`, async (t) => {
    const run = await checkSdk(['--sdk', version, '--json']);
    t.diagnostic(`${version}: ${run.ms} ms`);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /installing/, 'the cached release is used as it is');
    const r = run.json;
    assert.equal(r.sdk.version, version);
    assert.deepEqual(r.agreeing, [profile]);
    assert.equal(r.verdict, 'agrees');
    assert.equal(r.exit, 0);
    assert.ok(r.counts.vectors >= 400, `every shipped vector (${r.counts.vectors})`);
    assert.equal(r.profiles[profile].disagree, 0);
    assert.equal(r.profiles[profile].agree, r.counts.items);
    const named = r.disagreements.filter((d) => d.profile === other(profile));
    assert.ok(named.length > 0, 'the other profile disagrees somewhere');
    assert.equal(named.length, r.disagreements.length, 'only the other profile disagrees');
    for (const d of named) {
      assert.ok(d.site && d.item && d.input !== undefined, JSON.stringify(d));
      assert.ok(d.differences.length > 0 && d.differences.every((x) => typeof x.path === 'string' && 'sdk' in x || 'other' in x), JSON.stringify(d));
    }
    // 3.9 behaviour the other release has not (or has): baselines, deleted_files, the merge's storage fill.
    const sites = new Set(named.map((d) => d.site));
    for (const site of ['update_session', 'fold_results/event', 'exec_wire', 'plan_request']) assert.ok(sites.has(site), `${site} among ${[...sites]}`);
    assert.ok(named.some((d) => d.kind === 'gate'), 'the gate under the other profile answers otherwise');
  });
}

test('the table names the agreeing profile and each disagreement with its site, item and both answers', async () => {
  const run = await checkSdk(['--sdk', '3.9.2']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^check-sdk: @librechat\/agents 3\.9\.2 /);
  assert.match(run.stdout, /result: profile "3\.9" agrees with @librechat\/agents 3\.9\.2 on every item/);
  assert.match(run.stdout, /^ {2}#\s+profile\s+site\s+item\s+differs at\s+SDK 3\.9\.2\s+other answer$/m);
  assert.match(run.stdout, /^ {2}1\s+3\.6\s+\S+\s+\S+/m);
  assert.match(run.stdout, /gate 3\.6: /);
  assert.match(run.stdout, /^inputs:$/m);
});

describe('a vector altered on purpose', () => {
  test('is reported with its site and both answers, and the exit status is 1', async () => {
    const doc = JSON.parse(readFileSync(SHIPPED, 'utf8'));
    const v = doc.vectors.find((x) => x.name === 'gate/builtin/bash_tool');
    assert.ok(v, 'the vector is shipped');
    v.expect.participates = false;
    const u = doc.vectors.find((x) => x.op === 'update_session' && x.profiles.length === 2);
    const wrongSession = `${u.expect.sessions[0][1].session_id}-altered`;
    u.expect.sessions[0][1].session_id = wrongSession;
    const file = join(dir, 'altered.json');
    writeFileSync(file, JSON.stringify(doc));
    const run = await checkSdk(['--sdk', '3.9.2', '--no-shipped-vectors', '--vectors', file, '--json']);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.json.agreeing, []);
    const mine = run.json.disagreements.filter((d) => d.profile === '3.9');
    assert.deepEqual(
      mine.map((d) => [d.kind, d.site, d.item]),
      [
        ['vector', 'gate', 'gate/builtin/bash_tool'],
        ['vector', 'update_session', u.name],
      ],
    );
    assert.deepEqual(mine[0].differences, [{ path: '$.participates', sdk: true, other: false }]);
    assert.deepEqual(mine[0].input, { name: 'bash_tool' });
    assert.equal(mine[1].differences[0].path, '$.sessions[0][1].session_id');
    assert.equal(mine[1].differences[0].other, wrongSession);

    const table = await checkSdk(['--sdk', '3.9.2', '--no-shipped-vectors', '--vectors', file]);
    assert.equal(table.code, 1);
    assert.match(table.stdout, /result: no profile agrees/);
    assert.match(table.stdout, /3\.9\s+gate\s+gate\/builtin\/bash_tool\s+\$\.participates\s+true\s+vector: false/);
  });
});

describe('releases that cannot be checked', () => {
  test('an unknown release is a clear install error (exit 3)', async () => {
    const run = await checkSdk(['--sdk', '0.0.0-no-such-release', '--json']);
    assert.equal(run.code, 3);
    assert.equal(run.json.error.code, 'sdk_install');
    assert.match(run.json.error.message, /cannot install @librechat\/agents@0\.0\.0-no-such-release with npm/);
    assert.match(run.stderr, /cannot install/);
  });

  test('a release without a drivable ToolNode names what is missing (exit 3)', async () => {
    const cache = join(dir, 'cache');
    const pkgDir = join(cache, 'sdk', 'agents@9.9.9-broken', 'node_modules', '@librechat', 'agents');
    mkdirSync(pkgDir, { recursive: true });
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: '@librechat/agents', version: '9.9.9-broken', main: 'index.js' }));
    writeFileSync(join(pkgDir, 'index.js'), 'exports.Run = class Run {};\n');
    const run = await checkSdk(['--sdk', '9.9.9-broken', '--cache-dir', cache, '--json']);
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.json.error.code, 'sdk_shape');
    assert.match(run.json.error.message, /@librechat\/agents 9\.9\.9-broken has no ToolNode shape check-sdk can drive/);
    assert.ok(run.json.error.missing.includes('export ToolNode (a class)'), JSON.stringify(run.json.error.missing));
  });

  test('a release whose entry does not load is named as such', async () => {
    const cache = join(dir, 'cache2');
    const pkgDir = join(cache, 'sdk', 'agents@9.9.8-throws', 'node_modules', '@librechat', 'agents');
    mkdirSync(pkgDir, { recursive: true });
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: '@librechat/agents', version: '9.9.8-throws', main: 'index.js' }));
    writeFileSync(join(pkgDir, 'index.js'), 'throw new Error("boom at load");\n');
    const run = await checkSdk(['--sdk', '9.9.8-throws', '--cache-dir', cache]);
    assert.equal(run.code, 3);
    assert.match(run.stderr, /9\.9\.8-throws has no ToolNode shape .*entry does not load \(boom at load\)/);
  });
});

describe('traces', () => {
  test("the devtools page's exported presets replay clean through 3.9.2", async () => {
    const files = Object.entries(PRESETS).map(([id, preset]) => {
      const file = join(dir, `${id}.json`);
      writeFileSync(file, exportTrace(preset));
      return file;
    });
    const run = await checkSdk(['--sdk', '3.9.2', '--no-shipped-vectors', '--trace', ...files, '--json']);
    assert.equal(run.code, 0, JSON.stringify(run.json.disagreements.filter((d) => d.profile === '3.9'), null, 1));
    assert.deepEqual(run.json.agreeing, ['3.9']);
    assert.equal(run.json.counts.traces, files.length);
    assert.ok(run.json.disagreements.some((d) => d.site === 'trace/event' && d.differences.some((x) => x.path === '$.sent.codeSessionBaselineId')), 'under 3.6 the 3.9 request field is named');
  });

  test('a trace recorded under the profile that does not agree is noted with the one to set', async () => {
    const file = join(dir, 'under-3.9.json');
    writeFileSync(file, exportTrace(PRESETS['profile-difference']));
    const run = await checkSdk(['--sdk', '3.6.15', '--no-shipped-vectors', '--trace', file, '--json']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.json.traces, [{ file, steps: 3, path: 'event', profile: '3.9', profileAgrees: false }]);
    const table = await checkSdk(['--sdk', '3.6.15', '--no-shipped-vectors', '--trace', file]);
    assert.match(table.stdout, /note: .*under-3\.9\.json ran under profile "3\.9", which does not agree with 3\.6\.15: set the gate's profile to "3\.6"/);
  });

  for (const [name, body, field] of [
    ['not-json.json', '{ "steps": [', /not-json\.json: is not JSON/],
    ['wrong-format.json', JSON.stringify({ format: 'something-else', version: 1, steps: [] }), /wrong-format\.json: format: must be "code-session-gate\.trace"/],
    ['new-version.json', JSON.stringify({ format: 'code-session-gate.trace', version: 2, steps: [] }), /new-version\.json: version: 2 is not a version this reader takes/],
    ['bad-step.json', JSON.stringify({ format: 'code-session-gate.trace', version: 1, steps: [{ call: { id: 'a', name: 'bash_tool' } }, { call: { id: '', name: 'x' } }] }), /bad-step\.json: steps\[1\]\.call\.id: must be a non-empty string/],
    ['bad-config.json', JSON.stringify({ format: 'code-session-gate.trace', version: 1, config: { codeSessionToolNames: 'create_file' }, steps: [] }), /bad-config\.json: config\.codeSessionToolNames: must be an array of strings/],
  ]) {
    test(`a broken trace file (${name}) is refused naming the file and the field (exit 2)`, async () => {
      const file = join(dir, name);
      writeFileSync(file, body);
      const run = await checkSdk(['--sdk', '3.9.2', '--no-shipped-vectors', '--trace', file]);
      assert.equal(run.code, 2, run.stdout);
      assert.match(run.stderr, field);
      assert.equal(run.stdout, '');
    });
  }
});

describe('which release', () => {
  test("without --sdk: the version the host's node_modules resolves, else its package.json's", async () => {
    const host = join(dir, 'host');
    mkdirSync(join(host, 'node_modules', '@librechat', 'agents'), { recursive: true });
    writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, dependencies: { '@librechat/agents': '^3.6.0' } }));
    writeFileSync(join(host, 'node_modules', '@librechat', 'agents', 'package.json'), JSON.stringify({ name: '@librechat/agents', version: '3.6.15' }));
    const resolved = await checkSdk(['--json'], { cwd: host });
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal(resolved.json.sdk.version, '3.6.15');
    assert.match(resolved.stderr, /@librechat\/agents 3\.6\.15 \(from .*node_modules/);

    const manifestOnly = join(dir, 'host2');
    mkdirSync(manifestOnly);
    writeFileSync(join(manifestOnly, 'package.json'), JSON.stringify({ name: 'host2', private: true, devDependencies: { '@librechat/agents': '3.9.2' } }));
    const named = await checkSdk(['--json'], { cwd: manifestOnly });
    assert.equal(named.code, 0, named.stderr);
    assert.equal(named.json.sdk.version, '3.9.2');
  });

  test('usage errors: exit 2 with the usage text', async () => {
    for (const args of [['--frobnicate'], ['--sdk'], ['--no-shipped-vectors']]) {
      const run = await checkSdk(args, { cwd: tmpdir() });
      assert.equal(run.code, 2, `${args}: ${run.stderr}`);
      assert.match(run.stderr, /check-sdk: /);
    }
    const help = await checkSdk(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: code-session-gate-check-sdk \[--sdk/);
  });
});

test('installed from the packed tarballs, `npx code-session-gate-check-sdk` runs from the host project; the runtime package\'s old bin names it', async (t) => {
  const consumer = makeConsumer({ also: [PKG_DIR] });
  t.after(() => consumer.cleanup());
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const r = await runIn(npx, ['--no-install', 'code-session-gate-check-sdk', '--sdk', '3.9.2', '--cache-dir', CACHE, '--offline', '--json'], { cwd: consumer.dir, timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.agreeing, ['3.9']);
  assert.ok(report.counts.vectors >= 400, 'the shipped vectors are found beside the command');

  const moved = await runIn(npx, ['--no-install', 'code-session-gate', 'check-sdk', '--sdk', '3.9.2', '--trace', "it's.json"], { cwd: consumer.dir, timeoutMs: 60_000 });
  assert.equal(moved.code, 2);
  assert.equal(moved.stdout, '');
  assert.match(moved.stderr, /check-sdk is a package of its own now/);
  assert.match(moved.stderr, /^ {2}npx code-session-gate-check-sdk --sdk 3\.9\.2 --trace 'it'\\''s\.json'$/m);
});
