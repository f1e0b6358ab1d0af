// Bundles the command line (dist/cli/main.js, tsc's output) with its dependencies into one file,
// dist/cli/menu-api.mjs, which bin/menu-api runs. Run by `npm run build` after tsc.
//
// Why: Node 20 has no compile cache, and loading the ~1,400 modules tsc's output and its dependencies
// are made of (typebox alone is ~680, Kysely ~260) was most of a command's start: about 0.7 s of CPU
// for `dispensary list`, against 0.25 s from one file. Every command, every server process and every
// cluster worker starts that way.
//
// Left outside the bundle, loaded from node_modules as usual: better-sqlite3 (a native addon), pino
// (its transports load worker files by path), @fastify/swagger and swagger-ui-dist (they read their own
// package files), openid-client, @simplewebauthn/server and otpauth (each loaded on its first use only,
// never at start: src/services/sso.ts, passkeys.ts, second-factor.ts), and pg-native (an optional addon
// pg asks for). Bundled CommonJS code that asks for
// `require`, `__filename` or `__dirname` gets the bundle's own.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const OUTSIDE = [
  'better-sqlite3',
  'pino',
  '@fastify/swagger',
  'swagger-ui-dist',
  'openid-client',
  '@simplewebauthn/server',
  'otpauth',
];
for (const name of OUTSIDE) {
  if (!(name in dependencies))
    throw new Error(`${name} is no longer a dependency: update scripts/build-cli.mjs`);
}

await build({
  entryPoints: [join(root, 'dist', 'cli', 'main.js')],
  outfile: join(root, 'dist', 'cli', 'menu-api.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [...OUTSIDE, 'pg-native'],
  banner: {
    js: [
      "import { createRequire as bundleRequire } from 'node:module';",
      "import { fileURLToPath as bundlePath } from 'node:url';",
      "import { dirname as bundleFolder } from 'node:path';",
      'const require = bundleRequire(import.meta.url);',
      'const __filename = bundlePath(import.meta.url);',
      'const __dirname = bundleFolder(__filename);',
    ].join(' '),
  },
  legalComments: 'none',
  logLevel: 'warning',
});
