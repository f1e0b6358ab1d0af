/**
 * `npm run openapi`: writes ./openapi.json from the routes' schemas.
 * `npm run openapi:check`: fails when the committed ./openapi.json differs from a fresh one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../src/config.js';
import { createRuntime } from '../src/server/runtime.js';

const TARGET = fileURLToPath(new URL('../openapi.json', import.meta.url));

/** The document a server with the default settings serves at /openapi.json. */
export async function generateOpenApiText(): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'menu-api-openapi-'));
  const runtime = await createRuntime({ ...DEFAULTS, database: join(folder, 'menu.db') }, { logger: false });
  try {
    const response = await runtime.app.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    return response.body;
  } finally {
    await runtime.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const fresh = await generateOpenApiText();
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(TARGET, 'utf8');
    } catch {
      // missing: reported below like any difference
    }
    if (committed !== fresh) {
      process.stderr.write(
        'openapi.json is not what the route schemas generate. Run `npm run openapi` and commit the result.\n',
      );
      process.exit(1);
    }
    process.stdout.write('openapi.json is up to date.\n');
    return;
  }
  writeFileSync(TARGET, fresh);
  process.stdout.write(`Wrote ${TARGET}\n`);
}

await main();
