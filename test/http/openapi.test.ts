import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/demo/seed.js';
import { SPECIAL_EXAMPLE } from '../../src/domain/special-schema.js';
import { REPOSITORY } from '../helpers/cli.js';
import { checkedResponses, setup, takeContractViolations } from '../helpers/contract.js';
import { formBHeaders } from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime, testRuntime } from '../helpers/runtime.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A response, or the shared response it refers to, and the JSON pointer parts where it is. */
function resolved(document: Json, parts: string[], response: Json): { response: Json; parts: string[] } {
  if (typeof response.$ref !== 'string') return { response, parts };
  const where = response.$ref.replace(/^#\//, '').split('/');
  return { response: where.reduce<Json>((node, part) => node[part] as Json, document), parts: where };
}

function operations(document: Json): { path: string; method: string; operation: Json }[] {
  const found = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.includes(method)) found.push({ path, method, operation: operation as Json });
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  let runtime: TestRuntime;
  let served: string;
  let document: Json;

  beforeAll(async () => {
    runtime = await testRuntime({ menu: SAMPLE_MENU });
    // A route that breaks its own contract, to prove that the contract check notices (see below).
    runtime.app.get(
      '/test/contract',
      {
        schema: {
          tags: ['Test'],
          summary: 'Answers what its schema does not allow',
          response: { 200: Type.Object({ name: Type.String() }) },
        },
      },
      async (request, reply) => {
        const raw = reply as unknown as FastifyReply;
        if ((request.query as { status?: string }).status === '418') return raw.code(418).send('');
        return raw.type('application/json; charset=utf-8').send('{"name": 42}');
      },
    );
    const response = await runtime.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    served = response.body;
    document = JSON.parse(served) as Json;
  });
  afterAll(() => runtime.close());

  /** The document without the route this test added for itself, as `npm run openapi` makes it. */
  function published(): string {
    const copy = JSON.parse(served) as Json;
    delete (copy.paths as Json)['/test/contract'];
    copy.tags = (copy.tags as { name: string }[]).filter((tag) => tag.name !== 'Test');
    return `${JSON.stringify(copy, null, 2)}\n`;
  }

  it('is the committed openapi.json (run `npm run openapi` after changing a route schema)', () => {
    const committed = readFileSync(join(REPOSITORY, 'openapi.json'), 'utf8');
    expect(published()).toBe(committed);
  });

  it('passes a real OpenAPI validator (@apidevtools/swagger-parser)', async () => {
    const api = (await SwaggerParser.validate(JSON.parse(published()))) as unknown as Json;
    expect(api.openapi).toBe('3.1.0');
  });

  it('describes every endpoint of both forms, the store, the inventory, health and the sync API', () => {
    const listed = operations(document).map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    for (const expected of [
      'POST /menu',
      'GET /menu',
      'POST /store',
      'GET /store',
      'POST /inventory',
      'GET /inventory',
      'GET /healthz',
      'GET /readyz',
      'PUT /admin/v1/dispensaries/{id}/menu',
      'PATCH /admin/v1/dispensaries/{id}/inventory',
      'POST /admin/v1/credentials',
    ]) {
      expect(listed).toContain(expected);
    }
    expect(listed).not.toContain('GET /docs');
    expect(listed).not.toContain('GET /openapi.json');
  });

  it('gives Form B its header credentials as security schemes, the sync API its bearer key', () => {
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    expect(schemes.FormBStore).toMatchObject({ type: 'apiKey', in: 'header', name: 'store' });
    expect(schemes.FormBUsername).toMatchObject({ type: 'apiKey', in: 'header', name: 'username' });
    expect(schemes.FormBPassword).toMatchObject({ type: 'apiKey', in: 'header', name: 'password' });
    expect(schemes.AdminKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { path, operation } of operations(document)) {
      const tags = operation.tags as string[];
      if (tags.includes('Form B')) {
        expect(operation.security).toEqual([{ FormBStore: [], FormBUsername: [], FormBPassword: [] }]);
        // The credentials are the security schemes, not parameters besides them.
        const names = ((operation.parameters ?? []) as Json[]).map((parameter) => parameter.name);
        expect(names).not.toContain('store');
        expect(names).not.toContain('password');
      }
      if (path.startsWith('/admin/') && !/^\/admin\/v1\/(session(\/.*)?|sessions|account-link.*)$/.test(path))
        expect(operation.security).toEqual([{ AdminKey: [] }, { ConsoleSession: [] }]);
      if (tags.includes('Form A')) {
        const body = (operation.requestBody as Json).content as Record<string, Json>;
        const schema = body['application/json']!.schema as Json;
        expect(schema.required).toEqual(expect.arrayContaining(['username', 'password', 'collective_token']));
      }
    }
  });

  it('lists the errors of every operation with the one ErrorBody schema, each with an example', () => {
    for (const { path, method, operation } of operations(document)) {
      if (path === '/test/contract') continue;
      const responses = operation.responses as Record<string, Json>;
      expect(
        // The single sign-on navigations succeed with a redirect.
        Object.keys(responses).some((status) => status.startsWith('2') || status === '302'),
        `${method} ${path}`,
      ).toBe(true);
      const errors = Object.entries(responses).filter(([status]) => Number(status) >= 400);
      if (path !== '/healthz' && path !== '/metrics')
        expect(errors.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, reference] of errors) {
        const { response } = resolved(document, [], reference);
        const media = (response.content as Record<string, Json>)['application/json']!;
        expect(media.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
        expect((media.example as { error: { code: string } }).error.code).toBeTruthy();
        expect(response.description, `${method} ${path} ${status}`).not.toBe('Default Response');
        if (status === '403') {
          const code = path.startsWith('/admin/') ? 'forbidden' : 'invalid_token';
          expect((media.example as { error: { code: string } }).error.code, `${method} ${path}`).toBe(code);
        }
      }
      if (operation.tags && (operation.tags as string[]).includes('Form A'))
        expect(Object.keys(responses)).toEqual(expect.arrayContaining(['400', '401', '403', '413', '415']));
      // Form B's reads are conditional; the live feed and its stream are computed per request.
      const conditional = path !== '/changes' && path !== '/events';
      if (operation.tags && (operation.tags as string[]).includes('Form B'))
        expect(Object.keys(responses)).toEqual(
          expect.arrayContaining([...(conditional ? ['304'] : []), '400', '401', '403']),
        );
      if (!conditional) expect(Object.keys(responses), `${method} ${path}`).toContain('410');
    }
  });

  it('has an example for every request body and every JSON answer, and each matches its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, 'doc');
    const pointer = (parts: string[]) =>
      parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'));
    const check = (parts: string[], example: unknown, where: string) => {
      const validate = ajv.compile({ $ref: `doc#/${pointer(parts).join('/')}` });
      expect(validate(example), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    let examples = 0;
    for (const { path, method, operation } of operations(document)) {
      if (path === '/test/contract') continue;
      const body = operation.requestBody as Json | undefined;
      if (body) {
        const media = (body.content as Record<string, Json>)['application/json']!;
        expect(media.example, `request body of ${method} ${path}`).toBeDefined();
        const parts = ['paths', path, method, 'requestBody', 'content', 'application/json', 'schema'];
        check(parts, media.example, `request body of ${method} ${path}`);
        examples += 1;
      }
      for (const [status, reference] of Object.entries(operation.responses as Record<string, Json>)) {
        const at = ['paths', path, method, 'responses', status];
        const { response, parts: where } = resolved(document, at, reference);
        const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
        if (!media) continue;
        expect(media.example, `${status} of ${method} ${path}`).toBeDefined();
        const parts = [...where, 'content', 'application/json', 'schema'];
        check(parts, media.example, `${status} of ${method} ${path}`);
        examples += 1;
      }
    }
    expect(examples).toBeGreaterThan(50);
  });

  it('gives every operation a unique, stable operationId (a new route without one fails here)', () => {
    const seen = new Map<string, string>();
    for (const { path, method, operation } of operations(document)) {
      if (path === '/test/contract') continue;
      const where = `${method.toUpperCase()} ${path}`;
      const id = operation.operationId;
      expect(typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id), `${where} has no operationId`).toBe(
        true,
      );
      expect(seen.get(id as string), `${where} reuses operationId ${String(id)}`).toBeUndefined();
      seen.set(id as string, where);
      if (method === 'head')
        expect(id).toBe(
          `${String(((document.paths as Record<string, Json>)[path]!.get as Json).operationId)}Head`,
        );
    }
    // The ones clients are generated against today: renaming one breaks them.
    expect(Object.fromEntries([...seen].map(([id, where]) => [where, id]))).toMatchObject({
      'POST /menu': 'readMenuFormA',
      'GET /menu': 'readMenuFormB',
      'HEAD /menu': 'readMenuFormBHead',
      'POST /store': 'readStoreFormA',
      'GET /inventory': 'readInventoryFormB',
      'PUT /admin/v1/dispensaries/{id}/menu': 'replaceMenu',
      'POST /admin/v1/dispensaries/{id}/rotate-token': 'rotateDispensaryToken',
    });
  });

  it('declares the credentials each sync API route asks for: without them, 401 exactly where it names a scheme', async () => {
    const pathValue = (name: string) =>
      ({ username: 'menu-board', name: 'staff', delivery_id: 'msg_1' })[name] ?? '1';
    const open: string[] = [];
    for (const { path, method, operation } of operations(document)) {
      if (!path.startsWith('/admin/')) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const url = path.replace(/\{(\w+)\}/g, (_whole, name: string) => pathValue(name));
      const response = await runtime.app.inject({ method: method.toUpperCase() as 'GET', url });
      const security = operation.security as Json[];
      if (security.length > 0) expect(response.statusCode, `${where}: ${response.body}`).toBe(401);
      else {
        expect(response.statusCode, `${where}: ${response.body}`).not.toBe(401);
        open.push(where);
      }
    }
    // The console's sign-in (the email and password, or the admin key, travel in its body), sign-out
    // (without a session, it only clears the cookie), one-time links (the token is in the body), single
    // sign-on (nobody is signed in yet; here it is not configured: 404), the passkey sign-in (a signature
    // over a one-time challenge) and the second step of a sign-in (its pending token).
    expect(open.sort()).toEqual([
      'DELETE /admin/v1/session',
      'GET /admin/v1/session/sso',
      'GET /admin/v1/session/sso/callback',
      'GET /admin/v1/session/sso/sign-in',
      'HEAD /admin/v1/session/sso',
      'HEAD /admin/v1/session/sso/callback',
      'HEAD /admin/v1/session/sso/sign-in',
      'POST /admin/v1/account-link',
      'POST /admin/v1/account-link/accept',
      'POST /admin/v1/session',
      'POST /admin/v1/session/passkey',
      'POST /admin/v1/session/passkey/options',
      'POST /admin/v1/session/second-factor',
      'POST /admin/v1/session/second-factor/enroll',
      'POST /admin/v1/session/second-factor/enroll/confirm',
    ]);
    const { key } = await runtime.services.adminKeys.create('openapi-sign-in', 'all');
    const signIn = await runtime.app.inject({
      method: 'POST',
      url: '/admin/v1/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ key }),
    });
    expect(signIn.statusCode, signIn.body).toBe(201);
    // The session's read takes its cookie; every other route the bearer key or that cookie.
    const paths = document.paths as Record<string, Record<string, Json>>;
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    expect(schemes.ConsoleSession).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'menu_console_session',
    });
    expect(paths['/admin/v1/session']!.get!.security).toEqual([{ ConsoleSession: [] }]);
    expect(paths['/admin/v1/dispensaries']!.get!.security).toEqual([
      { AdminKey: [] },
      { ConsoleSession: [] },
    ]);
  });

  it('closes every sync API request body (additionalProperties: false), and the server refuses an unknown field, naming it', async () => {
    const { key } = await runtime.services.adminKeys.create('openapi-closed-bodies', 'all');
    // Every path's ids are 1: a special 1 to change (the others the seed has).
    await runtime.services.specials.create(1, SPECIAL_EXAMPLE);
    const schemas = (document.components as Json).schemas as Record<string, Json>;
    const named = (schema: Json): Json =>
      typeof schema.$ref === 'string' ? schemas[schema.$ref.split('/').pop()!]! : schema;
    let checked = 0;
    for (const { path, method, operation } of operations(document)) {
      const media = (
        (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
      )?.['application/json'];
      if (!path.startsWith('/admin/') || media === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const schema = named(media.schema as Json);
      // A list's entries; of an optional body (`anyOf` with null), the object.
      const entry = schema.type === 'array' ? named(schema.items as Json) : schema;
      const object = ((entry.anyOf as Json[] | undefined) ?? [entry]).find(
        (branch) => branch.type === 'object',
      )!;
      expect(object.additionalProperties, where).toBe(false);
      // The documented example with one misspelt field more (in its first entry, for a list).
      const example = structuredClone(media.example) as Json | Json[];
      const misspelt = Array.isArray(example) ? example[0]! : example;
      misspelt.unknwon_field = 1;
      const response = await runtime.app.inject({
        method: method.toUpperCase() as 'POST',
        url: path.replace(/\{\w+\}/g, '1'),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify(example),
      });
      expect(response.statusCode, `${where}: ${response.body}`).toBe(400);
      const fields = (response.json().error.problems as { field: string }[]).map((problem) => problem.field);
      expect(
        fields.some((field) => field.endsWith('unknwon_field')),
        `${where}: ${response.body}`,
      ).toBe(true);
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  it('says `security: []` with the reason wherever no security scheme applies', () => {
    for (const { path, method, operation } of operations(document)) {
      if (path === '/test/contract') continue;
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.security, where).toBeDefined();
      if ((operation.security as unknown[]).length === 0)
        expect(String(operation.description), where).toContain('`security: []`');
    }
  });

  it('documents HEAD wherever GET is served, and the request and response headers', () => {
    const paths = document.paths as Record<string, Json>;
    const components = document.components as Record<string, Record<string, Json>>;
    for (const { path, method, operation } of operations(document)) {
      if (path === '/test/contract') continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (method === 'get') expect(paths[path]!.head, `HEAD ${path}`).toBeDefined();
      const parameters = (operation.parameters as Json[]).map(
        (parameter) => parameter.$ref ?? parameter.name,
      );
      expect(parameters, where).toContain('#/components/parameters/RequestId');
      // Every sync API write takes an Idempotency-Key but the console's sign-in, sign-outs and
      // one-time links, which start or end a session each time (test/http/route-facts.test.ts).
      const session = /^\/admin\/v1\/(session(\/.*)?|sessions|account-link(\/accept)?)$/.test(path);
      const write = path.startsWith('/admin/') && method !== 'get' && method !== 'head' && !session;
      if (write) expect(parameters, where).toContain('#/components/parameters/IdempotencyKey');
      else expect(parameters, where).not.toContain('#/components/parameters/IdempotencyKey');
      for (const [status, reference] of Object.entries(operation.responses as Record<string, Json>)) {
        const { response } = resolved(document, [], reference);
        const headers = Object.keys((response.headers ?? {}) as Json);
        expect(headers, `${where} ${status}`).toContain('x-request-id');
        if (!['/healthz', '/readyz', '/metrics'].includes(path))
          expect(headers, `${where} ${status}`).toEqual(
            expect.arrayContaining(['ratelimit', 'ratelimit-policy']),
          );
        if (status === '429' || status === '503')
          expect(headers, `${where} ${status}`).toContain('retry-after');
        if (write && status.startsWith('2'))
          expect(headers, `${where} ${status}`).toContain('idempotent-replayed');
      }
    }
    expect(Object.keys(components.headers!)).toEqual(
      expect.arrayContaining([
        'Allow',
        'IdempotentReplayed',
        'RateLimit',
        'RateLimitPolicy',
        'RequestId',
        'RetryAfter',
      ]),
    );
    expect(Object.keys(components.responses!.MethodNotAllowed!.headers as Json)).toContain('allow');
    const rotate = paths['/admin/v1/dispensaries/{id}/rotate-token']!.post as Json;
    expect(rotate.requestBody).toMatchObject({ required: false });
  });

  it('lists every content type Form A reads, and the server reads each of them', async () => {
    const operation = (document.paths as Record<string, Json>)['/menu']!.post as Json;
    const content = (operation.requestBody as Json).content as Record<string, Json>;
    expect(Object.keys(content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
    ]);
    expect(String((operation.requestBody as Json).description)).toContain('no Content-Type');
    const fields = {
      username: runtime.seed.username,
      password: runtime.seed.password,
      collective_token: runtime.seed.token,
    };
    const json = JSON.stringify(fields);
    const form = new URLSearchParams(fields).toString();
    const bodies: [string | undefined, string][] = [
      ...Object.keys(content).map((type): [string, string] => [type, json]),
      ['application/x-www-form-urlencoded', form],
      [undefined, json],
    ];
    for (const [type, payload] of bodies) {
      const response = await runtime.app.inject({
        method: 'POST',
        url: '/menu',
        headers: type ? { 'content-type': type } : {},
        payload,
      });
      expect(response.statusCode, `${type ?? 'no content type'}: ${response.body}`).toBe(200);
    }
  });

  it('passes `@redocly/cli lint` with the recommended rules (npm run openapi:lint), without the network', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(REPOSITORY, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js'), 'lint', 'openapi.json'],
        {
          cwd: REPOSITORY,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          timeout: 60_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('Your API description is valid');
    expect(result.output).not.toMatch(/You have \d+ warnings?/);
  });

  it('fills Form A examples with the demo credentials, so that "try it" works on a demo server', () => {
    const operation = (document.paths as Record<string, Json>)['/menu']!.post as Json;
    const media = ((operation.requestBody as Json).content as Record<string, Json>)['application/json']!;
    expect(media.example).toMatchObject({
      username: DEMO.username,
      password: DEMO.password,
      collective_token: DEMO.token,
    });
  });

  describe('the contract check (test/helpers/contract.ts) that every test runs', () => {
    it('runs in every test file of every project (vitest.config.ts setupFiles)', () => {
      expect(setup.installed).toBe(true);
    });

    it('has been checking the answers of this file', async () => {
      const before = checkedResponses;
      await runtime.app.inject({ method: 'GET', url: '/menu', headers: formBHeaders(runtime.seed) });
      expect(checkedResponses).toBe(before + 1);
      expect(takeContractViolations()).toEqual([]);
    });

    it('reads compressed answers (gzip, br) and 304s too', async () => {
      const headers = formBHeaders(runtime.seed);
      const encodings = [];
      for (const coding of ['gzip', 'br']) {
        const response = await runtime.app.inject({
          method: 'GET',
          url: '/menu',
          headers: { ...headers, 'accept-encoding': coding },
        });
        expect(response.statusCode).toBe(200);
        encodings.push(response.headers['content-encoding']);
        const etag = response.headers.etag;
        if (typeof etag === 'string') {
          const again = await runtime.app.inject({
            method: 'GET',
            url: '/menu',
            headers: { ...headers, 'accept-encoding': coding, 'if-none-match': etag },
          });
          expect(again.statusCode).toBe(304);
        }
      }
      expect(encodings.some((coding) => coding === 'gzip' || coding === 'br')).toBe(true);
      expect(takeContractViolations()).toEqual([]);
    });

    it('reports a body that does not match its schema', async () => {
      await runtime.app.inject({ method: 'GET', url: '/test/contract' });
      const found = takeContractViolations();
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(
        /GET \/test\/contract answered 200: the body does not match.*\/name must be string/,
      );
    });

    it('reports a status the document does not list', async () => {
      await runtime.app.inject({ method: 'GET', url: '/test/contract?status=418' });
      const found = takeContractViolations();
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/status 418 is not documented for GET \/test\/contract/);
    });

    it('accepts the JSON errors of paths the document does not describe (404, 405)', async () => {
      expect((await runtime.app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
      expect((await runtime.app.inject({ method: 'DELETE', url: '/menu' })).statusCode).toBe(405);
      expect(takeContractViolations()).toEqual([]);
    });
  });
});
