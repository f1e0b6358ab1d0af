import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { auditEntryRecord } from '../../../services/records.js';
import type { UsageCounter } from '../../../services/usage.js';
import { AuditEntryOut, AuditQuerystring, UsageOut, UsageQuerystring } from './activity.schemas.js';
import { reachOf, requireDispensary } from './auth.js';
import type { AdminContext } from './context.js';
import { adminRoutes } from './route.js';

/** The audit log (a scoped key sees its dispensary's entries only) and per-credential usage. */
export const activityRoutes: FastifyPluginAsync<AdminContext & { usage?: UsageCounter }> = async (
  app,
  { services, write, usage },
) => {
  const auditLog = adminRoutes(app, write, ['Sync API: audit log']);
  const usageCounts = adminRoutes(app, write, ['Sync API: usage']);

  auditLog('audit').read('/audit', {
    operationId: 'listAuditEntries',
    summary: 'Read the audit log, newest last',
    schema: { querystring: AuditQuerystring, response: { 200: Type.Array(AuditEntryOut) } },
    run: async (request) => {
      const { query } = request;
      const dispensaryId = query.dispensary_id === undefined ? undefined : Number(query.dispensary_id);
      if (dispensaryId !== undefined) requireDispensary(request, dispensaryId);
      const entries = await services.audit.list({
        dispensaryIds: dispensaryId === undefined ? reachOf(request) : [dispensaryId],
        actor: query.actor,
        since: query.since,
        until: query.until,
        limit: query.limit === undefined ? 500 : Number(query.limit),
      });
      return entries.map(auditEntryRecord);
    },
  });

  usageCounts('operator').read('/usage', {
    operationId: 'getUsage',
    summary: 'Requests per credential per hour',
    description:
      'Counted in memory by each server process and added to the database at most once a minute; this process adds what it has not written yet.',
    schema: { querystring: UsageQuerystring, response: { 200: Type.Array(UsageOut) } },
    run: async (request) => {
      const days = Number(request.query.days ?? 7);
      return usage ? usage.list(days * 24) : [];
    },
  });
};
