// `npm run build`: tsc into dist/, the CLI bundle, the console (vite) and the public pages' scripts.
//
// With --if-stale (`npm install` through `prepare`, `npm test` through `pretest`, the benchmarks) it
// builds only when dist/ was not built from exactly the files there are now. On a fresh machine
// `npm test` follows `npm install`, and without the check it built the same thing again: 20-40 s on
// two cores. What the build reads: src/, console/, web/, these scripts, the TypeScript settings and the
// installed dependencies (package-lock.json). Their contents are hashed (not their times: a fresh
// clone gives every file a new one), and the digest of the inputs a build started from is kept in
// dist/.build-inputs once every step has succeeded. Why by hand: the tools made for task caching
// (wireit, turbo, nx) bring a task runner and a cache directory for one comparison.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const INPUT_DIRECTORIES = ['src', 'console', 'web'];
const INPUT_FILES = [
  'scripts/build.mjs',
  'scripts/build-cli.mjs',
  'scripts/build-display.mjs',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
];
const STEPS = [
  ['tsc', '-p', 'tsconfig.json'],
  ['node', 'scripts/build-cli.mjs'],
  ['vite', 'build', '--config', 'console/vite.config.ts'],
  ['node', 'scripts/build-display.mjs'],
];
const stampFile = join(root, 'dist', '.build-inputs');

/** Every file under `directory`, as paths relative to the repository, in a stable order. */
function filesUnder(directory) {
  return readdirSync(join(root, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

function inputsDigest() {
  const hash = createHash('sha256');
  for (const file of [...INPUT_DIRECTORIES.flatMap(filesUnder), ...INPUT_FILES]) {
    // The name and the length before the bytes, so that no two sets of files hash alike.
    const bytes = readFileSync(join(root, file));
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

const digest = inputsDigest();
if (
  process.argv.includes('--if-stale') &&
  existsSync(stampFile) &&
  readFileSync(stampFile, 'utf8') === digest
) {
  console.log('dist/ is up to date (built from these same sources): not building it again.');
  process.exit(0);
}
// A build that stops half-way leaves no stamp behind, so the next check builds again.
rmSync(stampFile, { force: true });
for (const [command, ...args] of STEPS) {
  // npm puts node_modules/.bin on the PATH of the scripts it runs; a direct `node scripts/build.mjs` too.
  const PATH = [join(root, 'node_modules', '.bin'), process.env.PATH].join(':');
  const { status } = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, PATH } });
  if (status !== 0) process.exit(status ?? 1);
}
writeFileSync(stampFile, digest);
