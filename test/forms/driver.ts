import type { LightMyRequestResponse } from 'fastify';
import { it } from 'vitest';
import { expectInvalid } from '../helpers/http.js';
import type { Seed, TestRuntime } from '../helpers/runtime.js';

/** The parts of a public request a shared suite varies: credentials and token, and parameters. */
export interface FormRequest {
  /** The credentials and token in this form's names (see `credentials`); any may be missing or wrong. */
  credentials: Record<string, unknown>;
  /** The endpoint's parameters (`since`), where this form carries them. */
  parameters?: Record<string, unknown>;
  /** Headers beyond the ones the form itself sends (`accept-encoding`, `if-none-match`). */
  headers?: Record<string, string>;
}

/**
 * How a shared endpoint suite speaks one request form: where the credentials and token travel, what
 * they are called, and how the validation messages name them. One driver per form, so that a suite
 * written once runs for every form (as Unkey's shared route suites do).
 */
export interface FormDriver {
  id: 'a' | 'b';
  /** How the suite titles name the form: `POST /store (Form A)`. */
  title(path: string): string;
  method: 'POST' | 'GET';
  /** The name of the dispensary token in this form. */
  token: string;
  /** The credential and token names in the order the request schema lists them. */
  secrets: readonly [string, string, string];
  /** What a validation problem calls a credential or token (`field`, `header`). */
  secretCarrier: string;
  /** What a validation problem calls an endpoint parameter (`field`, `query parameter`). */
  parameterCarrier: string;
  /** A seed's credentials and token, in this form's names. */
  credentials(seed: Pick<Seed, 'username' | 'password' | 'token'>): Record<string, string>;
  send(
    runtime: Pick<TestRuntime, 'app'>,
    path: string,
    request: FormRequest,
  ): Promise<LightMyRequestResponse>;
}

export const FORM_A: FormDriver = {
  id: 'a',
  title: (path) => `POST ${path} (Form A)`,
  method: 'POST',
  token: 'collective_token',
  secrets: ['username', 'password', 'collective_token'],
  secretCarrier: 'field',
  parameterCarrier: 'field',
  credentials: (seed) => ({ username: seed.username, password: seed.password, collective_token: seed.token }),
  send: (runtime, path, { credentials, parameters, headers }) =>
    runtime.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ ...credentials, ...parameters }),
    }),
};

export const FORM_B: FormDriver = {
  id: 'b',
  title: (path) => `GET ${path} (Form B)`,
  method: 'GET',
  token: 'store',
  secrets: ['store', 'username', 'password'],
  secretCarrier: 'header',
  parameterCarrier: 'query parameter',
  credentials: (seed) => ({ store: seed.token, username: seed.username, password: seed.password }),
  send: (runtime, path, { credentials, parameters, headers }) => {
    const query = new URLSearchParams(parameters as Record<string, string> | undefined).toString();
    return runtime.app.inject({
      method: 'GET',
      url: query ? `${path}?${query}` : path,
      headers: { ...(credentials as Record<string, string>), ...headers },
    });
  },
};

/** Every form, for `describe.each(FORM_DRIVERS)`. */
export const FORM_DRIVERS: readonly FormDriver[] = [FORM_A, FORM_B];

/**
 * The 400 cases every public endpoint asks alike of its credentials and token: each one missing, all
 * missing at once, and one of 257 characters, each named in the problems. `good` is read when a case
 * runs, since suites make their credentials in beforeAll.
 */
export function itNamesMissingOrLongCredentials(
  form: FormDriver,
  send: (credentials: Record<string, unknown>) => Promise<LightMyRequestResponse>,
  good: () => Record<string, unknown>,
): void {
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
}
