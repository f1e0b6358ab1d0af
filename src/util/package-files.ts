import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root folder: the nearest one above this module that holds package.json. Found rather
 * than spelled as `../..` because this module runs from three places at different depths: src/util
 * (tests), dist/util (tsc's output) and dist/cli/menu-api.mjs (the bundle bin/menu-api runs, see
 * scripts/build-cli.mjs).
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (dirname(folder) === folder) throw new Error(`no package.json above ${start}`);
  }
}

/** The package's version: the OpenAPI document's `info.version`, the landing page's and `--version`. */
export const VERSION = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** A path inside the package, e.g. packagePath('dist', 'display'). */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}
