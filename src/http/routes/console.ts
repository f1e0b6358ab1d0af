import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { packagePath } from '../../util/package-files.js';

/**
 * GET /console: the operator's and dispensary staff's web console (console/, built by `npm run build`
 * into dist/console). It is a client of the sync API only (/admin/v1, with the session cookie). Its
 * files have content hashes in their names, so they are cached for a year; the page itself never is.
 */
const CONSOLE_DIRECTORY = packagePath('dist', 'console');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Nothing leaves this origin; no inline script or style; never framed. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer');
}

interface Built {
  page: string;
  assets: Map<string, { body: Buffer; type: string }>;
}

function readBuilt(): Built | undefined {
  const root = CONSOLE_DIRECTORY;
  if (!existsSync(join(root, 'index.html'))) return undefined;
  const assets = new Map<string, { body: Buffer; type: string }>();
  const folder = join(root, 'assets');
  if (existsSync(folder)) {
    for (const file of readdirSync(folder)) {
      assets.set(file, {
        body: readFileSync(join(folder, file)),
        type: TYPES[extname(file)] ?? 'application/octet-stream',
      });
    }
  }
  return { page: readFileSync(join(root, 'index.html'), 'utf8'), assets };
}

export const consoleRoutes: FastifyPluginAsync = async (app) => {
  const built = readBuilt();
  const hide = { hide: true };
  const page = async (_request: unknown, reply: FastifyReply) => {
    secure(reply).header('cache-control', 'no-cache');
    if (!built) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built. Run `npm run build`, then restart the server.');
    }
    return reply.type('text/html; charset=utf-8').send(built.page);
  };
  app.get('/console', { schema: hide }, page);
  app.get('/console/*', { schema: hide }, page);
  app.get<{ Params: { file: string } }>('/console/assets/:file', { schema: hide }, async (request, reply) => {
    const asset = built?.assets.get(request.params.file);
    if (!asset) {
      return secure(reply)
        .code(404)
        .type('application/json; charset=utf-8')
        .send({
          error: {
            code: 'not_found',
            message: 'No such console file. Reload the console.',
            request_id: request.id,
          },
        });
    }
    return secure(reply)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .type(asset.type)
      .send(asset.body);
  });
};
