import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { expectError, expectInvalid, expectInvalidCredentials, expectInvalidToken } from '../helpers/http.js';
import type { TestRuntime } from '../helpers/runtime.js';
import type { FormDriver } from './driver.js';

/**
 * What the shared credential cases need of a suite: its form, how it sends credentials and token to its
 * endpoint, good ones, and its runtime. `good` and `runtime` are read when a case runs, since suites
 * make them in beforeAll.
 */
export interface CredentialSuite {
  form: FormDriver;
  send: (credentials: Record<string, unknown>) => Promise<LightMyRequestResponse>;
  good: () => Record<string, unknown>;
  runtime: () => TestRuntime;
}

/**
 * The cases every public endpoint answers alike about its credentials and token, each to be called
 * inside the suite's describe where it belongs.
 */
export function credentialCases({ form, send, good, runtime }: CredentialSuite) {
  return {
    /** 400: each one missing, all missing at once, and one of 257 characters, each named. */
    itNamesMissingOrLong(): void {
      it.each(form.secrets)('%s missing', async (name) => {
        const { [name]: _dropped, ...rest } = good();
        expectInvalid(await send(rest), [{ field: name, message: `${form.secretCarrier} is required` }]);
      });

      it('every credential missing at once, each named', async () => {
        expectInvalid(
          await send({}),
          form.secrets.map((field) => ({ field, message: `${form.secretCarrier} is required` })),
        );
      });

      it.each(form.secrets)('%s of 257 characters', async (name) => {
        expectInvalid(await send({ ...good(), [name]: 'x'.repeat(257) }), [
          { field: name, message: `${form.secretCarrier} must have at most 256 characters` },
        ]);
      });
    },

    /** 401: a wrong password, and a username nobody has. */
    itRefusesWrongCredentials(): void {
      it.each([
        ['a wrong password', { password: 'wrong-password' }],
        ['an unknown username', { username: 'nobody' }],
      ])('%s', async (_label, wrong) => {
        expectInvalidCredentials(await send({ ...good(), ...wrong }));
      });
    },

    /** Form B's 400 for each credential or token sent twice (even with the same value), before the credentials are checked. */
    itRefusesRepeatedHeaders(): void {
      it.each(form.secrets)('%s sent twice (even with the same value)', async (name) => {
        const value = good()[name] as string;
        const error = expectError(await send({ ...good(), [name]: [value, value] }), 400, 'invalid_request');
        expect(error.message).toBe(`The header "${name}" was sent more than once; send it once.`);
      });

      it('a repeated header is refused before the credentials are checked', async () => {
        const error = expectError(
          await send({ store: 'bad', username: ['nobody', 'nobody'], password: 'wrong' }),
          400,
          'invalid_request',
        );
        expect(error.message).toBe('The header "username" was sent more than once; send it once.');
      });
    },

    /**
     * A credential revoked, and a dispensary removed, are refused from the next request on (each
     * works first). `label` names what the cases issue and create.
     */
    itRefusesRevokedAtOnce(label: string): void {
      it('401: a revoked credential, at once', async () => {
        const issued = await runtime().services.credentials.issue(`${label}-revoked`);
        const own = { ...good(), username: issued.username, password: issued.password };
        expect((await send(own)).statusCode).toBe(200);
        await runtime().services.credentials.revoke(issued.username);
        expectInvalidCredentials(await send(own));
      });

      it('403: the token of a removed dispensary, at once', async () => {
        const created = await runtime().services.dispensaries.create(`${label} closing`);
        const own = { ...good(), [form.token]: created.token };
        expect((await send(own)).statusCode).toBe(200);
        await runtime().services.dispensaries.remove(created.id);
        expectInvalidToken(await send(own));
      });
    },
  };
}
