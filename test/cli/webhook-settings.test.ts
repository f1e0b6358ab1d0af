import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/runtime.js';

assertBuilt();

/** `webhook add` of the credential nobody to dispensary 1 (neither exists), with `flags`, in JSON. */
const addWebhook = (database: string, url: string, flags: string[], env: Record<string, string> = {}) =>
  runCli(
    database,
    ['webhook', 'add', '--credential', 'nobody', '--dispensary', '1', '--url', url, ...flags, '--json'],
    { env },
  );

/**
 * The webhook commands read the global settings through the settings table, as `serve` does: a
 * switch's variable says true or false, and anything else is a usage error (issue 28: no setting is
 * read from the environment outside the table).
 */
describe('the webhook commands and WEBHOOK_ALLOW_PRIVATE', () => {
  const directory = temporaryDirectory();
  const database = join(directory.path, 'menu.db');
  afterAll(() => directory.remove());

  /** Subscribes an http:// loopback URL: only allowed with the development switch on. */
  const add = (env: Record<string, string>) => addWebhook(database, 'http://127.0.0.1:9/hook', [], env);

  it('reads the variable as true or false, and refuses anything else', async () => {
    // The first creates the database; a garbled value stops before it is opened.
    const off = await add({ WEBHOOK_ALLOW_PRIVATE: 'false' });
    const [on, garbled] = await Promise.all([
      add({ WEBHOOK_ALLOW_PRIVATE: 'true' }),
      add({ WEBHOOK_ALLOW_PRIVATE: 'maybe' }),
    ]);
    // Off: the URL is refused before anything is looked up.
    expect(JSON.parse(off.stdout).error.message).toContain('http:// only with --webhook-allow-private');
    // On: the URL passes, and the dispensary that does not exist is what fails.
    expect(JSON.parse(on.stdout).error.code).toBe('not_found');
    expect(garbled.code).toBe(1);
    expect(garbled.stderr).toContain(
      `option '--webhook-allow-private' value 'maybe' from env 'WEBHOOK_ALLOW_PRIVATE' is invalid`,
    );
  }, 60_000);
});

describe('webhook add --form', () => {
  const directory = temporaryDirectory();
  afterAll(() => directory.remove());

  it('refuses a form that is not a request form, naming those there are', async () => {
    const refused = await addWebhook(join(directory.path, 'menu.db'), 'https://hooks.example.com/menu', [
      '--form',
      'c',
    ]);
    const { error } = JSON.parse(refused.stdout);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('form must be');
    expect(error.message).toContain('a, b, v1');
  }, 60_000);
});
