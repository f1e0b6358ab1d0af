import { createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { VERSION } from '../../util/package-files.js';

/**
 * GET /: what a newcomer's first request finds. A browser (`Accept: text/html`) gets a small page naming
 * the service and its version with links to the docs, the OpenAPI document, the health endpoints, the
 * console and, on a demo server, the demo dispensary's public menu page and board; an API client gets
 * the same links as JSON. Relative links, so the page also works behind a proxy
 * that adds a path prefix; no script, no request to anywhere else.
 */
export interface LandingOptions {
  /** False when `/healthz`, `/readyz` and `/metrics` are on the ops listener (`--ops-port`), not here. */
  opsRoutes: boolean;
  /** True when the sync API, and so the console at /console, is served. */
  console: boolean;
  /** On a demo server (`--demo`) with public pages: the demo dispensary's slug, for /m/{slug} and /board/{slug}. */
  demoSlug?: string;
}

const NAME = 'Dispensary Menu API';

interface Link {
  rel: string;
  href: string;
  title: string;
}

function links(options: LandingOptions): Link[] {
  return [
    { rel: 'docs', href: 'docs', title: 'API reference (Swagger UI): both request forms and the sync API' },
    { rel: 'openapi', href: 'openapi.json', title: 'OpenAPI 3.1 document, for code generators' },
    ...(options.opsRoutes
      ? [
          { rel: 'health', href: 'healthz', title: 'Liveness: the process answers' },
          { rel: 'ready', href: 'readyz', title: 'Readiness: the database answers and is migrated' },
          { rel: 'metrics', href: 'metrics', title: 'Prometheus metrics' },
        ]
      : []),
    ...(options.console
      ? [
          {
            rel: 'console',
            href: 'console',
            title: 'Console: dispensaries, menus and keys (sign in with an admin key)',
          },
          {
            rel: 'developers',
            href: 'developers',
            title: 'Developers: register to read dispensaries’ menus, then sign in to your portal',
          },
        ]
      : []),
    ...(options.demoSlug === undefined
      ? []
      : [
          {
            rel: 'demo_menu',
            href: `m/${options.demoSlug}`,
            title: 'The demo dispensary’s public menu page',
          },
          { rel: 'demo_board', href: `board/${options.demoSlug}`, title: 'The demo dispensary’s menu board' },
        ]),
  ];
}

/** The JSON index: absolute paths, since a client reads them without a base URL. */
function index(options: LandingOptions) {
  return {
    name: NAME,
    version: VERSION,
    links: Object.fromEntries(links(options).map((link) => [link.rel, `/${link.href}`])),
    endpoints: {
      form_a: 'POST /menu, POST /store, POST /inventory (credentials and token in the JSON body)',
      form_b: 'GET /menu, GET /store, GET /inventory (headers store, username, password)',
      sync_api: '/admin/v1 (Authorization: Bearer <admin key>)',
    },
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}' +
  'h1{font-size:1.6rem;margin-bottom:0}.version{color:#555;margin-top:.2rem}code{background:#f2f2f2;padding:0 .2rem}';

/** The only inline content is this stylesheet, allowed by its hash: no script at all. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function page(options: LandingOptions): string {
  const items = links(options)
    .map(
      (link) =>
        `    <li><a href="${link.href}">${escapeHtml(`/${link.href}`)}</a>: ${escapeHtml(link.title)}</li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${NAME} ${escapeHtml(VERSION)}</title>
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png">
  <style>${STYLE}</style>
</head>
<body>
  <h1>${NAME}</h1>
  <p class="version">version ${escapeHtml(VERSION)}</p>
  <p>Menus, store information and live inventory of dispensaries, in both request forms
  (Form A: <code>POST</code> with a JSON body; Form B: <code>GET</code> with headers), and the sync API
  under <code>/admin/v1</code>.</p>
  <ul>
${items}
  </ul>
</body>
</html>
`;
}

/** A browser asks for HTML first; curl (any type) and API clients get JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  const quality = (type: string) => {
    for (const part of accept.split(',')) {
      const [media, ...parameters] = part.trim().split(';');
      if (media?.trim().toLowerCase() !== type) continue;
      const q = parameters
        .map((parameter) => parameter.trim())
        .find((parameter) => parameter.startsWith('q='));
      return q ? Number(q.slice(2)) || 0 : 1;
    }
    return -1;
  };
  const html = quality('text/html');
  return html > 0 && html >= quality('application/json');
}

export const landingRoutes: FastifyPluginAsync<LandingOptions> = async (app, options) => {
  const html = page(options);
  const json = index(options);
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    reply.header('vary', 'Accept');
    if (!wantsHtml(request)) return reply.type('application/json; charset=utf-8').send(json);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('cache-control', 'no-cache')
      .send(html);
  });
};
