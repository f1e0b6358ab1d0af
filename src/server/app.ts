import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { registerPublicEndpoints } from '../forms/endpoints/index.js';
import {
  type FormBNames,
  type FormContext,
  type LiveContext,
  menuOf,
  type PeerPages,
} from '../forms/form.js';
import { FORMS } from '../forms/index.js';
import { answerHeaders, streamHeaders } from '../http/pipeline/answer-headers.js';
import { recordAnswers } from '../http/pipeline/answer-record.js';
import { parseBodies } from '../http/pipeline/body-parsers.js';
import { clientErrorHandler } from '../http/pipeline/client-errors.js';
import { DOCUMENT_NOTES } from '../http/pipeline/document-notes.js';
import { drainOnClose, endOnClose, isDraining } from '../http/pipeline/drain.js';
import { handleError, handleFrameworkError, sendError } from '../http/pipeline/errors.js';
import { continueWithinLimit } from '../http/pipeline/expect-continue.js';
import { lazySchemaCompilers } from '../http/pipeline/lazy-compilers.js';
import type { Metrics } from '../http/pipeline/metrics.js';
import {
  addProtection,
  clientAddress,
  type ProtectionOptions,
  protectionServerOptions,
} from '../http/pipeline/protection.js';
import { credentialCounter } from '../http/pipeline/rate-limit.js';
import { type LaneForm, laneServer, replayReadBody } from '../http/pipeline/read-lane.js';
import { decorateRequests } from '../http/pipeline/request-decorations.js';
import { requestIdOf } from '../http/pipeline/request-id.js';
import { lazyChildLogger } from '../http/pipeline/request-logger.js';
import { type AdminOptions, adminRoutes } from '../http/routes/admin/index.js';
import { consoleRoutes } from '../http/routes/console.js';
import { developersRoutes } from '../http/routes/developers/index.js';
import { type DisplayOptions, displayRoutes } from '../http/routes/display/index.js';
import { type DocsOptions, docsRoutes } from '../http/routes/docs.js';
import { type HealthChecks, healthRoutes, unavailableWhileUnreachable } from '../http/routes/health.js';
import { landingRoutes } from '../http/routes/landing.js';
import { metricsRoute } from '../http/routes/metrics.js';
import { registerOpenApi } from '../http/routes/openapi.js';
import type { AccessService } from '../services/access.js';
import type { MenuReader } from '../services/menu-reader.js';
import type { MenuSnapshots } from '../services/menu-snapshots.js';

export interface AppOptions {
  access: AccessService;
  menus: MenuReader;
  /** Serialized answers kept until the next change: the menus, store information and inventory. */
  snapshots: MenuSnapshots;
  formBNames: FormBNames;
  /** The live feed and its event streams (/changes, /events). */
  live: Omit<LiveContext, 'streamHeaders'>;
  /** The other workers of `serve --workers N` (FormContext.peers). */
  peers?: PeerPages;
  /** Largest request body of the public endpoints, in bytes. */
  bodyLimit: number;
  logger: FastifyBaseLogger | false;
  /** `/healthz`, `/readyz`, and 503 for everything else while the database is unreachable. */
  health?: HealthChecks;
  /** false: `/healthz`, `/readyz` and `/metrics` are served by the ops listener instead (`--ops-port`). */
  opsRoutes?: boolean;
  /** The sync API; left out, the server is read-only. */
  admin?: AdminOptions;
  /** Rate limits, connection limits, CORS, proxies (docs/limits.md). */
  protection?: ProtectionOptions;
  /** The public surfaces of published dispensaries (/m/{slug}, /board/{slug}, /embed.js); left out, none. */
  display?: DisplayOptions;
  /** The /docs page; `demo` pre-fills its credentials there. */
  docs?: DocsOptions;
  /** On a demo server (`--demo`): the demo dispensary's slug, whose public pages the landing page links. */
  demoSlug?: string;
  /** What the app's answers are counted in, and what its `/metrics` serves. */
  metrics: Metrics;
  /**
   * false: every request goes through Fastify, also the plain menu reads the read lane answers before
   * routing (src/http/pipeline/read-lane.ts). Tests compare the two.
   */
  readLane?: boolean;
  /** Tests: sees every answer as it is sent (the contract test checks each against /openapi.json). */
  contractCheck?: ContractCheck;
}

export type ContractCheck = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void;

/** An Ajv plugin, as Fastify's `ajv.plugins` takes it. */
type AjvPlugin = Extract<
  NonNullable<NonNullable<FastifyServerOptions['ajv']>['plugins']>[number],
  (...args: never) => unknown
>;
const declareDocumentNotes: AjvPlugin = (ajv) => ajv.addVocabulary(DOCUMENT_NOTES);

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const server = laneServer();
  const fastifyOptions: FastifyServerOptions = {
    ...protectionServerOptions(options.protection),
    // The app's server, with the read lane in front of Fastify's handler (src/http/pipeline/read-lane.ts).
    serverFactory: server.serverFactory,
    bodyLimit: options.bodyLimit,
    childLoggerFactory: lazyChildLogger,
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    ajv: {
      // A field of the wrong type is the client's mistake to hear about, never something to coerce.
      customOptions: {
        coerceTypes: false,
        allErrors: true,
        removeAdditional: false,
        // Each finding carries its schema, so that an unknown field's problem can list the known ones.
        verbose: true,
      },
      // The OpenAPI document's notes on a schema: no check of their own.
      plugins: [declareDocumentNotes],
    },
    schemaController: lazySchemaCompilers(),
    frameworkErrors: handleFrameworkError,
    // Closing drains instead (drainOnClose): requests already on a connection are answered, not 503'd.
    return503OnClosing: false,
    clientErrorHandler,
  };
  const app = Fastify(
    options.logger
      ? { ...fastifyOptions, loggerInstance: options.logger }
      : { ...fastifyOptions, logger: false },
  );

  const countCredential = credentialCounter(options.protection?.rateLimits);
  decorateRequests(app, options.metrics, countCredential);
  recordAnswers(app, options.metrics, options.health?.reachable);
  drainOnClose(app);
  // Before any hook that may refuse: 100 Continue, unless the announced body is over the route's limit.
  app.addHook('onRequest', continueWithinLimit);
  parseBodies(app);

  // Remember which methods each path has, so that a wrong method gets 405 with Allow instead of 404.
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByPath.set(route.url, methods);
  });

  // The one onSend hook, first, so that every route has it: the standard headers of every answer.
  const contractCheck = options.contractCheck;
  app.addHook('onSend', (request, reply, payload, next) => {
    answerHeaders(request, reply);
    contractCheck?.(request, reply, payload);
    next(null, payload);
  });
  app.setErrorHandler(handleError);
  // Before every route: the OpenAPI document is built from the routes registered after it.
  await registerOpenApi(app);
  await app.register(docsRoutes, options.docs ?? {});
  if (options.admin) await app.register(consoleRoutes);
  await app.register(landingRoutes, {
    opsRoutes: Boolean(options.health) && options.opsRoutes !== false,
    console: Boolean(options.admin),
    demoSlug: options.display ? options.demoSlug : undefined,
  });
  await addProtection(app, options.protection);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = allowedMethods(methodsByPath, path);
    if (allowed) {
      const allow = [...allowed].sort().join(', ');
      reply.header('allow', allow);
      return sendError(
        reply,
        request,
        'method_not_allowed',
        `${request.method} is not allowed on ${path}. Use ${allow}.`,
      );
    }
    return sendError(
      reply,
      request,
      'not_found',
      path.startsWith('/admin/')
        ? `There is no ${path} in the sync API. Its paths are under /admin/v1 (see /docs or /openapi.json), for example GET /admin/v1/dispensaries.`
        : `There is no ${path}. The menu is at POST /menu (Form A) or GET /menu (Form B).`,
    );
  });

  if (options.health) {
    app.addHook('onRequest', unavailableWhileUnreachable(options.health));
    if (options.opsRoutes !== false) {
      await app.register(healthRoutes, options.health);
      await app.register(metricsRoute, { source: () => options.metrics.text() });
    }
  }

  const context: FormContext = {
    access: options.access,
    menus: options.menus,
    snapshots: options.snapshots,
    formBNames: options.formBNames,
    live: { ...options.live, streamHeaders },
    ...(options.peers ? { peers: options.peers } : {}),
  };
  // Event streams never finish by themselves: they end when closing starts, so the close need not wait.
  endOnClose(app, () => options.live.hub.stop());
  const protection = options.protection ?? {};
  // With CORS every answer's headers depend on the Origin: such a server answers through Fastify.
  const readLane = options.readLane !== false && !protection.corsOrigins?.length;
  // Before the routes, so that each has it: a body the lane read and left to Fastify.
  if (readLane) app.addHook('preParsing', replayReadBody);
  await registerPublicEndpoints(app, FORMS, context);
  if (readLane) {
    // Every form whose transport declares a plain read, with the menu its route reads.
    const forms: LaneForm[] = [];
    for (const form of FORMS) {
      const read = form.transport.plainRead;
      const { method, validators } = form.transport;
      const path = `${form.transport.prefix ?? ''}/menu`;
      if (read) forms.push({ method, path, validators, read, menu: menuOf(form, context) });
    }
    server.install({
      access: options.access,
      forms,
      bodyLimit: options.bodyLimit,
      metrics: options.metrics,
      log: app.log,
      rateLimits: protection.rateLimits,
      countCredential,
      clientAddress: clientAddress(protection.trustProxy),
      open: () => !isDraining(app) && (options.health?.reachable() ?? true),
    });
  }
  if (options.display) await app.register(displayRoutes, options.display);
  if (options.admin) {
    await app.register(adminRoutes, { ...options.admin, prefix: '/admin/v1' });
    await app.register(developersRoutes, {
      integrators: options.admin.services.integrators,
      siteUrl: options.admin.consoleUrl,
      guard: options.admin.guard,
    });
  }
  return app;
}

/** The methods of the routes a path matches: its own, or a pattern's such as /dispensaries/:id/menu. */
function allowedMethods(methodsByPath: Map<string, Set<string>>, path: string): Set<string> | undefined {
  const exact = methodsByPath.get(path);
  if (exact) return exact;
  const segments = path.split('/');
  let found: Set<string> | undefined;
  for (const [pattern, methods] of methodsByPath) {
    const parts = pattern.split('/');
    if (!pattern.includes('/:') || parts.length !== segments.length) continue;
    const matches = parts.every((part, index) =>
      part.startsWith(':') ? segments[index] !== '' : part === segments[index],
    );
    if (matches) found = new Set([...(found ?? []), ...methods]);
  }
  return found;
}
