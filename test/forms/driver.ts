import { Agent, request as httpRequest, type OutgoingHttpHeaders, validateHeaderValue } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { it } from 'vitest';
import { type EventStreamClient, openEvents } from '../helpers/events.js';
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
  /**
   * Sends a request the way this form's clients do: over real HTTP to the app, listening (see
   * `listening`), so that it meets what `inject` never reaches: the read lane and Node's own parsing.
   */
  send(
    runtime: Pick<TestRuntime, 'app'>,
    path: string,
    request: FormRequest,
  ): Promise<LightMyRequestResponse>;
  /**
   * Sends a request as `send` does to an endpoint that answers with an event stream (/events), and
   * resolves once the stream has opened (200), or with the whole answer when it is refused.
   */
  stream(runtime: Pick<TestRuntime, 'app'>, path: string, request: FormRequest): Promise<EventStreamClient>;
}

/** Each app's address once it listens (on a port of its own, 127.0.0.1), for the drivers' requests. */
const addresses = new WeakMap<FastifyInstance, Promise<string>>();

/** The app's base URL, listening from the first call on (the runtime's close stops it). */
export function listening(app: FastifyInstance): Promise<string> {
  let address = addresses.get(app);
  if (!address) {
    address = app.listen({ host: '127.0.0.1', port: 0 });
    addresses.set(app, address);
  }
  return address;
}

/** Connections kept open between the drivers' requests, as a client's are (the runtime's close ends them). */
const agent = new Agent({ keepAlive: true });

/**
 * Whether HTTP can carry these header values as they are: no HTTP client sends a NUL or a character
 * beyond Latin-1, and the parser trims the whitespace around a value. Such values reach the app only
 * through `inject`, which the suites keep for them (what the app does with them still matters: a proxy
 * may pass anything on).
 */
function sendableOverHttp(headers: OutgoingHttpHeaders): boolean {
  return Object.entries(headers).every(([name, value]) => {
    if (typeof value !== 'string') return true;
    try {
      validateHeaderValue(name, value);
    } catch {
      return false;
    }
    return value === value.trim();
  });
}

/**
 * One request over HTTP, answered as `inject` answers (status, headers, the body's bytes as sent,
 * still encoded, and its text), so that the shared suites' assertions read it alike.
 */
async function overHttp(
  app: FastifyInstance,
  method: 'GET' | 'POST',
  path: string,
  headers: OutgoingHttpHeaders,
  body?: string,
): Promise<LightMyRequestResponse> {
  if (!sendableOverHttp(headers)) return app.inject({ method, url: path, headers, payload: body });
  const base = await listening(app);
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const rawPayload = Buffer.concat(chunks);
        const text = rawPayload.toString('utf8');
        const answer: Omit<LightMyRequestResponse, 'raw'> = {
          statusCode: response.statusCode!,
          statusMessage: response.statusMessage ?? '',
          headers: response.headers,
          trailers: {},
          rawPayload,
          payload: text,
          body: text,
          json: () => JSON.parse(text),
          stream: () => Readable.from([rawPayload]),
          cookies: [],
          isLightMyRequest: true,
        };
        // `raw` holds inject's server-side objects, which a real client never has (nothing reads them).
        resolve({ ...answer, raw: {} as LightMyRequestResponse['raw'] });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
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
  send: (runtime, path, { credentials, parameters, headers }) => {
    const body = JSON.stringify({ ...credentials, ...parameters });
    return overHttp(
      runtime.app,
      'POST',
      path,
      { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      body,
    );
  },
  stream: async (runtime, path, { credentials, parameters, headers }) =>
    openEvents(`${await listening(runtime.app)}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ ...credentials, ...parameters }),
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
  send: (runtime, path, { credentials, parameters, headers }) =>
    overHttp(runtime.app, 'GET', withQuery(path, parameters), {
      ...(credentials as Record<string, string>),
      ...headers,
    }),
  stream: async (runtime, path, { credentials, parameters, headers }) =>
    openEvents(`${await listening(runtime.app)}${withQuery(path, parameters)}`, {
      headers: { ...(credentials as Record<string, string>), ...headers },
    }),
};

/** `path` with Form B's parameters as its query string. */
function withQuery(path: string, parameters: Record<string, unknown> | undefined): string {
  const query = new URLSearchParams(parameters as Record<string, string> | undefined).toString();
  return query ? `${path}?${query}` : path;
}

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
