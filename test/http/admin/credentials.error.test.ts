import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, syncTestRuntime } from '../../helpers/admin.js';
import { expectError, expectInvalid } from '../../helpers/http.js';
import type { TestRuntime } from '../../helpers/runtime.js';

describe('sync API: credentials, errors', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  const usernames = async () =>
    (await admin('GET', '/credentials')).json().map((entry: { username: string }) => entry.username);

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    admin = (await adminKey(runtime)).call;
  });
  afterAll(() => runtime.close());

  describe('400 on issue, and nothing is created', () => {
    it('a missing username', async () => {
      expectInvalid(await admin('POST', '/credentials', {}), [
        { field: 'username', message: 'field is required' },
      ]);
    });

    it.each([
      ['empty', '', 'field must have at least 1 character'],
      ['65 characters', 'u'.repeat(65), 'field must have at most 64 characters'],
      ['a number', 42, 'field must be string'],
      ['null', null, 'field must be string'],
    ])('a username that is %s', async (_label, username, message) => {
      expectInvalid(await admin('POST', '/credentials', { username }), [{ field: 'username', message }]);
    });

    it.each(['with space', 'semi;colon', "quo'te", 'slash/name', 'ünïcode', 'tab\tname', 'nul\0name'])(
      'a username with a character outside letters, digits and ._@-: %j',
      async (username) => {
        const before = await usernames();
        const error = expectError(await admin('POST', '/credentials', { username }), 400, 'invalid_request');
        expect(error.message).toContain('letters, digits, dot, underscore, @ or hyphen');
        expect(await usernames()).toEqual(before);
      },
    );

    it('a body that is not an object, or not JSON', async () => {
      expectInvalid(await admin('POST', '/credentials', ['someone']), [
        { field: 'body', message: 'must be a JSON object' },
      ]);
      expectError(await admin('POST', '/credentials', '{"username": '), 400, 'invalid_request');
    });
  });

  describe('409: a username that exists', () => {
    it('an active one', async () => {
      const error = expectError(
        await admin('POST', '/credentials', { username: 'integrator' }),
        409,
        'conflict',
      );
      expect(error.message).toContain('integrator');
      expect(error.message).not.toContain(runtime.seed.password);
    });

    it('a revoked one is never reused', async () => {
      await admin('POST', '/credentials', { username: 'retired' });
      await admin('DELETE', '/credentials/retired');
      expectError(await admin('POST', '/credentials', { username: 'retired' }), 409, 'conflict');
    });
  });

  describe('404 on revoke', () => {
    it('an unknown username', async () => {
      const error = expectError(await admin('DELETE', '/credentials/nobody'), 404, 'not_found');
      expect(error.message).toContain('nobody');
    });

    it('revoking twice: 204, then 404, and one audit entry', async () => {
      await admin('POST', '/credentials', { username: 'twice' });
      const audited = (await auditLog(runtime)).length;
      expect((await admin('DELETE', '/credentials/twice')).statusCode).toBe(204);
      expectError(await admin('DELETE', '/credentials/twice'), 404, 'not_found');
      expect((await auditLog(runtime)).length).toBe(audited + 1);
    });

    it('a 65-character username in the path: 400 naming it', async () => {
      const error = expectError(
        await admin('DELETE', `/credentials/${'u'.repeat(65)}`),
        400,
        'invalid_request',
      );
      expect(error.problems?.[0]?.field).toBe('username');
    });
  });

  describe('Idempotency-Key', () => {
    it('the same key with another username: 422, and that credential is not created', async () => {
      const headers = { 'idempotency-key': 'issue-key' };
      expect((await admin('POST', '/credentials', { username: 'first-name' }, headers)).statusCode).toBe(201);
      expectError(
        await admin('POST', '/credentials', { username: 'second-name' }, headers),
        422,
        'unprocessable',
      );
      expect(await usernames()).not.toContain('second-name');
    });
  });

  it('405: PUT /credentials names the allowed methods', async () => {
    const response = await runtime.app.inject({ method: 'PUT', url: '/admin/v1/credentials' });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toContain('POST');
  });
});
