// Random exploration (`npm run fuzz`; not part of `npm test` or CI): for FUZZ_SECONDS (default 120),
// draws seed after seed and runs, with FUZZ_SEED set to it, the API fuzzer (test/fuzz.e2e-spec.ts,
// a fresh service per seed) and every spec with a fast-check property. Prints each failing seed:
// replay it with `FUZZ_SEED=<seed> npm run test:jest -- <file>`, fix what it found, then add it to
// test/fuzz-seeds.ts (the API fuzzer) or write the case down as an example test (a property).
// One jest run at a time, on two workers (in band, the light runner takes one project at a time: the fuzzer is
// an e2e file, the properties unit specs). FUZZ_RUNS sets the API fuzzer's requests per seed (default 2000).
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const seconds = Number(process.env.FUZZ_SECONDS || 120);
const deadline = Date.now() + seconds * 1000;

const propertySpecs = readdirSync(path.join(root, 'src'), { recursive: true })
  .map((file) => path.join('src', String(file)))
  .filter((file) => file.endsWith('.spec.ts') && /from 'fast-check'/.test(readFileSync(path.join(root, file), 'utf8')))
  .sort();
const files = ['test/fuzz.e2e-spec.ts', ...propertySpecs];
console.log(`fuzz: ${seconds} s of random seeds over ${files.join(', ')}`);

const failing = [];
let seeds = 0;
while (Date.now() < deadline) {
  const seed = randomInt(2 ** 31);
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', 'node_modules/jest/bin/jest.js', '--maxWorkers=2', ...files],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 256 * 2 ** 20,
      // What is left of the time bounds the API fuzzer's run (a run stopped by it passes with the requests made).
      env: {
        ...process.env,
        FUZZ_SEED: String(seed),
        FUZZ_TIME_LIMIT_MS: String(Math.min(Math.max(deadline - Date.now(), 10_000), 300_000)),
      },
    },
  );
  seeds += 1;
  const took = ((Date.now() - started) / 1000).toFixed(0);
  if (run.status === 0) {
    console.log(`fuzz: FUZZ_SEED=${seed} passed (${took} s)`);
    continue;
  }
  const failed = [...new Set([...`${run.stdout}${run.stderr}`.matchAll(/^FAIL \S+ (\S+)/gm)].map((m) => m[1]))];
  failing.push({ seed, failed });
  console.log(`${run.stdout}${run.stderr}`.slice(-20_000));
  console.log(`fuzz: FUZZ_SEED=${seed} FAILED (${took} s): ${failed.join(', ') || `jest exited with ${run.status ?? run.signal}`}`);
}

console.log(`fuzz: ${seeds} seed(s) in ${seconds} s, ${failing.length} failing`);
for (const { seed, failed } of failing) console.log(`fuzz: failing FUZZ_SEED=${seed} (${failed.join(', ')})`);
process.exit(failing.length ? 1 : 0);
