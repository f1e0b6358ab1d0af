import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, syncTestRuntime } from '../helpers/admin.js';
import { rawRequest } from '../helpers/http.js';
import type { TestRuntime } from '../helpers/runtime.js';

type Json = Record<string, unknown>;

/** One write of the app, as its OpenAPI document (made from the registered routes) lists it. */
interface Operation {
  method: string;
  path: string;
  /** Whether the route needs a body: its request body is required. */
  needsBody: boolean;
}

const WRITES = ['post', 'put', 'patch', 'delete'];

function writesOf(document: Json): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!WRITES.includes(method)) continue;
      const body = operation.requestBody as { required?: boolean } | undefined;
      found.push({ method: method.toUpperCase(), path, needsBody: body?.required === true });
    }
  }
  return found;
}

/** The path with each parameter naming nothing that exists: the request is answered, nothing changes. */
const naming = (path: string) =>
  path.replace(/\{(\w+)\}/g, (_all, name: string) =>
    name === 'id' || name === 'item_id' ? '999999' : name === 'delivery_id' ? 'msg_nothing' : 'nobody',
  );

/**
 * The ways clients send a write without a body while still naming a content type: curl -H
 * 'content-type: application/json' (and SDKs that always set it), fetch with body '' (text/plain),
 * curl -d '' (a urlencoded form), and an empty chunked body.
 */
const EMPTY_BODIES: { name: string; headers: [string, string][] }[] = [
  {
    name: 'application/json',
    headers: [
      ['content-type', 'application/json'],
      ['content-length', '0'],
    ],
  },
  {
    name: 'text/plain (fetch with body "")',
    headers: [
      ['content-type', 'text/plain;charset=UTF-8'],
      ['content-length', '0'],
    ],
  },
  {
    name: 'a urlencoded form (curl -d "")',
    headers: [
      ['content-type', 'application/x-www-form-urlencoded'],
      ['content-length', '0'],
    ],
  },
  {
    name: 'application/json, chunked',
    headers: [
      ['content-type', 'application/json'],
      ['transfer-encoding', 'chunked'],
    ],
  },
];

describe('an empty body where the route takes none, over HTTP', () => {
  let runtime: TestRuntime;
  let url: string;
  let key: string;
  let writes: Operation[];

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    key = (await adminKey(runtime)).key;
    writes = writesOf((await (await fetch(`${url}/openapi.json`)).json()) as Json);
  });
  afterAll(() => runtime.close());

  /** The answer's status and error (the request id aside). */
  const send = async (method: string, path: string, headers: [string, string][], body?: string) => {
    const response = await rawRequest(url, {
      method,
      path,
      headers: [['authorization', `Bearer ${key}`], ...headers],
      body,
    });
    const error = response.body === '' ? undefined : (JSON.parse(response.body) as { error?: Json }).error;
    return { status: response.status, code: error?.code, message: error?.message };
  };

  it('the app has writes that take no body: the retry, both rotations, the deletes', () => {
    const bodiless = writes
      .filter((write) => !write.needsBody)
      .map((write) => `${write.method} ${write.path}`);
    expect(bodiless).toEqual(
      expect.arrayContaining([
        'POST /admin/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
        'POST /admin/v1/webhooks/{id}/rotate-secret',
        'POST /admin/v1/dispensaries/{id}/rotate-token',
        'DELETE /admin/v1/webhooks/{id}',
      ]),
    );
  });

  it('every write that takes no body answers an empty one, whatever its content type, as it answers none', async () => {
    const differences: string[] = [];
    for (const write of writes.filter((each) => !each.needsBody)) {
      const path = naming(write.path);
      const without = await send(write.method, path, []);
      for (const empty of EMPTY_BODIES) {
        const answer = await send(write.method, path, empty.headers, '');
        if (JSON.stringify(answer) !== JSON.stringify(without)) {
          differences.push(
            `${write.method} ${path} with ${empty.name}: ${JSON.stringify(answer)}, without a body: ${JSON.stringify(without)}`,
          );
        }
      }
    }
    expect(differences).toEqual([]);
  });

  it('the retry and both rotations do their work for an empty application/json body', async () => {
    const json: [string, string][] = [['content-type', 'application/json']];
    const { dispensaryId, username } = runtime.seed;
    const rotated = await rawRequest(url, {
      method: 'POST',
      path: `/admin/v1/dispensaries/${dispensaryId}/rotate-token`,
      headers: [['authorization', `Bearer ${key}`], ...json, ['content-length', '0']],
      body: '',
    });
    expect(rotated.status, rotated.body).toBe(200);
    expect(JSON.parse(rotated.body)).toMatchObject({ id: dispensaryId, token: expect.any(String) });

    const webhook = await runtime.services.webhooks.create({
      credential: username,
      dispensaryId,
      url: 'https://hooks.example.com/menu',
    });
    const secret = await rawRequest(url, {
      method: 'POST',
      path: `/admin/v1/webhooks/${webhook.webhook.id}/rotate-secret`,
      headers: [['authorization', `Bearer ${key}`], ...json, ['content-length', '0']],
      body: '',
    });
    expect(secret.status, secret.body).toBe(200);
    expect(JSON.parse(secret.body).secret).toMatch(/^whsec_/);

    // A change makes a delivery to it (to a host that does not resolve here: pending or failed).
    await runtime.services.menus.upsert(dispensaryId, [
      { id: 1, name: 'Empty Body', product_type: 'Flower', prices: [{ unit: 'gram', amount: 1, price: 10 }] },
    ]);
    const [delivery] = await runtime.services.webhooks.deliveries(webhook.webhook.id);
    const retried = await rawRequest(url, {
      method: 'POST',
      path: `/admin/v1/webhooks/${webhook.webhook.id}/deliveries/${delivery!.id}/retry`,
      headers: [['authorization', `Bearer ${key}`], ...json, ['content-length', '0']],
      body: '',
    });
    expect(retried.status, retried.body).toBe(200);
    expect(JSON.parse(retried.body)).toMatchObject({ id: delivery!.id, status: 'pending' });
  });

  it('a write that needs a body still refuses an empty one with a 400 that says so', async () => {
    const needing = writes.filter((write) => write.needsBody);
    expect(needing.length).toBeGreaterThan(5);
    for (const write of needing) {
      const answer = await send(
        write.method,
        naming(write.path),
        [
          ['content-type', 'application/json'],
          ['content-length', '0'],
        ],
        '',
      );
      expect(answer, `${write.method} ${write.path}`).toMatchObject({
        status: 400,
        code: 'invalid_request',
        message: expect.stringMatching(/^The request body is (empty|not valid JSON)\. Send a JSON object/),
      });
    }
  });
});
