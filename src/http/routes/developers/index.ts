import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { addressKey } from '../../../infra/address.js';
import { ServiceError } from '../../../services/errors.js';
import type { IntegratorService } from '../../../services/integrators.js';
import type { LoginGuard } from '../../../services/login-guard/login-guard.js';
import { ownOrigin } from '../admin/auth.js';
import { PAGE_CSP } from '../display/html.js';
import {
  CONFIRM_JS,
  confirmedPage,
  confirmPage,
  DEVELOPERS_CSS,
  type RegistrationFields,
  refusedPage,
  registeredPage,
  registrationPage,
} from './pages.js';

export interface DevelopersOptions {
  integrators: IntegratorService;
  /** The address links point to (--public-url); by default the server as the browser reached it. */
  siteUrl?: string;
  /**
   * The login guard: each registration counts as one attempt of the name `registration@ADDRESS`, so
   * that one address registers at most --login-failures' per-username limit of times a window (each
   * sends an email and hashes a password).
   */
  guard?: LoginGuard;
}

const HTML = 'text/html; charset=utf-8';
/** A registration is a few short fields: anything bigger is not one. */
const FORM_LIMIT = 16 * 1024;
const hide = { hide: true };

type FormRequest = FastifyRequest<{ Body: Record<string, string> }>;

/**
 * /developers: integrators register themselves (and confirm their email) with plain HTML forms, no
 * script needed but the one that reads the confirmation link's fragment.
 */
export const developersRoutes: FastifyPluginAsync<DevelopersOptions> = async (app, options) => {
  // The forms post application/x-www-form-urlencoded, which the rest of the server does not read.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (_request, body, done) => {
      const fields: Record<string, string> = {};
      for (const [name, value] of new URLSearchParams(String(body))) fields[name] ??= value;
      done(null, fields);
    },
  );

  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .type(HTML)
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-store')
      // Not no-referrer: under it, a form's POST says `Origin: null`, which the origin check refuses.
      .header('referrer-policy', 'same-origin')
      .send(body);

  /** A form posted from another site is refused: only this server's own page registers. */
  const foreign = (request: FastifyRequest) =>
    request.headers.origin !== undefined && request.headers.origin !== ownOrigin(request);

  const asset = (type: string, body: string) => (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type(type).header('cache-control', 'public, max-age=300').send(body);
  app.get('/developers/developers.css', { schema: hide }, asset('text/css; charset=utf-8', DEVELOPERS_CSS));
  app.get('/developers/confirm.js', { schema: hide }, asset('text/javascript; charset=utf-8', CONFIRM_JS));

  app.get('/developers', { schema: hide }, (_request, reply) => html(reply, 200, registrationPage()));

  app.post('/developers', { schema: hide }, async (request: FormRequest, reply) => {
    if (foreign(request)) return html(reply, 403, refusedPage('Register from this server’s own page.'));
    const attempt = { username: `registration@${addressKey(request.ip)}` };
    const verdict = await options.guard?.check(attempt);
    if (verdict && !verdict.allowed) {
      reply.header('retry-after', String(verdict.retryAfterSeconds));
      return html(
        reply,
        429,
        refusedPage(
          `Too many registrations from your address: try again in ${verdict.retryAfterSeconds} seconds.`,
        ),
      );
    }
    const body = request.body ?? {};
    const fields: RegistrationFields = {
      name: String(body.name ?? ''),
      company: String(body.company ?? ''),
      email: String(body.email ?? ''),
      building: String(body.building ?? ''),
    };
    try {
      await options.guard?.failed(attempt);
      const registration = await options.integrators.register(
        { ...fields, password: body.password },
        options.siteUrl ?? ownOrigin(request),
      );
      if (registration.url && !registration.emailed) {
        // The link is a secret, so it stays out of the log: the operator prints a new one on its own
        // terminal and passes it on (docs/developers.md).
        request.log.warn(
          { email: registration.email, reason: registration.emailError ?? 'no --smtp-url' },
          `integrator confirmation not emailed; its link: npx menu-api integrator confirm-link ${registration.email}`,
        );
      }
      return html(reply, 200, registeredPage(registration.email));
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'invalid_request') {
        return html(reply, 400, registrationPage(fields, error.message));
      }
      throw error;
    }
  });

  app.get('/developers/confirm', { schema: hide }, (_request, reply) => html(reply, 200, confirmPage()));

  app.post('/developers/confirm', { schema: hide }, async (request: FormRequest, reply) => {
    if (foreign(request)) return html(reply, 403, refusedPage('Confirm from this server’s own page.'));
    try {
      const integrator = await options.integrators.confirm(request.body?.code);
      return html(reply, 200, confirmedPage(integrator.status === 'approved'));
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'not_found') {
        return html(reply, 404, confirmPage(error.message));
      }
      throw error;
    }
  });
};
