import { FORMS } from '../../../forms/index.js';
import { type RouteFacts, routeFacts } from '../../pipeline/route-facts.js';
import {
  ETAG_HEADER,
  HEADERS,
  IF_NONE_MATCH,
  type Json,
  MENU_CURSOR_HEADER,
  METHOD_NOT_ALLOWED,
  PARAMETERS,
  parameterRef,
  responseHeaders,
  sharedErrorResponse,
} from './components.js';
import { FACTS_KEY } from './operation.js';

const SUCCESS_DESCRIPTIONS: Record<string, string> = { 200: 'OK', 201: 'Created', 204: 'No Content' };

/** Sorts an object's keys, so that the document's maps do not depend on registration order. */
function sortedKeys<T extends Json>(object: T, compare?: (a: string, b: string) => number): T {
  return Object.fromEntries(
    Object.entries(object).sort(([a], [b]) => (compare ? compare(a, b) : a < b ? -1 : a > b ? 1 : 0)),
  ) as T;
}

const METHOD_ORDER = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'];

/** An array without an example of its own gets one made of its items' example. */
function exampleFromItems(media: Json | undefined): void {
  const schema = media?.schema as Json | undefined;
  if (!media || media.example !== undefined || schema?.type !== 'array') return;
  const itemExamples = (schema.items as Json | undefined)?.examples as unknown[] | undefined;
  if (itemExamples && itemExamples.length > 0) media.example = [itemExamples[0]];
}

const NAMED = /^[A-Z][A-Za-z0-9]+$/;

const withoutExamples = (schema: Json) => JSON.stringify({ ...schema, examples: undefined });

/**
 * A schema with a `title` (FormAItem, FormBItem, StoreInfo, InventoryEntry, CanonicalItem) becomes a
 * named component that every use refers to: one definition each, and named types for code generators.
 */
function nameTitledSchemas(node: unknown, schemas: Record<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((entry) => nameTitledSchemas(entry, schemas));
  if (typeof node !== 'object' || node === null) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    // Example values are data, not schemas: left as they are.
    copy[key] = key === 'example' || key === 'examples' ? value : nameTitledSchemas(value, schemas);
  }
  const title = copy.title;
  if (typeof title !== 'string' || !NAMED.test(title) || copy.type === undefined) return copy;
  const known = schemas[title];
  if (known && withoutExamples(known) !== withoutExamples(copy)) return copy;
  if (!known || (known.examples === undefined && copy.examples !== undefined)) schemas[title] = copy;
  return { $ref: `#/components/schemas/${title}` };
}

/** A body schema that also allows null: the body is optional (Fastify validates a missing body as null). */
function acceptsNoBody(media: Json | undefined): boolean {
  const options = (media?.schema as Json | undefined)?.anyOf as Json[] | undefined;
  return options?.some((option) => option.type === 'null') ?? false;
}

/** HEAD: what GET answers without the body; its operationId is GET's with `Head` appended. */
function describeHead(operation: Json): void {
  if (typeof operation.operationId === 'string')
    operation.operationId = operation.operationId.replace(/-head$/, 'Head');
  operation.summary = `${String(operation.summary ?? '')} (HEAD: headers only, no body)`;
  const responses = operation.responses as Record<string, Json>;
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith('2')) responses[status] = { ...response, content: undefined };
  }
}

/** The form of an operation (by its tag) that reads request bodies in more media types than JSON. */
const FORM_MEDIA_TYPES = new Map(
  FORMS.flatMap(({ transport }) =>
    transport.openApi.requestBody ? [[transport.tag, transport.openApi.requestBody] as const] : [],
  ),
);

/** Lists every media type a form reads its request bodies in, each with the same fields. */
function addFormMediaTypes(operation: Json, requestBody: Json, content: Record<string, Json>): void {
  const tags = (operation.tags as string[] | undefined) ?? [];
  const accepted = tags.map((tag) => FORM_MEDIA_TYPES.get(tag)).find((found) => found !== undefined);
  const json = content['application/json'];
  if (!accepted || !json) return;
  requestBody.description = accepted.description;
  for (const type of accepted.asText) {
    content[type] = {
      schema: { type: 'string', contentMediaType: 'application/json', contentSchema: json.schema },
      example: JSON.stringify(json.example),
    };
  }
  for (const type of accepted.asForm) content[type] = { schema: json.schema };
}

/** The facts the route declared (carried here by the transform), taken off the operation. */
function takeFacts(operation: Json): RouteFacts {
  const facts = (operation[FACTS_KEY] as RouteFacts | undefined) ?? routeFacts();
  delete operation[FACTS_KEY];
  return facts;
}

/** One operation's request side: HEAD, request body media types and examples, its parameters. */
function finishRequest(method: string, operation: Json, facts: RouteFacts): void {
  if (method === 'head') describeHead(operation);
  const requestBody = operation.requestBody as Json | undefined;
  const body = requestBody?.content as Record<string, Json> | undefined;
  exampleFromItems(body?.['application/json']);
  if (requestBody && body) addFormMediaTypes(operation, requestBody, body);
  if (requestBody && acceptsNoBody(body?.['application/json'])) requestBody.required = false;
  const responses = operation.responses as Json;
  operation.parameters = [
    ...((operation.parameters as Json[] | undefined) ?? []),
    // Conditional reads: If-None-Match names the copy the client has (see finishResponses).
    ...(responses['304'] && responses['200'] ? [IF_NONE_MATCH] : []),
    ...(facts.idempotent ? [parameterRef('IdempotencyKey')] : []),
    parameterRef('RequestId'),
  ];
}

/** One operation's answers: descriptions, examples, the headers its facts promise, shared errors. */
function finishResponses(operation: Json, facts: RouteFacts, admin: boolean, shared: Record<string, Json>) {
  const responses = sortedKeys(operation.responses as Record<string, Json>);
  for (const [status, response] of Object.entries(responses)) {
    if (response.description === 'Default Response' && SUCCESS_DESCRIPTIONS[status])
      response.description = SUCCESS_DESCRIPTIONS[status];
    exampleFromItems((response.content as Record<string, Json> | undefined)?.['application/json']);
    response.headers = {
      ...((response.headers as Json | undefined) ?? {}),
      ...responseHeaders(status, facts.rateLimited, facts.idempotent),
    };
    responses[status] = sharedErrorResponse(status, response, admin, shared);
  }
  const success = responses['200'];
  if (success && responses['304']) {
    // Conditional reads: the answer's ETag, sent back as If-None-Match, makes an unchanged answer a 304.
    success.headers = { etag: ETAG_HEADER, ...(success.headers as Json) };
  }
  if (success && facts.menuCursor) {
    success.headers = { ...(success.headers as Json | undefined), 'menu-cursor': MENU_CURSOR_HEADER };
  }
  return responses;
}

/**
 * The finishing touches on the generated object: named schemas and shared error responses, error
 * examples and headers, ETag revalidation, what each route declared (rate limits, Menu-Cursor,
 * Idempotency-Key), success descriptions, and a stable order of every map.
 */
export function finishDocument(document: Json): Json {
  const components = document.components as Record<string, Json>;
  components.responses ??= {};
  const shared = components.responses as Record<string, Json>;
  shared.MethodNotAllowed = METHOD_NOT_ALLOWED;
  components.headers = { ...HEADERS };
  components.parameters = { ...PARAMETERS };
  const paths = sortedKeys((document.paths ?? {}) as Record<string, Json>);
  for (const [path, item] of Object.entries(paths)) {
    const admin = path.startsWith('/admin/');
    const ordered = sortedKeys(item, (a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
    for (const [method, operation] of Object.entries(ordered) as [string, Json][]) {
      const facts = takeFacts(operation);
      finishRequest(method, operation, facts);
      operation.responses = finishResponses(operation, facts, admin, shared);
    }
    paths[path] = ordered;
  }
  components.schemas ??= {};
  document.paths = nameTitledSchemas(paths, components.schemas as Record<string, Json>);
  for (const key of Object.keys(components)) components[key] = sortedKeys(components[key]!);
  return document;
}
