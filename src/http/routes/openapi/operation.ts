import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { FORMS } from '../../../forms/index.js';
import { type RouteCredentials, type RouteFacts, routeFacts } from '../../pipeline/route-facts.js';
import { documentedParameters, withoutCodeCheckedBranches } from './document-notes.js';

/**
 * What each route's operation gets from the route beside its schema: its security (the credentials
 * it declares, else its request form's, by its tag), and the facts its config declares, which
 * finishDocument turns into parameters and headers.
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

/** The security of the credentials a route declares; `none` has none (`security: []`). */
const DECLARED_SECURITY: Record<Exclude<RouteCredentials, object>, Record<string, string[]>[]> = {
  'admin-key': [{ AdminKey: [] }, { ConsoleSession: [] }],
  'console-session': [{ ConsoleSession: [] }],
};

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
function withSecurity(schema: FastifySchema, facts: RouteFacts): FastifySchema {
  const tags = (schema as { tags?: string[] }).tags ?? [];
  const declared = facts.credentials;
  if (typeof declared === 'string') return { ...schema, security: DECLARED_SECURITY[declared] };
  const security =
    declared === undefined
      ? tags.map((tag) => FORM_SECURITY.get(tag)).find((found) => found !== undefined)
      : undefined;
  if (security) return { ...schema, security };
  // No security scheme applies: `security: []`, and the description says why.
  const reason =
    declared?.none ?? tags.map((tag) => NO_SECURITY_REASONS[tag] ?? FORM_NO_SCHEME.get(tag)).find(Boolean);
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
  const facts = routeFacts(route.config);
  // The request as the document gives it, after the schemas' notes (copies: the route validates the originals).
  const request = {
    ...(schema.params === undefined ? {} : { params: documentedParameters(schema.params) }),
    ...(schema.querystring === undefined ? {} : { querystring: documentedParameters(schema.querystring) }),
    ...(schema.body === undefined ? {} : { body: withoutCodeCheckedBranches(schema.body) }),
  };
  return {
    schema: { ...withSecurity(schema, facts), ...request, [FACTS_KEY]: facts },
    url,
  } as ReturnType<Transform>;
};
