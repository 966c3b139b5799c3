// The gate against each profile's SDK release on random inputs (tests/check-sdk/random.mjs), beyond the
// vectors anyone wrote: check-sdk runs the same generated vectors through the release and through the
// gate, and the gate under the release's profile must answer every observable one as the release does.
//
//   node --test tests/check-sdk/random.test.mjs        (needs scripts/build.sh and scripts/setup.sh)
//   CSG_RANDOM_SEED=7 CSG_RANDOM_VECTORS=5000 node --test tests/check-sdk/random.test.mjs   (another draw)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { randomVectors } from './random.mjs';
import { RELEASES, assertReady, checkSdk } from './run.mjs';

const SEED = Number(process.env.CSG_RANDOM_SEED ?? 1);
const COUNT = Number(process.env.CSG_RANDOM_VECTORS ?? 1200);
let dir;
let file;
before(() => {
  assertReady();
  dir = mkdtempSync(join(tmpdir(), 'csg-random-'));
  file = join(dir, 'random-vectors.json');
  writeFileSync(file, JSON.stringify({ vectors: randomVectors(SEED, COUNT) }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

for (const [profile, version] of Object.entries(RELEASES)) {
  test(`SDK ${version}: the gate under profile ${profile} answers ${COUNT} random vectors (seed ${SEED}) as the release does`, async (t) => {
    const run = await checkSdk(['--sdk', version, '--vectors', file, '--no-shipped-vectors', '--json']);
    t.diagnostic(`${version}: ${run.ms} ms, ${run.json?.counts?.items} items observed`);
    const r = run.json;
    assert.ok(r, run.stderr);
    // Nearly every generated input is observable on the release (a few paths are not: check-sdk names them).
    assert.ok(r.counts.items >= COUNT * 0.97, `${r.counts.items} of ${COUNT} observed`);
    // The vectors' `expect` is empty, so every item "disagrees" with its vector; what matters is the gate.
    const gate = r.disagreements.filter((d) => d.kind === 'gate' && d.profile === profile);
    assert.deepEqual(
      gate.map((d) => ({ item: d.item, input: d.input, sdk: d.sdk, gate: d.other })),
      [],
      `the gate under profile ${profile} disagrees with ${version}`,
    );
    // The other profile answers some of them otherwise: the draw reaches what the releases changed.
    assert.ok(r.disagreements.some((d) => d.kind === 'gate' && d.profile !== profile), 'the other profile differs somewhere');
  });
}
