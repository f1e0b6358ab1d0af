import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { ScryptCost } from '../../src/auth/password.js';
import type { ServerConfig } from '../../src/config.js';
import { CLI_OPERATOR } from '../../src/services/accounts.js';
import type { Account, AccountRole } from '../../src/store/store.js';
import { UNLIMITED } from './admin.js';
import { type HttpAnswer, send } from './process.js';
import { testRuntime } from './runtime.js';

/** The password every account of these tests chooses. */
export const PASSWORD = 'correct horse battery staple';

/** A console session: its cookie, and the CSRF token its writes send. */
export interface Session {
  cookie: string;
  csrf: string;
}

/** The session a sign-in (201) started. */
export function sessionOf(answer: HttpAnswer): Session {
  expect(answer.status, answer.body).toBe(201);
  const cookie = String([answer.headers['set-cookie']].flat()[0]).split(';')[0]!;
  return { cookie, csrf: JSON.parse(answer.body).csrf_token };
}

/**
 * A test runtime listening on a loopback port without rate limits, for the console's account routes
 * over real HTTP: `call` sends from the server's own origin (with a session's cookie, and its CSRF token
 * when it has one; `headers` last, to change or take any of them away), `account` makes an account
 * (staff of the seeded dispensary unless told) whose password is PASSWORD.
 */
export async function listeningForAccounts(config: Partial<ServerConfig> = {}, scryptCost?: ScryptCost) {
  const runtime = await testRuntime({ config: { ...UNLIMITED, ...config }, scryptCost });
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`;
  const call = (
    method: string,
    path: string,
    session?: Partial<Session>,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    send(`${base}/admin/v1${path}`, {
      method,
      headers: {
        origin: base,
        ...(session?.cookie === undefined ? {} : { cookie: session.cookie }),
        ...(session?.csrf === undefined ? {} : { 'x-csrf-token': session.csrf }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const account = async (email: string, role: AccountRole = 'staff'): Promise<Account> => {
    const dispensaryIds = role === 'operator' ? [] : [runtime.seed.dispensaryId];
    const issued = await runtime.services.accounts.invite({ email, role, dispensaryIds }, CLI_OPERATOR, base);
    return runtime.services.accounts.redeemLink(new URL(issued.url).hash.slice(1), PASSWORD);
  };
  return { runtime, base, call, account };
}
