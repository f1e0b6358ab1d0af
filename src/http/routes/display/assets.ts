import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding } from '../../../services/menu-snapshots.js';
import { packagePath } from '../../../util/package-files.js';

/** The browser files `npm run build` bundles into dist/display (scripts/build-display.mjs). */
export const DISPLAY_ASSET_DIRECTORY = packagePath('dist', 'display');

export const DISPLAY_FILES = {
  'menu.js': 'text/javascript; charset=utf-8',
  'menu.css': 'text/css; charset=utf-8',
  'board.js': 'text/javascript; charset=utf-8',
  'board.css': 'text/css; charset=utf-8',
  'embed.js': 'text/javascript; charset=utf-8',
} as const;

export type DisplayFile = keyof typeof DISPLAY_FILES;

export interface Asset {
  /** The file's bytes in each coding: text compresses to about a third, and shoppers are on phones. */
  bodies: Record<Encoding, Buffer>;
  type: string;
  /** A hash of the bytes; the ETag of a coding adds `-gzip` or `-br` to it, as snapshots' do. */
  tag: string;
}

/**
 * The assets of each directory this process loaded: brotli at quality 11 takes about 0.1 s of CPU for
 * these files, and the test suite builds hundreds of apps in a few processes. The files are the
 * build's output, which does not change while a process runs.
 */
const loaded = new Map<string, Map<DisplayFile, Asset>>();

/** Read and compressed once, at start: a few small files, served from memory with strong ETags. */
export function loadDisplayAssets(directory = DISPLAY_ASSET_DIRECTORY): Map<DisplayFile, Asset> {
  const known = loaded.get(directory);
  if (known) return known;
  const assets = new Map<DisplayFile, Asset>();
  for (const [file, type] of Object.entries(DISPLAY_FILES) as [DisplayFile, string][]) {
    const path = join(directory, file);
    // A source checkout that has not run `npm run build` serves the pages without their scripts.
    const body = existsSync(path) ? readFileSync(path) : Buffer.from(`/* ${file}: run npm run build */\n`);
    const tag = createHash('sha256').update(body).digest('base64url').slice(0, 24);
    const bodies = {
      identity: body,
      gzip: gzipSync(body, { level: 9 }),
      br: brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
    };
    assets.set(file, { bodies, type, tag });
  }
  loaded.set(directory, assets);
  return assets;
}
