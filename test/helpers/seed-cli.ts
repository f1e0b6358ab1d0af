import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliJson } from './cli.js';
import { SAMPLE_MENU, type Seed, temporaryDirectory } from './runtime.js';

/** Seeds a database through the command line: one dispensary, one credential, the sample menu. */
export async function seedThroughCli(address: string, name = 'Cli Collective'): Promise<Seed> {
  const folder = temporaryDirectory();
  try {
    const file = join(folder.path, 'menu.json');
    writeFileSync(file, JSON.stringify(SAMPLE_MENU));
    const dispensary = await cliJson<{ id: number; token: string }>(address, [
      'dispensary',
      'create',
      '--name',
      name,
    ]);
    const credential = await cliJson<{ username: string; password: string }>(address, [
      'credential',
      'issue',
      '--username',
      'cli-integrator',
    ]);
    await cliJson(address, ['menu', 'import', '--dispensary', String(dispensary.id), file]);
    return { dispensaryId: dispensary.id, token: dispensary.token, ...credential };
  } finally {
    folder.remove();
  }
}

/** Waits until the check holds, polling every 50 ms; throws naming what it waited for. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
