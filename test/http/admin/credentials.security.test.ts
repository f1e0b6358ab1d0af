import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, expectNoSecrets, syncTestRuntime } from '../../helpers/admin.js';
import { describeAdminKeyRefusals, secretWatch } from '../../helpers/admin-roles.js';
import { expectError, formBHeaders, SQL_METACHARACTERS } from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

describe('sync API: credentials, security', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let scoped: AdminCall;
  let adminSecret: string;
  const watch = secretWatch();
  const { secrets, errorBodies, remember } = watch;
  const usernames = async () =>
    (await admin('GET', '/credentials')).json().map((entry: { username: string }) => entry.username);
  const seedWorks = async () =>
    (await runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(runtime.seed) }))
      .statusCode;

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    const all = await adminKey(runtime, 'all', 'operator');
    admin = all.call;
    adminSecret = all.key;
    const limited = await adminKey(runtime, `dispensary:${runtime.seed.dispensaryId}`, 'shop-pos');
    scoped = limited.call;
    secrets.push(all.key, limited.key, runtime.seed.password, runtime.seed.token);
  });
  afterAll(() => runtime.close());

  describeAdminKeyRefusals({
    watch,
    context: () => ({ runtime, key: adminSecret, token: runtime.seed.token }),
    routes: () => [
      ['POST', '/credentials', { username: 'intruder' }],
      ['GET', '/credentials', undefined],
      ['DELETE', '/credentials/integrator', undefined],
    ],
    proof: () => ['GET', '/credentials', undefined],
    state: async () => {
      expect(await seedWorks()).toBe(200);
      return usernames();
    },
  });

  describe('403: credentials belong to the operator; a dispensary-scoped key touches none', () => {
    it('issue', async () => {
      const before = await usernames();
      const error = expectError(
        remember(await scoped('POST', '/credentials', { username: 'sneaky' })),
        403,
        'forbidden',
      );
      expect(error.message).toContain('scope all');
      expect(await usernames()).toEqual(before);
    });

    it('list', async () => {
      expectError(remember(await scoped('GET', '/credentials')), 403, 'forbidden');
    });

    it('revoke', async () => {
      expectError(remember(await scoped('DELETE', '/credentials/integrator')), 403, 'forbidden');
      expect(await seedWorks()).toBe(200);
    });

    it('revoke of a username that does not exist: the same 403 (no probing)', async () => {
      expectError(remember(await scoped('DELETE', '/credentials/nobody-here')), 403, 'forbidden');
    });
  });

  describe('SQL metacharacters: never a 500, never a match', () => {
    it.each(SQL_METACHARACTERS)(
      'as the username to revoke: %j is 404 (or 400), and integrator still works',
      async (value) => {
        const response = remember(await admin('DELETE', `/credentials/${encodeURIComponent(value)}`));
        expect([400, 404]).toContain(response.statusCode);
        expect(await seedWorks()).toBe(200);
      },
    );

    it.each(SQL_METACHARACTERS.filter((value) => !/^[A-Za-z0-9._@-]+$/.test(value)))(
      'as a username to issue: %j is refused (400)',
      async (value) => {
        expectError(
          remember(await admin('POST', '/credentials', { username: value })),
          400,
          'invalid_request',
        );
      },
    );

    it.each(['integrato_', 'integrat%', '%', 'INTEGRATOR'])(
      '%j matches no credential (no LIKE, exact case)',
      async (value) => {
        expectError(
          remember(await admin('DELETE', `/credentials/${encodeURIComponent(value)}`)),
          404,
          'not_found',
        );
        expect(await seedWorks()).toBe(200);
      },
    );
  });

  describe('no secret is written down or echoed', () => {
    it('passwords handed out are in neither the list nor the audit log', async () => {
      for (const username of ['one', 'two', 'three']) {
        const issued = (await admin('POST', '/credentials', { username })).json();
        secrets.push(issued.password);
      }
      await admin('DELETE', '/credentials/two');
      expectNoSecrets((await admin('GET', '/credentials')).body, secrets);
      expectNoSecrets(JSON.stringify(await auditLog(runtime)), secrets);
    });

    it('no error body carried a secret', () => {
      expect(errorBodies.length).toBeGreaterThan(40);
      expectNoSecrets(errorBodies.join('\n'), secrets);
    });
  });
});
