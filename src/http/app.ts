import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { FormBNames, FormContext } from '../forms/form.js';
import { FORMS } from '../forms/index.js';
import type { AccessService } from '../services/access.js';
import type { MenuReader } from '../services/menu-reader.js';
import { handleError, sendError } from './errors.js';

export interface AppOptions {
  access: AccessService;
  menus: MenuReader;
  formBNames: FormBNames;
  /** Largest request body of the public endpoints, in bytes. */
  bodyLimit: number;
  logger: FastifyBaseLogger | false;
}

/** A client may send its own request id for tracing; anything unusual is replaced by ours. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const fastifyOptions: FastifyServerOptions = {
    bodyLimit: options.bodyLimit,
    genReqId: (request) => {
      const offered = request.headers['x-request-id'];
      return typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
    },
    ajv: {
      // A field of the wrong type is the client's mistake to hear about, never something to coerce.
      customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false },
    },
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    return503OnClosing: true,
  };
  const app = Fastify(
    options.logger
      ? { ...fastifyOptions, loggerInstance: options.logger }
      : { ...fastifyOptions, logger: false },
  );

  // Remember which methods each path has, so that a wrong method gets 405 with Allow instead of 404.
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByPath.set(route.url, methods);
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = methodsByPath.get(path);
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
      `There is no ${path}. The menu is at POST /menu (Form A) or GET /menu (Form B).`,
    );
  });

  const context: FormContext = {
    access: options.access,
    menus: options.menus,
    formBNames: options.formBNames,
  };
  for (const form of FORMS) await app.register(form.routes, context);
  return app;
}
