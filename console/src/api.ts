import type { AdminSession, Problem } from '../../src/client/types.js';

/**
 * Every call of the console goes to the sync API (/admin/v1) with the session cookie, which the page
 * cannot read (HttpOnly). Writes carry the session's CSRF token; the browser adds the Origin header.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
  }

  /** The server's message for one field (`name`, `prices[0].price`, `[0].name`), if it named it. */
  at(field: string): string | undefined {
    const found = this.problems.find(
      (problem) =>
        problem.field === field || problem.field === `[0].${field}` || problem.field.endsWith(`.${field}`),
    );
    return found?.message;
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => {};

export function useSession(session: AdminSession | null, signedOut: () => void): void {
  csrfToken = session?.csrf_token ?? '';
  onSignedOut = signedOut;
}

export const API = '/admin/v1';

async function errorOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as {
      error?: { code: string; message: string; problems?: Problem[] };
    };
    if (body.error)
      return new ApiError(response.status, body.error.code, body.error.message, body.error.problems);
  } catch {
    // Not JSON: the status says enough.
  }
  return new ApiError(response.status, 'unknown', `The server answered ${response.status}.`);
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await fetch(`${API}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  if (response.status === 401 && path !== '/session') onSignedOut();
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A write with upload progress (fetch has none): the import's apply step. */
export function upload<T>(
  path: string,
  body: string,
  contentType: string,
  onProgress: (fraction: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${API}${path}`);
    request.setRequestHeader('content-type', contentType);
    request.setRequestHeader('x-csrf-token', csrfToken);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      const response = new Response(request.responseText, { status: request.status });
      if (request.status >= 200 && request.status < 300) resolve(JSON.parse(request.responseText) as T);
      else errorOf(response).then(reject, reject);
    };
    request.onerror = () =>
      reject(new ApiError(0, 'network_error', 'The server could not be reached. Try again.'));
    request.send(body);
  });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The OpenAPI document, read once: the item editor's and store form's fields come from its schemas. */
let openApi: Promise<OpenApiDocument> | undefined;
export interface JsonSchema {
  type?: string | string[];
  enum?: string[];
  description?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  $ref?: string;
  anyOf?: JsonSchema[];
}
interface OpenApiDocument {
  components: { schemas: Record<string, JsonSchema> };
}
/**
 * A schema with its `$ref`s to components replaced by the components themselves (the item's batch,
 * analytes, images... are components), so that a form reads one plain tree.
 */
function inlined(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const component = components[name];
    if (!component) throw new Error(`The OpenAPI document has no ${name} schema.`);
    return inlined(component, components);
  }
  const out: JsonSchema = { ...schema };
  if (schema.items) out.items = inlined(schema.items, components);
  if (schema.anyOf) out.anyOf = schema.anyOf.map((branch) => inlined(branch, components));
  if (schema.properties)
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => [name, inlined(property, components)]),
    );
  return out;
}

export function schemaOf(name: string): Promise<JsonSchema> {
  openApi ??= fetch('/openapi.json', { credentials: 'same-origin' }).then(
    (response) => response.json() as Promise<OpenApiDocument>,
  );
  return openApi.then((document) => inlined({ $ref: name }, document.components.schemas));
}
