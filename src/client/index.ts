/**
 * A typed client of the Dispensary Menu API, with no dependency beyond `fetch`:
 *
 *   import { MenuClient } from 'dispensary-menu-api/client';
 *   const client = new MenuClient({ baseUrl: 'http://127.0.0.1:8080', username: 'demo', password: 'demo-password', form: 'B' });
 *   for (const item of await client.menu('demo-collective-token')) console.log(item.name);
 *
 * Both request forms, and Form v1's reads (`client.v1(token)`: the menu filtered, searched, sorted and
 * paged); errors as MenuApiError (status, code, request id); retries of 429 and 503 with exponential
 * backoff and full jitter, honouring Retry-After; a timeout per attempt; and on Form B and Form v1,
 * If-None-Match with the last ETag, so an unchanged answer costs the server nothing.
 */

import { errorFromAnswer, MenuApiError } from './errors.js';
import { EtagCache } from './etag-cache.js';
import { parseRetryAfter, type RetryPolicy, retryDelay, sleep } from './retry.js';
import type { Form, FormBItem, FormBPrice, InventoryEntry, MenuItemOf, StoreInfo } from './types.js';
import { V1Reader } from './v1.js';

export { CursorExpiredError, MenuApiError } from './errors.js';
export type * from './types.js';
export type { V1Reader } from './v1.js';
export type * from './v1-types.js';

export interface MenuClientOptions<F extends Form = Form> {
  /** Where the API is, for example `https://menu.example.com` (a path prefix is kept). */
  baseUrl: string | URL;
  username: string;
  password: string;
  /**
   * The form of `menu`, `store` and `inventory`. 'A': POST with credentials in the JSON body. 'B': GET
   * with credentials in headers. (`v1(token)` reads Form v1 whichever is chosen.)
   */
  form: F;
  /** Per attempt, ms (default 10,000). */
  timeoutMs?: number;
  /** Further attempts after a 429 or 503 (default 3). */
  retries?: number;
  /** First backoff step, ms (default 250); attempt n waits a random time below base · 2^n. */
  retryBaseMs?: number;
  /** Longest single wait, ms (default 30,000); a longer Retry-After is not waited for. */
  maxRetryDelayMs?: number;
  /** How many Form B and Form v1 answers to keep for If-None-Match (default 500). */
  cacheSize?: number;
  /** Another fetch, for example one with a proxy agent (default: the global fetch). */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Cancels the call, including its retries. */
  signal?: AbortSignal;
}

export interface MenuOptions extends CallOptions {
  /** Form A only: false lists every item, active or not, each with its `active` flag (default true). */
  active?: boolean;
}

export interface InventoryOptions extends CallOptions {
  /** Only entries whose price or stock changed after this time (an RFC 3339 string or a Date). */
  since?: string | Date;
}

type Endpoint = 'menu' | 'store' | 'inventory';

export class MenuClient<F extends Form = Form> {
  readonly form: F;
  readonly #base: URL;
  readonly #username: string;
  readonly #password: string;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #fetch: typeof fetch;
  readonly #etags: EtagCache;

  constructor(options: MenuClientOptions<F>) {
    if (options.form !== 'A' && options.form !== 'B') throw new TypeError("form must be 'A' or 'B'");
    const base = new URL(String(options.baseUrl));
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.form = options.form;
    this.#base = base;
    this.#username = options.username;
    this.#password = options.password;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#retry = {
      retries: options.retries ?? 3,
      baseMs: options.retryBaseMs ?? 250,
      maxDelayMs: options.maxRetryDelayMs ?? 30_000,
      random: Math.random,
    };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#etags = new EtagCache(options.cacheSize ?? 500);
  }

  /** The dispensary's menu items: active ones, or with Form A and `{active: false}`, every one. */
  async menu(token: string, options: MenuOptions = {}): Promise<MenuItemOf<F>[]> {
    if (options.active === false && this.form === 'B') {
      throw new TypeError("Form B lists active items only; use form 'A' with {active: false} for every item");
    }
    const fields = options.active === undefined ? {} : { active: options.active };
    return this.#call<MenuItemOf<F>[]>('menu', token, fields, {}, options.signal);
  }

  /** The dispensary's store information: address, hours, currency and so on. */
  store(token: string, options: CallOptions = {}): Promise<StoreInfo> {
    return this.#call<StoreInfo>('store', token, {}, {}, options.signal);
  }

  /** Stock of every price entry of every active item; with `since`, only those changed after it. */
  inventory(token: string, options: InventoryOptions = {}): Promise<InventoryEntry[]> {
    const since = options.since instanceof Date ? options.since.toISOString() : options.since;
    const fields: Record<string, string> = since === undefined ? {} : { since };
    return this.#call<InventoryEntry[]>('inventory', token, fields, fields, options.signal);
  }

  /**
   * Form v1's reads of the dispensary of `token` (docs/v1.md), with this client's credentials (as HTTP
   * Basic), retries, timeout and ETags: `menu(query)`, `pages(query)`, `item(id)`, `store()`,
   * `inventory()`, `specials()`, `changes(cursor)`.
   */
  v1(token: string): V1Reader {
    const authorization = `Basic ${base64(`${this.#username}:${this.#password}`)}`;
    return new V1Reader((path, query, conditional, signal) => {
      const url = new URL(path, this.#base);
      url.search = query.toString();
      const init: RequestInit = {
        method: 'GET',
        headers: { accept: 'application/json', authorization, 'dispensary-token': token },
      };
      const cacheKey = conditional ? `${url.href}\n${this.#username}\n${token}` : undefined;
      return this.#request(url, init, cacheKey, signal);
    });
  }

  async #call<T>(
    endpoint: Endpoint,
    token: string,
    bodyFields: Record<string, unknown>,
    query: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const url = new URL(endpoint, this.#base);
    let init: RequestInit;
    let cacheKey: string | undefined;
    if (this.form === 'A') {
      init = {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({
          username: this.#username,
          password: this.#password,
          collective_token: token,
          ...bodyFields,
        }),
      };
    } else {
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      init = {
        method: 'GET',
        headers: {
          accept: 'application/json',
          store: token,
          username: this.#username,
          password: this.#password,
        },
      };
      cacheKey = `${url.href}\n${this.#username}\n${token}`;
    }
    return this.#request<T>(url, init, cacheKey, signal);
  }

  /**
   * Sends a request until it is answered, retrying 429 and 503; with a `cacheKey`, revalidates the
   * answer kept under it (If-None-Match) and keeps the new one.
   */
  async #request<T>(
    url: URL,
    init: RequestInit,
    cacheKey: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const cached = cacheKey === undefined ? undefined : this.#etags.get(cacheKey);
      const headers = new Headers(init.headers);
      if (cached) headers.set('if-none-match', cached.etag);
      const answer = await this.#send(url, { ...init, headers }, signal);
      const { status } = answer;

      if (status === 304 && cached) return JSON.parse(cached.text) as T;
      if (status >= 200 && status < 300) {
        const etag = answer.headers.get('etag');
        if (cacheKey !== undefined) {
          if (etag) this.#etags.set(cacheKey, etag, answer.text);
          else this.#etags.delete(cacheKey);
        }
        return parseJson<T>(answer);
      }

      const retryAfterMs = parseRetryAfter(answer.headers.get('retry-after'));
      if (status === 429 || status === 503) {
        const wait = retryDelay(this.#retry, attempt, retryAfterMs);
        if (wait !== undefined) {
          await sleep(wait, signal).catch((reason) => {
            throw aborted(reason);
          });
          continue;
        }
      }
      if (status === 304) {
        // 304 for a request that sent no If-None-Match: nothing to reuse.
        throw new MenuApiError({
          status,
          code: 'invalid_response',
          message: 'The server answered 304 Not Modified to a request without If-None-Match.',
          requestId: answer.headers.get('x-request-id'),
        });
      }
      throw errorFromAnswer(status, answer.headers, answer.text, retryAfterMs);
    }
  }

  /** One attempt: the status, headers and body text, within the timeout. */
  async #send(
    url: URL,
    init: RequestInit,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; headers: Headers; text: string }> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? anySignal([signal, timeout]) : timeout;
    try {
      const response = await this.#fetch(url, { ...init, signal: combined, redirect: 'follow' });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (timeout.aborted && !signal?.aborted) {
        throw new MenuApiError({
          status: 0,
          code: 'timeout',
          message: `No answer from ${url.origin} within ${this.#timeoutMs} ms.`,
          cause: error,
        });
      }
      if (signal?.aborted) throw aborted(signal.reason);
      throw new MenuApiError({
        status: 0,
        code: 'network_error',
        message: `Could not reach ${url.origin}: ${(error as Error).message}`,
        cause: error,
      });
    }
  }
}

/** Base64 of the UTF-8 bytes of `text` (RFC 7617), with what both Node and browsers have. */
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** AbortSignal.any, with a fallback for Node 20 releases before 20.3. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

function aborted(reason: unknown): MenuApiError {
  return new MenuApiError({ status: 0, code: 'aborted', message: 'The call was aborted.', cause: reason });
}

function parseJson<T>(answer: { status: number; headers: Headers; text: string }): T {
  try {
    return JSON.parse(answer.text) as T;
  } catch (error) {
    throw new MenuApiError({
      status: answer.status,
      code: 'invalid_response',
      message: 'The answer is not JSON.',
      requestId: answer.headers.get('x-request-id'),
      cause: error,
    });
  }
}

/** A Form B item's brand, whichever spelling the server sends (`brand` or `brand_name`). */
export function brandOf(item: FormBItem): string {
  return item.brand ?? item.brand_name ?? '';
}

/** A Form B item's price entries, whichever spelling the server sends (`variants` or `prices`). */
export function pricesOf(item: FormBItem): FormBPrice[] {
  return item.variants ?? item.prices ?? [];
}
