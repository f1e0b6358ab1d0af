import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type OpenStatus, openStatus } from '../../../domain/opening-hours.js';
import type { PublishedMenu } from '../../../domain/published-menu.js';
import { PublishedMenuSchema } from '../../../domain/published-menu.js';
import type { MenuSnapshots, Representation, SnapshotView } from '../../../services/menu-snapshots.js';
import {
  NotPublishedError,
  type PublicDispensary,
  type PublishedMenus,
} from '../../../services/published-menus.js';
import { eventFrame, type PublishedStream, type StreamEvent } from '../../../services/published-stream.js';
import { negotiateEncoding } from '../../../services/snapshots/encoding.js';
import { streamHeaders } from '../../pipeline/answer-headers.js';
import { ifNoneMatch } from '../../pipeline/snapshot-reply.js';
import { type Asset, type DisplayFile, loadDisplayAssets } from './assets.js';
import { renderBoard } from './board.js';
import { FilteredPages } from './filtered-pages.js';
import { PAGE_CSP } from './html.js';
import { type PageQuery, parsePageQuery, queryPage } from './menu-query.js';
import { renderMenuPage, renderNotFound } from './page.js';

export interface DisplayOptions {
  published: PublishedMenus;
  /** The public event stream (/m/{slug}/events). */
  stream: PublishedStream;
  /** Milliseconds between heartbeat comments on an idle event stream (default 15 000). */
  heartbeatMs?: number;
  snapshots: MenuSnapshots;
  /** Seconds a CDN or browser may reuse a public answer before revalidating (default 10). */
  maxAgeSeconds?: number;
  /** Seconds it may serve a stale answer while it revalidates (default 60). */
  staleSeconds?: number;
  /** Where the bundled browser files are (tests); default dist/display. */
  assetDirectory?: string;
  /** The clock "open now" is computed with (tests). */
  now?: () => Date;
}

const hide = { hide: true };
const HTML = 'text/html; charset=utf-8';

/**
 * The public surfaces of published dispensaries: the menu page /m/{slug} (with /m/{slug}/menu.json
 * for the board and the embed), the board /board/{slug}, /embed.js and the bundled browser files under
 * /display/. Everything here shows only what a dispensary published (src/domain/published-menu.ts);
 * an unknown or unpublished slug is a 404 page. Pages are served from kept snapshots with strong
 * ETags and a short public Cache-Control, under a strict Content-Security-Policy.
 */
export const displayRoutes: FastifyPluginAsync<DisplayOptions> = async (app, options) => {
  const { published, snapshots } = options;
  const now = options.now ?? (() => new Date());
  const publicCache = `public, max-age=${options.maxAgeSeconds ?? 10}, stale-while-revalidate=${
    options.staleSeconds ?? 60
  }`;
  const assets = loadDisplayAssets(options.assetDirectory);

  const menuJson = snapshots.view('public:menu', PublishedMenuSchema, (id) => published.menu(id));
  const filteredPages = new FilteredPages();
  /** The page of `menu` under `page`, its items and counts from Form v1's engine (menu-query.ts). */
  const render = (menu: PublishedMenu, status: OpenStatus, page: PageQuery) =>
    renderMenuPage(menu, status, page, queryPage(menu, published.sourceOf(menu), page));

  // One page view per "open now" label: the label is part of the page, so each is a snapshot of its own.
  const pageViews = new Map<string, SnapshotView>();
  const pageView = (menu: PublishedMenu): SnapshotView => {
    const status = openStatus(menu.store.hours, menu.store.timezone, now());
    let view = pageViews.get(status.label);
    if (!view) {
      view = snapshots.view(
        `public:page:${status.label}`,
        (value) => {
          const menu = value as PublishedMenu;
          return Buffer.from(render(menu, status, parsePageQuery({}, menu.store)));
        },
        (id) => published.menu(id),
      );
      pageViews.set(status.label, view);
    }
    return view;
  };

  const notFound = (reply: FastifyReply) =>
    reply
      .code(404)
      .type(HTML)
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-store')
      .send(renderNotFound());

  /** The published dispensary of the request's slug, or a 404 page already sent. */
  const dispensaryOf = async (
    request: FastifyRequest<{ Params: { slug: string } }>,
  ): Promise<PublicDispensary | undefined> => published.find(request.params.slug);

  const sendKept = (
    request: FastifyRequest,
    reply: FastifyReply,
    representation: Representation,
    type: string,
  ) => {
    reply
      .header('vary', 'Accept-Encoding')
      .header('etag', representation.etag)
      .header('cache-control', publicCache);
    if (ifNoneMatch(request.headers['if-none-match'], representation.tag)) return reply.code(304).send();
    if (representation.encoding !== 'identity') reply.header('content-encoding', representation.encoding);
    return reply.type(type).send(representation.body);
  };

  /** Runs `work` for a published dispensary; a 404 page when it is not (or stops being) published. */
  const published404 = async (
    request: FastifyRequest<{ Params: { slug: string } }>,
    reply: FastifyReply,
    work: (dispensary: PublicDispensary) => Promise<FastifyReply>,
  ) => {
    const dispensary = await dispensaryOf(request);
    if (!dispensary) return notFound(reply);
    try {
      return await work(dispensary);
    } catch (error) {
      if (error instanceof NotPublishedError) return notFound(reply);
      throw error;
    }
  };

  app.get<{ Params: { slug: string }; Querystring: Record<string, unknown> }>(
    '/m/:slug',
    { schema: hide },
    (request, reply) =>
      published404(request, reply, async (dispensary) => {
        reply
          .header('content-security-policy', PAGE_CSP)
          .header('referrer-policy', 'strict-origin-when-cross-origin');
        const menu = await published.menu(dispensary.id);
        // The first menu unfiltered is the kept page (asked for without a query, it is not even parsed);
        // a query is rendered once per menu version and kept.
        const page =
          Object.keys(request.query).length === 0 ? undefined : parsePageQuery(request.query, menu.store);
        if (!page || (page.problems.length === 0 && [...page.params.keys()].length === 0)) {
          const kept = await pageView(menu).read(dispensary.id, request.headers['accept-encoding']);
          return sendKept(request, reply, kept, HTML);
        }
        const status = openStatus(menu.store.hours, menu.store.timezone, now());
        const key = [dispensary.id, status.label, page.params.toString(), ...page.problems].join('|');
        const answer = await filteredPages.read(menu, key, request.headers['accept-encoding'], () =>
          render(menu, status, page),
        );
        if (page.problems.length === 0) return sendKept(request, reply, answer, HTML);
        // A parameter left out for its value: the page says which, under the rest, as a 400 (no ETag:
        // a 304 stands for a 200).
        if (answer.encoding !== 'identity') reply.header('content-encoding', answer.encoding);
        return reply
          .code(400)
          .type(HTML)
          .header('vary', 'Accept-Encoding')
          .header('cache-control', publicCache)
          .send(answer.body);
      }),
  );

  app.get<{ Params: { slug: string } }>('/m/:slug/menu.json', { schema: hide }, (request, reply) =>
    published404(request, reply, async (dispensary) => {
      const answer = await menuJson.read(dispensary.id, request.headers['accept-encoding']);
      // Any web site may embed a published menu; the answer carries nothing but what was published.
      reply.header('access-control-allow-origin', '*');
      return sendKept(request, reply, answer, 'application/json; charset=utf-8');
    }),
  );

  app.get<{ Params: { slug: string }; Querystring: Record<string, unknown> }>(
    '/board/:slug',
    { schema: hide },
    (request, reply) =>
      published404(request, reply, async (dispensary) => {
        const menu = await published.menu(dispensary.id);
        return reply
          .type(HTML)
          .header('content-security-policy', PAGE_CSP)
          .header('cache-control', publicCache)
          .send(renderBoard(menu.slug, menu.store.name));
      }),
  );

  // Open event streams, ended when the server closes (a stream never finishes by itself). One asked for
  // after that, on a connection accepted before (the drain still answers it: a board reconnecting on
  // its spare connection), gets its catch-up and ends at once, or it would hold the shutdown up until
  // its deadline.
  const streams = new Set<() => void>();
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    for (const end of [...streams]) end();
  });
  const heartbeatMs = options.heartbeatMs ?? 15_000;

  app.get<{ Params: { slug: string }; Querystring: Record<string, unknown> }>(
    '/m/:slug/events',
    { schema: hide },
    (request, reply) =>
      published404(request, reply, async (dispensary) => {
        const raw = reply.raw;
        // The browser resends the header on its own reconnects; our clients' backoff passes the query.
        const header = request.headers['last-event-id'] ?? request.query.last_event_id;
        const lastEventId = typeof header === 'string' && header.length <= 64 ? header : undefined;
        let open = true;
        const pending: StreamEvent[] = [];
        let ready = false;
        const write = (event: StreamEvent) => {
          if (!open) return;
          if (!ready) {
            pending.push(event);
            return;
          }
          raw.write(eventFrame(event));
          if (event.type === 'gone') end();
        };
        const stop = await options.stream.follow(dispensary.id, lastEventId, write);
        const heartbeat = setInterval(() => {
          if (open) raw.write(': heartbeat\n\n');
        }, heartbeatMs);
        heartbeat.unref();
        const end = () => {
          if (!open) return;
          open = false;
          clearInterval(heartbeat);
          stop();
          streams.delete(end);
          raw.end();
        };
        streams.add(end);
        raw.on('close', end);
        reply.hijack();
        raw.writeHead(
          200,
          streamHeaders(request, reply, {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-accel-buffering': 'no',
            'access-control-allow-origin': '*',
          }),
        );
        if (request.method === 'HEAD') {
          // The head alone: a HEAD answer has no body, so Node would send the head only at the end.
          end();
          return reply;
        }
        // Reconnect after 2 s by default; the board and the embed back off further themselves.
        raw.write('retry: 2000\n\n');
        ready = true;
        for (const event of pending.splice(0)) write(event);
        if (closing) end();
        return reply;
      }),
  );

  const sendAsset = (request: FastifyRequest, reply: FastifyReply, asset: Asset) => {
    const encoding = negotiateEncoding(request.headers['accept-encoding']);
    reply
      .header('vary', 'Accept-Encoding')
      .header('etag', encoding === 'identity' ? `"${asset.tag}"` : `"${asset.tag}-${encoding}"`)
      .header('cache-control', 'public, max-age=300');
    if (ifNoneMatch(request.headers['if-none-match'], asset.tag)) return reply.code(304).send();
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    return reply.type(asset.type).send(asset.bodies[encoding]);
  };

  app.get<{ Params: { file: string } }>('/display/:file', { schema: hide }, (request, reply) => {
    const asset = assets.get(request.params.file as DisplayFile);
    if (!asset || request.params.file === 'embed.js') return notFound(reply);
    return sendAsset(request, reply, asset);
  });

  app.get('/embed.js', { schema: hide }, (request, reply) => {
    reply.header('access-control-allow-origin', '*').header('cross-origin-resource-policy', 'cross-origin');
    return sendAsset(request, reply, assets.get('embed.js')!);
  });
};
