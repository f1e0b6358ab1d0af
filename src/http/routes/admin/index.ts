import type { FastifyPluginAsync } from 'fastify';
import type { AdminKeyVerifier } from '../../../services/admin-keys.js';
import type { ConsoleSessionService } from '../../../services/console-sessions.js';
import type { DeveloperPortal } from '../../../services/developer-portal.js';
import type { IdempotencyService } from '../../../services/idempotency.js';
import type { Services } from '../../../services/index.js';
import type { LoginGuard } from '../../../services/login-guard/login-guard.js';
import type { OwnPasswordService } from '../../../services/own-password.js';
import type { PasskeyService } from '../../../services/passkeys.js';
import type { SecondFactorService } from '../../../services/second-factor.js';
import type { SsoService } from '../../../services/sso.js';
import type { UsageCounter } from '../../../services/usage.js';
import { accountRoutes } from './accounts.js';
import { activityRoutes } from './activity.js';
import { adminKeyRoutes } from './admin-keys.js';
import { accessCheck, bearerCheck } from './auth.js';
import type { AdminContext } from './context.js';
import { credentialRoutes } from './credentials.js';
import { developerRoutes } from './developer.js';
import { dispensaryRoutes } from './dispensaries.js';
import { idempotentWriter } from './idempotent.js';
import { integratorRoutes } from './integrators.js';
import { menuRoutes } from './menu.js';
import { ownPasswordRoutes } from './own-password.js';
import { passkeyRoutes } from './passkeys.js';
import { sessionRoutes } from './session.js';
import { specialRoutes } from './specials.js';
import { ssoRoutes } from './sso.js';
import { totpRoutes } from './totp.js';
import { webhookRoutes } from './webhooks.js';

export interface AdminOptions {
  services: Services;
  verifier: AdminKeyVerifier;
  idempotency: IdempotencyService;
  /** Largest request body of the sync API (a full sync of a big menu), bytes. */
  bodyLimit: number;
  /** Counts failed bearer checks per client address, and refuses an address that failed too often. */
  guard?: LoginGuard;
  /** The console's sign-in sessions: with them, a session cookie (and CSRF token on writes) is accepted too. */
  sessions?: ConsoleSessionService;
  /** Accounts' passkeys (with sessions): registered from a session, and a way to sign in. */
  passkeys?: PasskeyService;
  /** Accounts changing their own password (with sessions). */
  ownPassword?: OwnPasswordService;
  /** One-time codes as a second factor of accounts (with sessions). */
  secondFactors?: SecondFactorService;
  /** Requests per credential per hour (GET /usage). */
  usage?: UsageCounter;
  /** An integrator's own usage and webhooks (GET /developer/usage, /developer/webhooks). */
  portal?: DeveloperPortal;
  /** The address one-time links point to (--public-url); by default the server as the caller reached it. */
  consoleUrl?: string;
  /** Single sign-on with OpenID Connect (--oidc-issuer), when configured. */
  sso?: SsoService;
}

/** The sync API for a dispensary's point of sale, automation and the console: /admin/v1. */
export const adminRoutes: FastifyPluginAsync<AdminOptions> = async (app, options) => {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= options.bodyLimit;
  });
  // The sync API reads JSON only: a JSON text labelled text/plain gets 415 like any other type it
  // does not read (Fastify's default text/plain parser would hand the schema a string: a 400).
  app.removeContentTypeParser('text/plain');
  if (options.sessions) {
    await app.register(sessionRoutes, {
      sessions: options.sessions,
      accounts: options.services.accounts,
      passkeys: options.passkeys,
      secondFactors: options.secondFactors,
      consoleUrl: options.consoleUrl,
    });
  }
  if (options.sessions) {
    await app.register(ssoRoutes, {
      sessions: options.sessions,
      sso: options.sso,
      consoleUrl: options.consoleUrl,
    });
  }
  await app.register(async (keyed) => {
    keyed.addHook('onRequest', bearerCheck(options.verifier, options.guard, options.sessions));
    keyed.addHook('preHandler', accessCheck);
    const context: AdminContext = {
      services: options.services,
      write: idempotentWriter(options.idempotency),
    };
    await keyed.register(dispensaryRoutes, context);
    await keyed.register(credentialRoutes, context);
    await keyed.register(adminKeyRoutes, context);
    await keyed.register(menuRoutes, context);
    await keyed.register(webhookRoutes, context);
    await keyed.register(specialRoutes, context);
    await keyed.register(activityRoutes, { ...context, usage: options.usage });
    await keyed.register(accountRoutes, { ...context, consoleUrl: options.consoleUrl });
    if (options.ownPassword) {
      await keyed.register(ownPasswordRoutes, { ...context, ownPassword: options.ownPassword });
    }
    await keyed.register(integratorRoutes, context);
    if (options.portal) await keyed.register(developerRoutes, { ...context, portal: options.portal });
    if (options.secondFactors) {
      await keyed.register(totpRoutes, { ...context, secondFactors: options.secondFactors });
    }
    if (options.passkeys) {
      await keyed.register(passkeyRoutes, {
        ...context,
        passkeys: options.passkeys,
        consoleUrl: options.consoleUrl,
      });
    }
  });
};
