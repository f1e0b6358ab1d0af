import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_GUARD } from '../../src/config.js';
import { BasicCredentials } from '../../src/forms/form-v1/basic-credentials.js';
import { AccessService } from '../../src/services/access.js';
import type { AccessRequest } from '../../src/services/access-request.js';
import { ServiceError } from '../../src/services/errors.js';
import { MemoryLoginGuard } from '../../src/services/login-guard/memory.js';
import { basicAuthorization } from '../helpers/basic-auth.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

/** Basic credentials that count how often their pair is read. */
class CountedCredentials extends BasicCredentials {
  reads = 0;

  override get username(): string {
    this.reads++;
    return super.username;
  }

  override get password(): string {
    this.reads++;
    return super.password;
  }
}

/**
 * The access check's answer remembered under the text the pair was sent in (AccessRequest.sentAs):
 * Form v1's Basic header is decoded only when the answer is not remembered (src/services/access.ts).
 */
describe('the access check of a pair sent as one text', () => {
  let runtime: TestRuntime;
  let access: AccessService;
  beforeEach(async () => {
    runtime = await testRuntime();
    // The public routes' access check, over the runtime's store and feed, with a guard of its own.
    access = new AccessService(runtime.services.store, runtime.feed, {
      rememberCredentialsMs: 60_000,
      guard: new MemoryLoginGuard(DEFAULT_LOGIN_GUARD),
    });
  });
  afterEach(async () => {
    await runtime.close();
  });

  const grant = async (credentials: AccessRequest) => access.grant(credentials, '127.0.0.9');

  it('reads the pair the first time only; another spelling of the header, or a change, reads it again', async () => {
    const { username, password, token } = runtime.seed;
    const header = basicAuthorization(`${username}:${password}`);
    const first = new CountedCredentials(header, token);
    expect(await grant(first)).toMatchObject({ credential: { username } });
    expect(first.reads).toBeGreaterThan(0);

    // The second answer comes from the pair and the token remembered apart, and is remembered whole.
    expect(await grant(new BasicCredentials(header, token))).toMatchObject({ credential: { username } });
    const again = new CountedCredentials(header, token);
    expect(await grant(again)).toMatchObject({ credential: { username } });
    expect(again.reads).toBe(0);

    // The same pair in another header text: another key, decoded and granted alike.
    const respelled = new CountedCredentials(header.replace('Basic', 'basic'), token);
    expect(await grant(respelled)).toMatchObject({ credential: { username } });
    expect(respelled.reads).toBeGreaterThan(0);

    // Another token under the same header: not the remembered answer.
    const otherToken = new CountedCredentials(header, 'no-such-token');
    expect(await grant(otherToken)).toMatchObject({ code: 'invalid_token' });

    // A credential change forgets every remembered answer: the revoked pair is refused.
    await runtime.services.credentials.revoke(username);
    await runtime.feed.poll();
    const revoked = new CountedCredentials(header, token);
    expect(await grant(revoked)).toMatchObject({ code: 'invalid_credentials' });
    expect(revoked.reads).toBeGreaterThan(0);
  });

  it('reads the username for the login guard once a login failed, and refuses a malformed header with 400', async () => {
    const { username, password, token } = runtime.seed;
    const header = basicAuthorization(`${username}:${password}`);
    for (let time = 0; time < 2; time++)
      expect(await grant(new BasicCredentials(header, token))).toMatchObject({ credential: { username } });
    expect(await grant(new BasicCredentials(basicAuthorization(`${username}:wrong`), token))).toMatchObject({
      code: 'invalid_credentials',
    });
    // The guard now counts a failure: it reads the username even for a remembered header.
    const guarded = new CountedCredentials(header, token);
    expect(await grant(guarded)).toMatchObject({ credential: { username } });
    expect(guarded.reads).toBeGreaterThan(0);

    let refusal: unknown;
    try {
      await grant(new BasicCredentials('Basic bm8tY29sb24=', token));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal).toMatchObject({ code: 'invalid_request' });
  });
});
