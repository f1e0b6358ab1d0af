import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { scopedDispensary } from '../../services/admin-keys.js';
import { auditEntryRecord } from '../../services/records.js';
import type { UsageCounter } from '../../services/usage.js';
import { errorResponses } from '../error-responses.js';
import { adminKeyOf, requireDispensaryScope, requireFullScope } from './auth.js';
import type { AdminContext } from './context.js';
import { AuditEntryOut, AuditQuerystring, UsageOut, UsageQuerystring } from './schemas.js';

/** The audit log (a scoped key sees its dispensary's entries only) and per-credential usage. */
export const activityRoutes: FastifyPluginAsync<AdminContext & { usage?: UsageCounter }> = async (
  app,
  { services, usage },
) => {
  app.get(
    '/audit',
    {
      schema: {
        operationId: 'listAuditEntries',
        summary: 'Read the audit log, newest last',
        tags: ['Sync API: audit log'],
        querystring: AuditQuerystring,
        response: { 200: Type.Array(AuditEntryOut), ...errorResponses(400, 401, 403, 429, 500, 503) },
      },
    },
    async (request) => {
      const query = request.query as {
        dispensary_id?: string;
        actor?: string;
        since?: string;
        until?: string;
        limit?: string;
      };
      const dispensaryId = query.dispensary_id === undefined ? undefined : Number(query.dispensary_id);
      const scoped = scopedDispensary(adminKeyOf(request).scope);
      if (dispensaryId !== undefined) requireDispensaryScope(request, dispensaryId);
      const entries = await services.audit.list({
        dispensaryId: dispensaryId ?? scoped,
        actor: query.actor,
        since: query.since,
        until: query.until,
        limit: query.limit === undefined ? 500 : Number(query.limit),
      });
      return entries.map(auditEntryRecord);
    },
  );

  app.get(
    '/usage',
    {
      schema: {
        operationId: 'getUsage',
        summary: 'Requests per credential per hour',
        description:
          'Counted in memory by each server process and added to the database at most once a minute; this process adds what it has not written yet.',
        tags: ['Sync API: usage'],
        querystring: UsageQuerystring,
        response: { 200: Type.Array(UsageOut), ...errorResponses(400, 401, 403, 429, 500, 503) },
      },
    },
    async (request) => {
      requireFullScope(request);
      const days = Number((request.query as { days?: string }).days ?? 7);
      return usage ? usage.list(days) : [];
    },
  );
};
