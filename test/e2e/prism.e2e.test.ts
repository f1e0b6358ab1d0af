import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  cleanEnvironment,
  commandJson,
  REPOSITORY,
  type ServerProcess,
  startListening,
  startServe,
} from '../helpers/cli.js';
import { commandsOf, manualBlocks, README_ADDRESS, runBlock } from '../helpers/manual.js';
import { type TestDatabase, testDatabase } from '../helpers/runtime.js';

/**
 * openapi.json as a validating proxy reads it (issue 29): Prism (`@stoplight/prism-cli`, pinned to
 * 5.14.2, the last release that runs on Node 20; it has no install script, sends no telemetry and here
 * fetches nothing: the document has no remote reference) stands on loopback between the manual's
 * examples and a real demo server. With `--errors`, a request the document does not describe is
 * refused with 422 and never reaches the server, as a client generated from the document would be.
 */
const PRISM = join(REPOSITORY, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

/** A curl command of the manual that sends a Form A request: a body to a public endpoint. */
const FORM_A_CALL = new RegExp(
  `\\bcurl\\s.*${README_ADDRESS.replaceAll('.', '\\.')}/(menu|store|inventory|changes|events)\\b.*\\s(-d|--data[a-z-]*)\\s`,
);

describe('the manual through Prism, a validating proxy reading openapi.json', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let prism: ServerProcess;

  beforeAll(async () => {
    assertBuilt();
    database = await testDatabase();
    server = await startServe(database.address, ['--demo']);
    prism = await startListening(
      'prism',
      [PRISM, 'proxy', 'openapi.json', server.url, '--host', '127.0.0.1', '--port', '0', '--errors'],
      /Prism is listening on (http:\/\/\S+)/,
    );
  }, 90_000);
  afterAll(async () => {
    await prism?.stop();
    await server?.stop();
    await database?.cleanup();
  });

  it('refuses with 422 a Form A request the document does not describe (the proxy does validate)', async () => {
    const response = await fetch(`${prism.url}/menu`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo', password: 'demo-password' }),
    });
    expect(response.status).toBe(422);
    expect(JSON.stringify(await response.json())).toContain('collective_token');
  });

  it('runs every Form A example of the README and docs/ as written: each request is one the document describes', async () => {
    const blocks = manualBlocks().filter(
      (block) => !block.skip && commandsOf(block).some((command) => FORM_A_CALL.test(command)),
    );
    expect(blocks.map((block) => block.page)).toEqual(
      expect.arrayContaining(['README.md', 'docs/calling.md', 'docs/live.md']),
    );
    const failures: string[] = [];
    for (const block of blocks) {
      const code = block.code.replaceAll(README_ADDRESS, prism.url);
      const result = await runBlock(code, cleanEnvironment());
      if (result.code !== 0)
        failures.push(`${block.page} line ${block.line}:\n${code}\n${result.stdout}${result.stderr}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('signs in to the console with the admin key in the body and no Authorization header (security: [])', async () => {
    const { key } = await commandJson<{ key: string }>(database.address, [
      'admin-key',
      'create',
      '--scope',
      'all',
      '--name',
      'prism-sign-in',
    ]);
    const response = await fetch(`${prism.url}/admin/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(response.headers.get('set-cookie')).toContain('menu_console_session=');
  });
});
