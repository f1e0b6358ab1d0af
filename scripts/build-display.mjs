// Bundles the browser code of the public surfaces (web/display) into dist/display: the menu page's
// enhancement, the board and the embed, each one minified script with no framework; and copies the
// page and board stylesheets. Run by `npm run build` after tsc.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'web', 'display');
const out = join(root, 'dist', 'display');
mkdirSync(out, { recursive: true });

await build({
  entryPoints: ['menu', 'board', 'embed'].map((name) => join(source, `${name}.ts`)),
  outdir: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome100', 'firefox100', 'safari15'],
  loader: { '.css': 'text' },
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['menu.css', 'board.css']) copyFileSync(join(source, file), join(out, file));
