import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, syncTestRuntime } from '../../helpers/admin.js';
import { formABody, formBHeaders } from '../../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('sync API: credentials, happy paths', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  const menuB = (username: string, password: string) =>
    runtime.app.inject({
      method: 'GET',
      url: '/menu',
      headers: formBHeaders({ ...runtime.seed, username, password }),
    });
  const menuA = (username: string, password: string) =>
    runtime.app.inject({
      method: 'POST',
      url: '/menu',
      payload: formABody({ ...runtime.seed, username, password }),
    });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    admin = (await adminKey(runtime, 'all', 'operator')).call;
  });
  afterAll(() => runtime.close());

  it('issue: 201 with the username and the password (once); it works at once in both forms', async () => {
    const response = await admin('POST', '/credentials', { username: 'partner-app' });
    expect(response.statusCode, response.body).toBe(201);
    const issued = response.json();
    expect(Object.keys(issued)).toEqual(['username', 'password']);
    expect(issued.username).toBe('partner-app');
    expect(issued.password.length).toBeGreaterThanOrEqual(20);
    expect((await menuB(issued.username, issued.password)).statusCode).toBe(200);
    expect((await menuA(issued.username, issued.password)).statusCode).toBe(200);
  });

  it('two credentials get different passwords', async () => {
    const first = (await admin('POST', '/credentials', { username: 'app.one' })).json();
    const second = (await admin('POST', '/credentials', { username: 'app_two@example' })).json();
    expect(first.password).not.toBe(second.password);
  });

  it('list: username and times only, never a password or a hash', async () => {
    const response = await admin('GET', '/credentials');
    expect(response.statusCode).toBe(200);
    const list = response.json();
    expect(list.map((entry: { username: string }) => entry.username)).toEqual([
      'integrator',
      'partner-app',
      'app.one',
      'app_two@example',
    ]);
    for (const entry of list) {
      expect(entry).toMatchObject({ username: expect.any(String), revoked_at: null });
      expect(Object.keys(entry).filter((key) => /password|hash|secret/i.test(key))).toEqual([]);
      expect(entry.created_at).toMatch(ISO);
    }
    expect(response.body).not.toContain(runtime.seed.password);
    expect(response.body).not.toMatch(/scrypt|\$[0-9a-z]+\$/i);
  });

  it('revoke: 204; the list shows when; the password gets 401 on /menu at once (also when remembered)', async () => {
    const issued = (await admin('POST', '/credentials', { username: 'to-revoke' })).json();
    expect((await menuB(issued.username, issued.password)).statusCode).toBe(200);
    const response = await admin('DELETE', '/credentials/to-revoke');
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await menuB(issued.username, issued.password)).statusCode).toBe(401);
    expect((await menuA(issued.username, issued.password)).statusCode).toBe(401);
    const entry = (await admin('GET', '/credentials'))
      .json()
      .find((c: { username: string }) => c.username === 'to-revoke');
    expect(entry.revoked_at).toMatch(ISO);
  });

  it('revoking one credential leaves the others working', async () => {
    expect((await menuB(runtime.seed.username, runtime.seed.password)).statusCode).toBe(200);
  });

  it('every write is in the audit log by key name, with the username only', async () => {
    const entries = (await auditLog(runtime)).filter((entry) => entry.actor === 'key:operator');
    expect(entries.map((entry) => [entry.action, entry.detail.username])).toEqual([
      ['credential.issue', 'partner-app'],
      ['credential.issue', 'app.one'],
      ['credential.issue', 'app_two@example'],
      ['credential.issue', 'to-revoke'],
      ['credential.revoke', 'to-revoke'],
    ]);
    for (const entry of entries) expect(entry.dispensaryId).toBeNull();
  });

  it('an issue repeated with its Idempotency-Key: 409 (the password is not kept), no second credential', async () => {
    const headers = { 'idempotency-key': 'issue-once' };
    const first = await admin('POST', '/credentials', { username: 'once-only' }, headers);
    expect(first.statusCode).toBe(201);
    const again = await admin('POST', '/credentials', { username: 'once-only' }, headers);
    expect(again.statusCode).toBe(409);
    expect(again.body).not.toContain(first.json().password);
    expect((await menuB('once-only', first.json().password)).statusCode).toBe(200);
  });

  it('a revoke repeated with its Idempotency-Key: 204 again, replayed', async () => {
    await admin('POST', '/credentials', { username: 'revoke-twice' });
    const headers = { 'idempotency-key': 'revoke-once' };
    expect((await admin('DELETE', '/credentials/revoke-twice', undefined, headers)).statusCode).toBe(204);
    const again = await admin('DELETE', '/credentials/revoke-twice', undefined, headers);
    expect(again.statusCode).toBe(204);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});
