import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdminCall,
  type AdminMethod,
  adminCaller,
  adminKey,
  auditLog,
  expectNoSecrets,
  syncTestRuntime,
} from './admin.js';
import { expectError } from './http.js';
import { SAMPLE_MENU, type TestRuntime } from './runtime.js';

/** One sync API request: method, path below /admin/v1, body. */
export type AdminRequest = readonly [AdminMethod, string, unknown];

/** What the sync API says to a header without a usable key: none, the wrong shape, or a key it does not know. */
function bearerMessage(header: string | undefined): string {
  if (header === undefined)
    return 'The sync API needs an admin key: send Authorization: Bearer <admin key>. Create one with: npx menu-api admin-key create --scope all --name NAME';
  if (!/^Bearer ([\x21-\x7e]{1,200})$/i.test(header))
    return 'The Authorization header is not "Bearer <admin key>". Send the key after "Bearer " and one space.';
  return 'This admin key is unknown or has been revoked. Check that you sent the whole key, or create a new one with: npx menu-api admin-key create --scope all --name NAME (npx menu-api admin-key list shows which keys are revoked).';
}

/**
 * Authorization headers that carry no usable admin key. `<key>` and `<KEY>` stand for a real key,
 * `<token>` for a dispensary token and `<password>` for an integrator password.
 */
const UNUSABLE_KEYS: readonly [string, string | null][] = [
  ['no Authorization header', null],
  ['an empty header', ''],
  ['Bearer and nothing', 'Bearer '],
  ['a garbage key', 'Bearer mak_this-is-not-a-key'],
  ['the right key with Basic', 'Basic <key>'],
  ['the right key without the scheme', '<key>'],
  ['the right key with a space after it', 'Bearer <key> x'],
  ['the right key in another case', 'Bearer <KEY>'],
  ['a dispensary token as the key', 'Bearer <token>'],
  ['an integrator password as the key', 'Bearer <password>'],
  ['SQL as the key', "Bearer ' OR 1=1 --"],
  ['a very long key', `Bearer ${'k'.repeat(5000)}`],
];

/**
 * What a security suite of the sync API collects as it goes: the secrets it hands out, and the body
 * of every refusal, so that its last case can check no secret was written down or echoed.
 */
export function secretWatch() {
  const secrets: string[] = [];
  const errorBodies: string[] = [];
  /** Passes `response` through, keeping its body when it is a refusal. */
  const remember = <T extends { body: string; statusCode: number }>(response: T): T => {
    if (response.statusCode >= 400) errorBodies.push(response.body);
    return response;
  };
  /** Asserts that no secret is in the audit log or in a refusal (and that there were refusals). */
  const expectNoneLeaked = async (runtime: TestRuntime, refusals: number) => {
    expectNoSecrets(JSON.stringify(await auditLog(runtime)), secrets);
    expect(errorBodies.length).toBeGreaterThan(refusals);
    expectNoSecrets(errorBodies.join('\n'), secrets);
  };
  return { secrets, errorBodies, remember, expectNoneLeaked };
}

export interface AdminRoutes {
  /** The runtime under test, a key with scope all, and a dispensary token: ready when a case runs. */
  context(): { runtime: TestRuntime; key: string; token: string };
  /** The requests of this part of the sync API; every one must refuse a request without a usable key. */
  routes(): readonly AdminRequest[];
  /** What a refused request must leave alone (compared before and after). */
  state(): Promise<unknown>;
  /** A request a key with scope all may make; by default the first route. */
  proof?(): AdminRequest;
  /** More to check once the revoked key is refused, given the state then. */
  afterRevoked?(state: unknown): void;
  watch: ReturnType<typeof secretWatch>;
}

/**
 * The 401 suite every part of the sync API runs (as Unkey's shared route role tests): each unusable
 * Authorization header, and a key revoked right after it worked, is refused on every route with the
 * same answer, and changes nothing.
 */
export function describeAdminKeyRefusals(suite: AdminRoutes): void {
  const { remember, secrets } = suite.watch;

  describe('401 without a usable admin key, and nothing changes', () => {
    it.each(UNUSABLE_KEYS)('%s', async (_label, header) => {
      const { runtime, key, token } = suite.context();
      const before = await suite.state();
      const call = adminCaller(runtime.app, null);
      for (const [method, path, body] of suite.routes()) {
        const value = header
          ?.replace('<key>', key)
          .replace('<KEY>', key.toUpperCase())
          .replace('<token>', token)
          .replace('<password>', runtime.seed.password);
        const response = remember(
          await call(method, path, body, value === undefined ? {} : { authorization: value }),
        );
        const error = expectError(response, 401, 'invalid_credentials');
        expect(error.message).toBe(bearerMessage(value));
      }
      expect(await suite.state()).toEqual(before);
    });

    it('a revoked key: 401 at once, even right after it worked', async () => {
      const { runtime } = suite.context();
      const doomed = await adminKey(runtime, 'all');
      secrets.push(doomed.key);
      const [method, path, body] = suite.proof?.() ?? suite.routes()[0]!;
      const worked = await doomed.call(method, path, body);
      expect(worked.statusCode, worked.body).toBeLessThan(300);
      await runtime.services.adminKeys.revoke(doomed.name);
      const before = await suite.state();
      for (const [method, path, body] of suite.routes()) {
        expectError(remember(await doomed.call(method, path, body)), 401, 'invalid_credentials');
      }
      expect(await suite.state()).toEqual(before);
      suite.afterRevoked?.(before);
    });
  });
}

/**
 * What a security suite of the sync API starts from, beside the seed's dispensary: a second
 * dispensary (created from `other`, given `otherMenu`), a key with scope all ("operator") and a key
 * limited to the seed's dispensary. Every secret among them goes into `secrets`.
 */
async function securityFixture(
  runtime: TestRuntime,
  options: { other: Record<string, unknown>; otherMenu?: unknown[]; scopedName: string },
  secrets: string[],
) {
  const all = await adminKey(runtime, 'all', 'operator');
  const created = (await all.call('POST', '/dispensaries', options.other)).json();
  const other: { id: number; token: string } = { id: created.id, token: created.token };
  if (options.otherMenu) {
    const put = await all.call('PUT', `/dispensaries/${other.id}/menu`, options.otherMenu);
    expect(put.statusCode, put.body).toBe(200);
  }
  const limited = await adminKey(runtime, `dispensary:${runtime.seed.dispensaryId}`, options.scopedName);
  secrets.push(all.key, limited.key, runtime.seed.token, runtime.seed.password, other.token);
  return { admin: all.call, adminSecret: all.key, other, scoped: limited.call };
}

/** A security suite's world, filled in before its first test: read its fields inside tests and hooks only. */
export interface SecuritySuite {
  watch: ReturnType<typeof secretWatch>;
  runtime: TestRuntime;
  /** The operator's key and calls with it. */
  adminSecret: string;
  admin: AdminCall;
  /** Calls with the key limited to the seed's dispensary. */
  scoped: AdminCall;
  other: { id: number; token: string };
}

/**
 * The set-up every security suite of the sync API shares: a sync test runtime (given `runtimeOptions`)
 * with the `securityFixture` on it before the suite's tests, closed after them.
 */
export function securitySuite(
  runtimeOptions: Parameters<typeof syncTestRuntime>[0],
  fixture: Parameters<typeof securityFixture>[1],
): SecuritySuite {
  const watch = secretWatch();
  // Filled in by beforeAll, before any test or hook of the suite reads it.
  const suite = { watch } as SecuritySuite;
  beforeAll(async () => {
    suite.runtime = await syncTestRuntime(runtimeOptions);
    Object.assign(suite, await securityFixture(suite.runtime, fixture, watch.secrets));
  });
  afterAll(() => suite.runtime.close());
  return suite;
}

/** A security suite whose two dispensaries both hold SAMPLE_MENU: the other one named `otherName`. */
export function sampleMenuSuite(otherName: string, scopedName: string): SecuritySuite {
  return securitySuite(
    { menu: SAMPLE_MENU },
    { other: { name: otherName }, otherMenu: SAMPLE_MENU, scopedName },
  );
}

/**
 * describeAdminKeyRefusals on the other dispensary of a security suite: `routes` given its id, the
 * suite's operator key, and the other dispensary's token as the token that is no key.
 */
export function describeRefusalsOnOther(
  suite: SecuritySuite,
  routes: (otherId: number) => readonly AdminRequest[],
  rest: Pick<AdminRoutes, 'state' | 'proof' | 'afterRevoked'>,
): void {
  describeAdminKeyRefusals({
    watch: suite.watch,
    context: () => ({ runtime: suite.runtime, key: suite.adminSecret, token: suite.other.token }),
    routes: () => routes(suite.other.id),
    ...rest,
  });
}
