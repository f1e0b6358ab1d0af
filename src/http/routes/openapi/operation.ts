import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { FORMS } from '../../../forms/index.js';
import { routeFacts } from '../../pipeline/route-facts.js';

/**
 * What each route's operation gets from the route beside its schema: its security (by its tags and
 * path), and the facts its config declares, which finishDocument turns into parameters and headers.
 */

/** Where the transform leaves a route's declared facts for finishDocument, which takes them off. */
export const FACTS_KEY = 'x-route-facts';

/** Each form whose credentials have security schemes (headers): its routes require all of them together. */
const FORM_SECURITY = new Map(
  FORMS.flatMap(({ transport }) => {
    const schemes = transport.openApi.securitySchemes;
    return schemes
      ? [[transport.tag, [Object.fromEntries(Object.keys(schemes).map((name) => [name, []]))]]]
      : [];
  }),
);
const ADMIN_SECURITY = [{ AdminKey: [] }];

/** Each form whose credentials no security scheme can describe (body fields): why its routes have none. */
const FORM_NO_SCHEME = new Map(
  FORMS.flatMap(({ transport }) =>
    transport.openApi.noSchemeReason ? [[transport.tag, transport.openApi.noSchemeReason] as const] : [],
  ),
);

/** Why an operation without a security scheme has none (`security: []`), by its tag. */
const NO_SECURITY_REASONS: Record<string, string> = {
  Operations:
    'No credentials (`security: []`): health checks and metrics are for supervisors and load balancers; serve them on a private port with `--ops-port` in production.',
};

type Transform = NonNullable<FastifyDynamicSwaggerOptions['transform']>;

/** The security an operation requires, with the reason in its description where none applies. */
function withSecurity(schema: FastifySchema, url: string): FastifySchema {
  const tags = (schema as { tags?: string[] }).tags ?? [];
  if (url.startsWith('/admin/')) return { ...schema, security: ADMIN_SECURITY };
  const security = tags.map((tag) => FORM_SECURITY.get(tag)).find((found) => found !== undefined);
  if (security) return { ...schema, security };
  // No security scheme applies: `security: []`, and the description says why.
  const reason =
    tags.map((tag) => NO_SECURITY_REASONS[tag] ?? FORM_NO_SCHEME.get(tag)).find(Boolean) ?? undefined;
  const description = (schema as { description?: string }).description;
  return {
    ...schema,
    security: [],
    ...(reason ? { description: description ? `${description}\n\n${reason}` : reason } : {}),
  };
}

/** @fastify/swagger's transform: each route's schema with its security and its declared facts. */
export const transformRoute: Transform = ({ schema, url, route }) => {
  if (!schema) return { schema, url };
  return {
    schema: { ...withSecurity(schema, url), [FACTS_KEY]: routeFacts(route.config) },
    url,
  } as ReturnType<Transform>;
};
