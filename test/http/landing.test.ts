import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY } from '../helpers/cli.js';
import { type TestRuntime, testRuntime } from '../helpers/runtime.js';

const VERSION = (JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string })
  .version;
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';

describe('GET /: the landing page', () => {
  let runtime: TestRuntime;
  let opsElsewhere: TestRuntime;
  let demo: TestRuntime;
  beforeAll(async () => {
    runtime = await testRuntime();
    opsElsewhere = await testRuntime({ config: { opsPort: 0 } });
    demo = await testRuntime({ config: { demo: true } });
  });
  afterAll(async () => {
    await runtime.close();
    await opsElsewhere.close();
    await demo.close();
  });

  it('a browser gets a small page: the name, the version, links to the docs, the document and health', async () => {
    const response = await runtime.app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('Dispensary Menu API');
    expect(response.body).toContain(`version ${VERSION}`);
    for (const href of ['docs', 'openapi.json', 'healthz', 'readyz', 'metrics', 'console', 'developers'])
      expect(response.body).toContain(`href="${href}"`);
    // No script at all, nothing from elsewhere: the inline stylesheet is allowed by its hash alone.
    expect(response.body).not.toContain('<script');
    expect(response.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).not.toContain('unsafe-inline');
    expect(response.headers.vary).toContain('Accept');
  });

  it('an API client (curl, fetch, application/json) gets the same links as JSON', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const response = await runtime.app.inject({
        method: 'GET',
        url: '/',
        headers: accept ? { accept } : {},
      });
      expect(response.statusCode, String(accept)).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toMatchObject({
        name: 'Dispensary Menu API',
        version: VERSION,
        links: {
          docs: '/docs',
          openapi: '/openapi.json',
          health: '/healthz',
          ready: '/readyz',
          metrics: '/metrics',
          console: '/console',
          developers: '/developers',
        },
      });
    }
    // Every link it gives works.
    const links = (await runtime.app.inject({ method: 'GET', url: '/' })).json().links as Record<
      string,
      string
    >;
    for (const href of Object.values(links))
      expect((await runtime.app.inject({ method: 'GET', url: href })).statusCode, href).toBe(200);
  });

  it('leaves out the health links when they are on the ops port (--ops-port)', async () => {
    const json = (await opsElsewhere.app.inject({ method: 'GET', url: '/' })).json();
    expect(Object.keys(json.links)).toEqual(['docs', 'openapi', 'console', 'developers']);
    const html = await opsElsewhere.app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER } });
    expect(html.body).not.toContain('healthz');
  });

  it('a demo server (--demo) also links the demo dispensary’s public menu page and board, and they answer', async () => {
    const json = (await demo.app.inject({ method: 'GET', url: '/' })).json();
    expect(json.links).toMatchObject({
      console: '/console',
      demo_menu: '/m/demo',
      demo_board: '/board/demo',
    });
    const html = (await demo.app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER } })).body;
    for (const href of ['console', 'm/demo', 'board/demo']) expect(html).toContain(`href="${href}"`);
    for (const href of Object.values(json.links as Record<string, string>))
      expect((await demo.app.inject({ method: 'GET', url: href })).statusCode, href).toBe(200);
    // Without --demo there is no demo to link.
    const plain = (await runtime.app.inject({ method: 'GET', url: '/' })).json();
    expect(Object.keys(plain.links)).not.toContain('demo_menu');
    expect(
      (await runtime.app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER } })).body,
    ).not.toMatch(/href="(m|board)\//);
  });

  it('/docs/ with a trailing slash leads to the docs page', async () => {
    const response = await runtime.app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(301);
    expect(new URL(String(response.headers.location), 'http://host/docs/').pathname).toBe('/docs');
    const docs = await runtime.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger-ui');
  });
});
