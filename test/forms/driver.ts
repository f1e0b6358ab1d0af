import { Agent, request as httpRequest, type OutgoingHttpHeaders, validateHeaderValue } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type EventStreamClient, openEvents } from '../helpers/events.js';
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

/** What sets one form apart; the rest of its driver follows from its method (see `formDriver`). */
type FormTraits = Pick<FormDriver, 'id' | 'method' | 'token' | 'secrets'>;

/**
 * A form's driver. A POST form carries credentials, token and parameters as fields of its JSON body;
 * a GET form carries its credentials and token as headers and its parameters in the query string.
 */
function formDriver(traits: FormTraits): FormDriver {
  const post = traits.method === 'POST';
  /** The request's path, headers and body as this form's clients lay them out. */
  const layOut = (path: string, { credentials, parameters, headers }: FormRequest) =>
    post
      ? {
          path,
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ ...credentials, ...parameters }),
        }
      : {
          path: withQuery(path, parameters),
          headers: { ...(credentials as Record<string, string>), ...headers },
        };
  return {
    ...traits,
    title: (path) => `${traits.method} ${path} (Form ${traits.id.toUpperCase()})`,
    secretCarrier: post ? 'field' : 'header',
    parameterCarrier: post ? 'field' : 'query parameter',
    credentials: (seed) =>
      Object.fromEntries(
        traits.secrets.map((name) => [
          name,
          name === traits.token ? seed.token : seed[name as 'username' | 'password'],
        ]),
      ),
    send: (runtime, path, request) => {
      const { path: target, headers, body } = layOut(path, request);
      const length = body === undefined ? {} : { 'content-length': Buffer.byteLength(body) };
      return overHttp(runtime.app, traits.method, target, { ...length, ...headers }, body);
    },
    stream: async (runtime, path, request) => {
      const { path: target, headers, body } = layOut(path, request);
      return openEvents(`${await listening(runtime.app)}${target}`, { method: traits.method, headers, body });
    },
  };
}

export const FORM_A = formDriver({
  id: 'a',
  method: 'POST',
  token: 'collective_token',
  secrets: ['username', 'password', 'collective_token'],
});

export const FORM_B = formDriver({
  id: 'b',
  method: 'GET',
  token: 'store',
  secrets: ['store', 'username', 'password'],
});

/** `path` with Form B's parameters as its query string. */
function withQuery(path: string, parameters: Record<string, unknown> | undefined): string {
  const query = new URLSearchParams(parameters as Record<string, string> | undefined).toString();
  return query ? `${path}?${query}` : path;
}

/** Every form, for `describe.each(FORM_DRIVERS)`. */
export const FORM_DRIVERS: readonly FormDriver[] = [FORM_A, FORM_B];

/** A Form A body sent as it is (any value but a string as its JSON), with its content type. */
export function postAsIs(
  runtime: Pick<TestRuntime, 'app'>,
  path: string,
  payload: unknown,
  contentType = 'application/json',
): Promise<LightMyRequestResponse> {
  return runtime.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': contentType },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}
