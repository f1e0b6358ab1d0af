import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ContractCheck } from '../../src/server/app.js';

/**
 * The contract test: every answer an app built by the test helpers sends is checked against that
 * app's own OpenAPI document (GET /openapi.json): the status must be documented for the route and
 * method, the content type must be one the document lists, and the body must match its schema.
 * Findings are collected here; test/setup/contract.ts fails the test that caused them.
 *
 * Answers of paths the document does not describe (an unknown path's 404, a wrong method's 405, a
 * route a test added for itself) must be errors with the ErrorBody shape. Hidden routes (the /docs
 * page and the document itself) are not checked.
 */

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'https://menu-api.invalid/openapi.json';

const violations: string[] = [];

/** The findings since the last call, which are then forgotten. */
export function takeContractViolations(): string[] {
  return violations.splice(0, violations.length);
}

/** Responses checked so far in this test file (a test can assert that the check ran at all). */
export let checkedResponses = 0;

/** Whether test/setup/contract.ts runs in this file, failing the tests with findings. */
export const setup = { installed: false };

interface DocumentCheck {
  document: Json;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const checks = new WeakMap<object, DocumentCheck>();
/** Apps built alike have equal documents: their compiled validators are shared. */
const checksByText = new Map<string, DocumentCheck>();

function documentCheck(document: Json): DocumentCheck {
  let check = checks.get(document);
  if (!check) {
    const text = JSON.stringify(document);
    check = checksByText.get(text);
    if (!check) {
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
      addFormats(ajv);
      ajv.addSchema(document, DOCUMENT_ID);
      check = { document, ajv, validators: new Map() };
      checksByText.set(text, check);
    }
    checks.set(document, check);
  }
  return check;
}

const pointer = (parts: string[]) =>
  parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validatorFor(check: DocumentCheck, parts: string[]): ValidateFunction {
  const ref = `${DOCUMENT_ID}#/${pointer(parts)}`;
  let validate = check.validators.get(ref);
  if (!validate) {
    validate = check.ajv.compile({ $ref: ref });
    check.validators.set(ref, validate);
  }
  return validate;
}

/** Fastify's `/admin/v1/dispensaries/:id` is OpenAPI's `/admin/v1/dispensaries/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function bodyBytes(payload: unknown): Buffer | undefined | 'stream' {
  if (payload === undefined || payload === null) return undefined;
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload);
  if (typeof (payload as { pipe?: unknown }).pipe === 'function') return 'stream';
  return Buffer.from(String(payload), 'utf8');
}

function decoded(bytes: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? 'identity').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(bytes);
    case 'br':
      return brotliDecompressSync(bytes);
    case 'deflate':
      return inflateSync(bytes);
    default:
      return bytes;
  }
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    )
    .join('; ');
}

function check(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  const schema = request.routeOptions.schema as { hide?: boolean } | undefined;
  if (schema?.hide) return;
  const server = request.server as unknown as { swagger?: () => Json };
  if (typeof server.swagger !== 'function') return;
  const document = server.swagger();
  const docCheck = documentCheck(document);
  checkedResponses += 1;

  const status = reply.statusCode;
  const method = request.method === 'HEAD' ? 'get' : request.method.toLowerCase();
  const routeUrl = request.is404 ? undefined : request.routeOptions.url;
  const path = routeUrl === undefined ? undefined : openApiPath(routeUrl);
  const paths = document.paths as Record<string, Record<string, Json>>;
  const operation = path === undefined ? undefined : paths[path]?.[method];
  const where = `${request.method} ${request.url.split('?')[0]} answered ${status}`;
  const fail = (problem: string) => violations.push(`${where}: ${problem}`);

  const contentType = String(reply.getHeader('content-type') ?? '');
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const raw = bodyBytes(payload);

  if (!operation) {
    // Not an operation of the document: only an error with the documented shape may come out.
    if (status < 400) {
      fail(`${path ?? 'this path'} is not in the document, yet the answer is not an error`);
      return;
    }
    if (mediaType !== 'application/json') {
      fail(`an error must be application/json, not "${contentType}"`);
      return;
    }
    if (raw === 'stream' || raw === undefined) {
      if (request.method !== 'HEAD') fail('an error must have a JSON body');
      return;
    }
    validateJson(docCheck, ['components', 'schemas', 'ErrorBody'], raw, reply, fail);
    return;
  }

  const responses = operation.responses as Record<string, Json>;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find(
    (candidate) => candidate in responses,
  );
  if (!key) {
    fail(
      `status ${status} is not documented for ${method.toUpperCase()} ${path} (documented: ${Object.keys(responses).join(', ')})`,
    );
    return;
  }
  // A shared response (#/components/responses/Name) is checked where it is defined.
  let responsePath = ['paths', path!, method, 'responses', key];
  let response = responses[key]!;
  if (typeof response.$ref === 'string') {
    responsePath = response.$ref.replace(/^#\//, '').split('/');
    response = responsePath.reduce<Json>((node, part) => node[part] as Json, document);
  }
  const content = response.content as Record<string, Json> | undefined;
  if (!content) {
    const empty = raw === undefined || (raw !== 'stream' && raw.length === 0);
    if (!empty) fail(`the document says ${status} has no body, but one was sent`);
    return;
  }
  if (!(mediaType in content)) {
    fail(`content type "${contentType}" is not documented (documented: ${Object.keys(content).join(', ')})`);
    return;
  }
  if (raw === 'stream') return;
  if (raw === undefined) {
    if (request.method !== 'HEAD') fail('the document describes a body, but none was sent');
    return;
  }
  const parts = [...responsePath, 'content', mediaType, 'schema'];
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    validateJson(docCheck, parts, raw, reply, fail);
  } else {
    const validate = validatorFor(docCheck, parts);
    const text = decoded(raw, reply.getHeader('content-encoding') as string | undefined).toString('utf8');
    if (!validate(text)) fail(`the body does not match the document: ${describeErrors(validate)}`);
  }
}

function validateJson(
  docCheck: DocumentCheck,
  parts: string[],
  raw: Buffer,
  reply: FastifyReply,
  fail: (problem: string) => void,
): void {
  let body: unknown;
  try {
    const bytes = decoded(raw, reply.getHeader('content-encoding') as string | undefined);
    body = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    fail(`the body is not JSON: ${(error as Error).message}`);
    return;
  }
  const validate = validatorFor(docCheck, parts);
  if (!validate(body)) fail(`the body does not match the document: ${describeErrors(validate)}`);
}

/** The hook handed to buildApp (via createRuntime) by the test helpers. */
export const contractCheck: ContractCheck = (request, reply, payload) => {
  try {
    check(request, reply, payload);
  } catch (error) {
    violations.push(
      `${request.method} ${request.url} answered ${reply.statusCode}: the contract check failed: ${(error as Error).stack}`,
    );
  }
};
