import type { FastifyPluginAsync } from 'fastify';
import type { AdminKeyVerifier } from '../../services/admin-keys.js';
import type { IdempotencyService } from '../../services/idempotency.js';
import type { Services } from '../../services/index.js';
import type { LoginGuard } from '../../services/login-guard/login-guard.js';
import { bearerCheck } from './auth.js';
import type { AdminContext } from './context.js';
import { credentialRoutes } from './credentials.js';
import { dispensaryRoutes } from './dispensaries.js';
import { idempotentWriter } from './idempotent.js';
import { menuRoutes } from './menu.js';
import { webhookRoutes } from './webhooks.js';

export interface AdminOptions {
  services: Services;
  verifier: AdminKeyVerifier;
  idempotency: IdempotencyService;
  /** Largest request body of the sync API (a full sync of a big menu), bytes. */
  bodyLimit: number;
  /** Counts failed bearer checks per client address, and refuses an address that failed too often. */
  guard?: LoginGuard;
}

/** The sync API for a dispensary's point of sale and for automation: /admin/v1, bearer admin keys. */
export const adminRoutes: FastifyPluginAsync<AdminOptions> = async (app, options) => {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= options.bodyLimit;
  });
  // The sync API reads JSON only: a JSON text labelled text/plain gets 415 like any other type it
  // does not read (Fastify's default text/plain parser would hand the schema a string: a 400).
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', bearerCheck(options.verifier, options.guard));
  const context: AdminContext = { services: options.services, write: idempotentWriter(options.idempotency) };
  await app.register(dispensaryRoutes, context);
  await app.register(credentialRoutes, context);
  await app.register(menuRoutes, context);
  await app.register(webhookRoutes, context);
};
