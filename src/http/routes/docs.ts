import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';

/**
 * GET /docs: Swagger UI over /openapi.json, served entirely from this server's own files (the
 * swagger-ui-dist package), so it works on a machine with no internet. "Try it out" is on, and on a
 * demo server the demo credentials are filled in.
 */
export interface DocsOptions {
  /** The demo secrets, pre-filled as Form B's credentials when the server runs with --demo. */
  demo?: { token: string; username: string; password: string };
}

const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The only files of the package served, with their types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Nothing leaves this origin: no CDN, no fonts, no validator badge. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');

// Relative URLs throughout, so the page also works behind a proxy that adds a path prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Dispensary Menu API: documentation</title>
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png">
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <style>body { margin: 0; } .menu-api-note { font: 14px sans-serif; padding: 8px 20px; background: #eef6ee; }</style>
</head>
<body>
  <div class="menu-api-note">The machine-readable document is at <a href="openapi.json">openapi.json</a>. Integrators: register and get a credential at <a href="developers">/developers</a>, then sign in to your portal at <a href="console/">/console</a> (your credential, access to dispensaries, usage and webhooks).<span id="demo-note"></span></div>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;

function initScript(options: DocsOptions): string {
  const demo = options.demo ?? null;
  return `'use strict';
(function () {
  var demo = ${JSON.stringify(demo)};
  // Swagger UI 5 stops drawing operations part-way through a document of more than 133 of them (the
  // first tag's first three, then nothing, with no error). Every HEAD operation repeats its GET
  // without a body (the description says so), so the page leaves them out; openapi.json keeps them.
  fetch('openapi.json')
    .then(function (answer) { return answer.json(); })
    .then(function (spec) {
      Object.keys(spec.paths).forEach(function (path) { delete spec.paths[path].head; });
      show(spec);
    });
  function show(spec) {
    var ui = SwaggerUIBundle({
      spec: spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      tryItOutEnabled: true,
      displayRequestDuration: true,
      persistAuthorization: false,
      defaultModelsExpandDepth: 0,
      docExpansion: 'list',
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
      onComplete: function () {
        if (!demo) return;
        ui.preauthorizeApiKey('FormBStore', demo.token);
        ui.preauthorizeApiKey('FormBUsername', demo.username);
        ui.preauthorizeApiKey('FormBPassword', demo.password);
        document.getElementById('demo-note').textContent =
          ' Demo server: Form B requests carry the demo credentials (' + demo.username + ', token ' + demo.token +
          '); Form A examples contain them too. Press "Execute" on any Form A or Form B endpoint.';
      },
    });
    window.ui = ui;
  }
})();
`;
}

export const docsRoutes: FastifyPluginAsync<DocsOptions> = async (app, options) => {
  const init = initScript(options);
  const hide = { hide: true };

  app.get('/docs', { schema: hide }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('cache-control', 'no-cache')
      .send(PAGE),
  );

  // /docs/ (a trailing slash) is the same page; a relative redirect keeps a proxy's path prefix.
  app.get('/docs/', { schema: hide }, async (_request, reply) => reply.redirect('../docs', 301));

  app.get('/docs/init.js', { schema: hide }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(init),
  );

  for (const [file, type] of Object.entries(ASSETS)) {
    app.get(`/docs/${file}`, { schema: hide }, async (_request, reply) =>
      reply
        .type(type)
        .header('cache-control', 'public, max-age=3600')
        .send(createReadStream(join(SWAGGER_UI, file))),
    );
  }
};
