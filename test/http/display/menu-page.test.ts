import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStatus } from '../../../src/domain/opening-hours.js';
import { type AdminCall, adminKey, syncTestRuntime } from '../../helpers/admin.js';
import { REPOSITORY } from '../../helpers/cli.js';
import { SAMPLE_MENU, type TestRuntime } from '../../helpers/runtime.js';
import { until } from '../../helpers/wait.js';

const HOURS = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
    day,
    day === 'sunday' ? { closed: true } : { open: '09:00', close: '21:00' },
  ]),
);

/** The JSON-LD blocks of a page, parsed. */
function jsonLd(html: string): Record<string, unknown>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(
    (match) => JSON.parse(match[1]!) as Record<string, unknown>,
  );
}

/**
 * The first `count` events of an event stream, as [id, type, data]. `onFirst` is called when the first
 * one arrives: the stream's catch-up is written as it starts following, so from then on it hears every
 * change.
 */
function readEvents(
  url: string,
  count: number,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
  onFirst?: () => void,
): Promise<{ status: number; headers: Record<string, unknown>; events: [string, string, unknown][] }> {
  return new Promise((resolve, reject) => {
    const events: [string, string, unknown][] = [];
    const request = httpRequest(url, { headers, signal }, (response) => {
      let text = '';
      const finish = () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, events });
      };
      if (response.statusCode !== 200) {
        response.resume();
        response.on('end', finish);
        return;
      }
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        let end = text.indexOf('\n\n');
        while (end !== -1) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((line) => !line.startsWith(':') && line.includes(': '))
              .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
          );
          if (fields.event) events.push([fields.id ?? '', fields.event, JSON.parse(fields.data ?? 'null')]);
          if (events.length === 1) onFirst?.();
          if (events.length >= count) return finish();
          end = text.indexOf('\n\n');
        }
      });
    });
    request.on('error', (error) => {
      if (signal?.aborted) resolve({ status: 0, headers: {}, events });
      else reject(error);
    });
    request.end();
  });
}

/** readEvents, handed over once the stream has written its first event (it follows the menu from then on). */
async function followEvents(url: string, count: number): Promise<{ read: ReturnType<typeof readEvents> }> {
  let following: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    following = resolve;
  });
  const read = readEvents(url, count, {}, undefined, following);
  await Promise.race([first, read]);
  return { read };
}

describe('the public menu page /m/{slug}', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let url: string;
  const get = (path: string, headers: Record<string, string> = {}) =>
    runtime.app.inject({ method: 'GET', url: path, headers });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    admin = (await adminKey(runtime, 'all')).call;
    const patch = await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, {
      published: true,
      slug: 'test-shop',
      address: '1 Main St',
      city: 'Oakland',
      state: 'CA',
      postal_code: '94607',
      timezone: 'America/Los_Angeles',
      currency: 'CAD',
      hours: HOURS,
    });
    expect(patch.statusCode, patch.body).toBe(200);
    url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => runtime.close());

  it('serves the menu as HTML without script: store, open-now, groups, prices in the currency, sold out', async () => {
    const response = await get('/m/test-shop');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = response.body;
    expect(html).toContain('<h1>Test Collective</h1>');
    expect(html).toContain('1 Main St, Oakland, CA 94607');
    const status = openStatus(HOURS as never, 'America/Los_Angeles', new Date());
    expect(html).toContain(status.label.replace('·', '·'));
    // Types in menu order, each with its items; prices in the store's currency (CAD).
    expect(html.indexOf('<h2>Flower</h2>')).toBeLessThan(html.indexOf('<h2>Edible</h2>'));
    expect(html.indexOf('<h2>Edible</h2>')).toBeLessThan(html.indexOf('<h2>Vape</h2>'));
    expect(html).toContain('Blue Dream');
    expect(html).toContain('Emerald Farms · Hybrid');
    expect(html).toContain('THC 21.5% · CBD 0.1%');
    expect(html).toContain('CA$12.00');
    expect(html).toContain('THC 100 mg');
    expect(html).toMatch(
      /⅛ oz · 3\.5 g<\/span> <span class="cost">CA\$38\.50<\/span> <span class="per-gram">CA\$11\.00\/g<\/span> <span class="sold">Sold out<\/span>/,
    );
    // Only what was published: no inactive item, no stock quantity, no token.
    expect(html).not.toContain('Hidden Kush');
    expect(html).not.toContain('left</span>');
    expect(html).not.toContain(runtime.seed.token);
    // No inline script: only the JSON-LD data block and the enhancement file.
    expect([...html.matchAll(/<script(?![^>]*(application\/ld\+json|src=))/g)]).toEqual([]);
  });

  it('answers from a kept snapshot: strong ETag, 304, gzip and br, public short Cache-Control, strict CSP', async () => {
    const first = await get('/m/test-shop', { 'accept-encoding': 'gzip' });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+-gzip"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=10, stale-while-revalidate=60');
    expect(first.headers.vary).toContain('Accept-Encoding');
    const csp = String(first.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(gunzipSync(first.rawPayload).toString()).toContain('Blue Dream');
    const again = await get('/m/test-shop', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const br = await get('/m/test-shop', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(
      runtime.snapshots.has(
        `public:page:${openStatus(HOURS as never, 'America/Los_Angeles', new Date()).label}`,
        runtime.seed.dispensaryId,
        'gzip',
      ),
    ).toBe(true);
  });

  it('sends the Content-Security-Policy docs/public-pages.md states on every page, over HTTP: none may be framed', async () => {
    const manual = readFileSync(join(REPOSITORY, 'docs', 'public-pages.md'), 'utf8').replaceAll(/\s+/g, ' ');
    const documented = /the pages send `Content-Security-Policy: ([^`]+)`/.exec(manual)?.[1];
    expect(documented).toContain("frame-ancestors 'none'");
    // The menu page, the board (shown full screen; the embed has its own route) and the 404 page.
    for (const path of ['/m/test-shop', '/board/test-shop', '/board/nobody-here']) {
      const response = await fetch(`${url}${path}`);
      expect(response.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy'), path).toBe(documented);
    }
  });

  it('has schema.org Store and ItemList of Products with Offers (price, priceCurrency, availability)', async () => {
    const [data] = jsonLd((await get('/m/test-shop')).body);
    expect(data!['@context']).toBe('https://schema.org');
    const [store, list] = data!['@graph'] as Record<string, unknown>[];
    expect(store).toMatchObject({
      '@type': 'Store',
      name: 'Test Collective',
      address: { '@type': 'PostalAddress', streetAddress: '1 Main St', addressLocality: 'Oakland' },
      openingHours: expect.arrayContaining(['Mo 09:00-21:00']),
    });
    expect(list!['@type']).toBe('ItemList');
    const products = (list!.itemListElement as { item: Record<string, unknown> }[]).map(
      (entry) => entry.item,
    );
    expect(products.map((product) => product.name)).toEqual(['Blue Dream', 'Fudge Brownie', 'Vape Cart']);
    for (const product of products) {
      expect(product['@type']).toBe('Product');
      for (const offer of product.offers as Record<string, unknown>[]) {
        expect(offer).toMatchObject({ '@type': 'Offer', priceCurrency: 'CAD' });
        expect(offer.price).toMatch(/^\d+\.\d\d$/);
        expect(['https://schema.org/InStock', 'https://schema.org/OutOfStock']).toContain(offer.availability);
      }
    }
    const blue = products[0]!.offers as Record<string, unknown>[];
    expect(blue.map((offer) => offer.availability)).toEqual([
      'https://schema.org/InStock',
      'https://schema.org/OutOfStock',
    ]);
  });

  it('filters by type and text as a GET form (the older names type and menu too), ignoring unknown parameters', async () => {
    for (const path of ['/m/test-shop?product_type=Edible', '/m/test-shop?type=Edible']) {
      const edible = (await get(path)).body;
      expect(edible).toContain('Fudge Brownie');
      expect(edible).not.toContain('>Blue Dream<');
      expect(edible).toContain('1 of 3 products');
    }
    const search = (await get('/m/test-shop?q=emerald')).body;
    expect(search).toContain('>Blue Dream<');
    expect(search).not.toContain('>Vape Cart<');
    const odd = await get('/m/test-shop?q=%3Cscript%3E&type[]=1&utm_source=x');
    expect(odd.statusCode).toBe(200);
    expect(odd.body).not.toContain('<script>');
    expect(odd.body).toContain('Nothing matches');
  });

  it('menu.json carries only published fields, with CORS for any origin', async () => {
    const response = await get('/m/test-shop/menu.json', { origin: 'https://shop.example' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const menu = response.json();
    expect(Object.keys(menu)).toEqual(['slug', 'store', 'items', 'updated_at']);
    expect(menu.store).not.toHaveProperty('license_number');
    expect(menu.store).not.toHaveProperty('email');
    expect(menu.items.map((item: { name: string }) => item.name)).not.toContain('Hidden Kush');
    const blue = menu.items.find((item: { id: number }) => item.id === 3);
    expect(blue).not.toHaveProperty('active');
    expect(blue.prices).toEqual([
      { unit: 'gram', amount: 1, label: '', net_weight_g: 1, price: 12, special: null, in_stock: true },
      {
        unit: 'ounce',
        amount: 0.125,
        label: '',
        net_weight_g: 3.5,
        price: 38.5,
        special: null,
        in_stock: false,
      },
    ]);
  });

  it('the event stream: a snapshot first, then one update per change, resumable with Last-Event-ID', async () => {
    const first = await readEvents(`${url}/m/test-shop/events`, 1);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(first.headers['access-control-allow-origin']).toBe('*');
    const [[id, type, data]] = first.events as [[string, string, { items: unknown[] }]];
    expect(type).toBe('snapshot');
    expect(data.items).toHaveLength(3);
    // One client stays connected throughout, so that the stream keeps its recent events.
    const keeper = new AbortController();
    const kept = readEvents(`${url}/m/test-shop/events`, 100, {}, keeper.signal);
    // A client that follows, while the stock of Blue Dream's gram entry goes to 0.
    const following = await followEvents(`${url}/m/test-shop/events`, 2);
    const stock = await admin('PATCH', `/dispensaries/${runtime.seed.dispensaryId}/inventory`, [
      { item_id: 3, unit: 'gram', amount: 1, stock: 0 },
    ]);
    expect(stock.statusCode, stock.body).toBe(200);
    const followed = await following.read;
    const [snapshot, update] = followed.events as [
      unknown,
      [string, string, { items: Record<string, unknown>[]; removed: number[] }],
    ];
    expect(update[1]).toBe('update');
    expect(update[2].removed).toEqual([]);
    expect(update[2].items).toHaveLength(1);
    expect(update[2].items[0]).toMatchObject({ id: 3, sold_out: true });
    expect(JSON.stringify(update[2])).not.toContain('"stock"');
    // Resuming from the snapshot's id gets exactly the update it missed.
    const resumed = await readEvents(`${url}/m/test-shop/events`, 1, {
      'last-event-id': (snapshot as [string])[0],
    });
    expect(resumed.events[0]![1]).toBe('update');
    expect(resumed.events[0]![0]).toBe(update[0]);
    // An id from another process (or before a restart) gets a snapshot.
    const stranger = await readEvents(`${url}/m/test-shop/events`, 1, { 'last-event-id': 'abc.5' });
    expect(stranger.events[0]![1]).toBe('snapshot');
    // An id of this process ahead of the stream (no such event yet, or another dispensary's): a
    // snapshot as well, never a stream that stays silent until the numbers pass it.
    const [epoch, number] = update[0].split('.');
    const ahead = await readEvents(`${url}/m/test-shop/events`, 1, {
      'last-event-id': `${epoch}.${Number(number) + 1_000}`,
    });
    expect(ahead.events[0]![1]).toBe('snapshot');
    keeper.abort();
    await kept;
    expect(id).toMatch(/^[0-9a-f]{8}\.\d+$/);
  });

  it('unknown or malformed slugs are a 404 page; unpublishing makes every public URL 404 at once', async () => {
    for (const path of [
      '/m/nobody-here',
      '/m/x',
      '/m/UPPER',
      '/board/nobody-here',
      '/m/nobody-here/menu.json',
    ]) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('Menu not found');
    }
    const other = await admin('POST', '/dispensaries', { name: 'Short Lived' });
    const id = other.json().id;
    await admin('PATCH', `/dispensaries/${id}`, { published: true, slug: 'short-lived' });
    expect((await get('/m/short-lived')).statusCode).toBe(200);
    expect((await get('/board/short-lived')).statusCode).toBe(200);
    const stream = await followEvents(`${url}/m/short-lived/events`, 2);
    await admin('PATCH', `/dispensaries/${id}`, { published: false });
    for (const path of [
      '/m/short-lived',
      '/board/short-lived',
      '/m/short-lived/menu.json',
      '/m/short-lived/events',
    ]) {
      expect((await get(path)).statusCode, path).toBe(404);
    }
    // A stream that was open hears "gone" and ends.
    const events = (await stream.read).events;
    expect(events.map((event) => event[1])).toEqual(['snapshot', 'gone']);
  });

  it('serves the bundled scripts and styles, and /embed.js for any origin', async () => {
    for (const file of ['menu.js', 'menu.css', 'board.js', 'board.css']) {
      const response = await get(`/display/${file}`);
      expect(response.statusCode, file).toBe(200);
      expect(response.body).not.toContain('run npm run build');
    }
    const embed = await get('/embed.js');
    expect(embed.statusCode).toBe(200);
    expect(embed.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(embed.headers['access-control-allow-origin']).toBe('*');
    expect((await get('/display/other.js')).statusCode).toBe(404);
  });

  it('compresses the scripts and styles as the client accepts, with an ETag per coding and 304', async () => {
    const plain = await get('/display/menu.css');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const gzipped = await get('/display/menu.css', { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(plain.body);
    expect(gzipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    const brotli = await get('/embed.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe((await get('/embed.js')).body);
    expect(gzipped.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-gzip"`);
    // A client holding any coding of the same bytes has them.
    for (const etag of [plain.headers.etag, gzipped.headers.etag])
      expect(
        (await get('/display/menu.css', { 'accept-encoding': 'br', 'if-none-match': String(etag) }))
          .statusCode,
      ).toBe(304);
  });
});

describe('the event stream at shutdown', () => {
  it('a stream asked for on a connection accepted before the shutdown ends at once, not at the deadline', async () => {
    const runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    try {
      const { call } = await adminKey(runtime, 'all');
      const patch = await call('PATCH', `/dispensaries/${runtime.seed.dispensaryId}`, {
        published: true,
        slug: 'closing-shop',
      });
      expect(patch.statusCode, patch.body).toBe(200);
      const url = new URL(await runtime.app.listen({ host: '127.0.0.1', port: 0 }));
      // A board's spare connection: accepted, no request yet. The drain answers what it sends next.
      const socket = connect(Number(url.port), url.hostname);
      await once(socket, 'connect');
      let answer = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        answer += chunk;
      });
      socket.on('error', () => {});
      const closed = once(socket, 'close');
      const stopped = runtime.shutdown({ timeoutMs: 3_000 });
      // Once the listener has closed, the open streams have been ended: the board reconnects, on it.
      await until(() => !runtime.app.server.listening, 2_000, 'the listener to close');
      socket.write('GET /m/closing-shop/events HTTP/1.1\r\nHost: shop\r\n\r\n');
      const report = await stopped;
      await closed;
      // Its catch-up, then the end of the answer: the stream did not hold the shutdown up to its deadline.
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toContain('event: snapshot');
      expect(answer).toMatch(/\r\n0\r\n\r\n$/);
      expect(report.cutOff).toBe(false);
    } finally {
      await runtime.close();
    }
  });
});

/** A richer menu: lab results, terpenes, a strain, a certificate, sizes with labels and medical prices. */
const RICH_MENU = [
  {
    id: 11,
    name: 'Lemon Haze',
    brand: 'North Farm',
    product_type: 'Flower',
    product_subtype: 'Sativa',
    cannabinoids: [
      { code: 'Total THC', min: 24.1, unit: '%' },
      { code: 'THCa', min: 27.2, unit: '%' },
      { code: 'cbd', status: 'nd', unit: '%' },
    ],
    terpenes: [
      { code: 'alpha-pinene', min: 0.1, unit: '%' },
      { code: 'Myrcene', min: 1.2, unit: '%' },
      { code: 'limonene', min: 0.8, unit: '%' },
      { code: 'linalool', min: 0.3, unit: '%' },
    ],
    strain: { name: 'Lemon Haze', type: 'sativa_dominant' },
    batch: { lab_name: 'Example Labs', coa_url: 'https://lab.example/coa/123.pdf' },
    prices: [
      { unit: 'ounce', amount: 0.125, price: 40, med_price: 35, label: 'Eighth' },
      { unit: 'gram', amount: 1, price: 12 },
    ],
  },
  {
    id: 12,
    name: 'Calm Gummies',
    brand: 'Slow Co',
    product_type: 'Edible',
    cannabinoids: [{ code: 'd9-thc', min: 10, unit: 'mg', basis: 'package' }],
    prices: [{ unit: 'unit', amount: 1, price: 20 }],
  },
];

/** The special of the rich tests: 20% off flower on both menus, until 18:00 on Saturday 1 June 2030 in New York. */
const FLOWER_SPECIAL = {
  name: 'Flower Friday',
  kind: 'percent_off',
  value: 20,
  applies_to: { product_types: ['Flower'] },
  menu_type: 'both',
  ends_at: '2030-06-01T22:00:00Z',
};

type Offer = Record<string, unknown>;
/** The offers of a product of a page's structured data. */
function offersOf(html: string, name: string): Offer[] {
  const [data] = jsonLd(html);
  const list = (data!['@graph'] as Record<string, unknown>[])[1]!;
  const product = (list.itemListElement as { item: { name: string; offers: Offer[] } }[]).find(
    (entry) => entry.item.name === name,
  );
  return product!.item.offers;
}

describe('a rich menu on the public page: lab results, sizes, medical prices, specials, the store switches', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  let id: number;
  const get = (path: string) => runtime.app.inject({ method: 'GET', url: path });

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: RICH_MENU });
    admin = (await adminKey(runtime, 'all')).call;
    id = runtime.seed.dispensaryId;
    const patch = await admin('PATCH', `/dispensaries/${id}`, {
      published: true,
      slug: 'rich-shop',
      timezone: 'America/New_York',
      menu_types: ['rec', 'med'],
    });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.json()).toMatchObject({ show_regular_price: true, show_potency: true });
    const special = await admin('POST', `/dispensaries/${id}/specials`, FLOWER_SPECIAL);
    expect(special.statusCode, special.body).toBe(201);
  });
  afterAll(() => runtime.close());

  it('shows potency with units, strain type, top terpenes, a lab results link, sizes in grams, price per gram', async () => {
    const html = (await get('/m/rich-shop')).body;
    expect(html).toContain('<p class="potency">THC 24.1%</p>');
    expect(html).toContain('<p class="potency">THC 10 mg</p>');
    expect(html).toContain(
      '<p class="details">Sativa-dominant · β-Myrcene 1.2% · Limonene 0.8% · Linalool 0.3%</p>',
    );
    expect(html).toContain(
      '<a href="https://lab.example/coa/123.pdf" rel="noopener">Lab results<span class="vh"> for Lemon Haze</span></a>',
    );
    expect(html).toContain('<span class="amount">Eighth · 3.5 g</span>');
    // Per gram on flower beyond a gram: 32.00 / 3.5 g.
    expect(html).toContain('<span class="per-gram">$9.14/g</span>');
  });

  it('a special: its price, the regular price struck through with words for screen readers, when it ends', async () => {
    const html = (await get('/m/rich-shop')).body;
    expect(html).toContain(
      '<span class="for-rec"><span class="cost">$32.00</span> <del class="regular"><span class="vh">Regular price </span>$40.00</del> <span class="per-gram">$9.14/g</span></span>',
    );
    expect(html).toContain(
      '<span class="for-med"><span class="cost">$28.00</span> <del class="regular"><span class="vh">Regular price </span>$35.00</del> <span class="per-gram">$8.00/g</span></span>',
    );
    // 22:00 UTC is 18:00 in New York (summer time).
    expect(html).toMatch(
      /<p class="special"><span class="for-rec">Special: Flower Friday · ends Sat, Jun 1, 6:00\sPM<\/span>/,
    );
    const [offer] = offersOf(html, 'Lemon Haze');
    expect(offer).toMatchObject({
      name: 'Eighth · 3.5 g',
      price: '32.00',
      priceValidUntil: '2030-06-01',
      priceSpecification: {
        '@type': 'UnitPriceSpecification',
        priceType: 'https://schema.org/StrikethroughPrice',
        price: '40.00',
      },
    });
    const menu = (await get('/m/rich-shop/menu.json')).json();
    const lemon = menu.items.find((item: { id: number }) => item.id === 11);
    expect(lemon.prices[0]).toEqual({
      unit: 'ounce',
      amount: 0.125,
      label: 'Eighth',
      net_weight_g: 3.5,
      price: 32,
      special: { name: 'Flower Friday', ends_at: '2030-06-01T22:00:00.000Z' },
      regular_price: 40,
      med_price: 28,
      med_special: { name: 'Flower Friday', ends_at: '2030-06-01T22:00:00.000Z' },
      regular_med_price: 35,
      in_stock: true,
    });
    expect(lemon.potency.thc).toMatchObject({ min: 24.1, unit: '%', method: 'reported' });
  });

  it('the adult-use / medical switch: links the server answers without JavaScript, the form keeps the menu', async () => {
    const rec = (await get('/m/rich-shop')).body;
    expect(rec).toContain(
      '<nav class="menu-types" aria-label="Prices"><a href="rich-shop" data-menu="rec" aria-current="page">Adult-use</a><a href="rich-shop?menu_type=med" data-menu="med">Medical</a></nav>',
    );
    expect(rec).toContain('<main id="menu" class="menu-rec">');
    const med = (await get('/m/rich-shop?menu_type=med&product_type=Flower')).body;
    expect(med).toContain('<main id="menu" class="menu-med">');
    expect(med).toContain(
      '<a href="rich-shop?product_type=Flower&amp;menu_type=med" data-menu="med" aria-current="page">',
    );
    expect(med).toContain('<input type="hidden" name="menu_type" value="med">');
    // The links of older pages (?menu=med) still choose the menu.
    expect((await get('/m/rich-shop?menu=med')).body).toContain('<main id="menu" class="menu-med">');
    expect(offersOf(med, 'Lemon Haze')[0]).toMatchObject({ price: '28.00', priceValidUntil: '2030-06-01' });
    // A menu the store does not sell is its first.
    expect((await get('/m/rich-shop?menu_type=other')).body).toContain('<main id="menu" class="menu-rec">');
  });

  it('the store switches: without regular prices or potency, no surface and no structured data shows them', async () => {
    const off = await admin('PATCH', `/dispensaries/${id}`, {
      show_regular_price: false,
      show_potency: false,
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({ show_regular_price: false, show_potency: false });
    const html = (await get('/m/rich-shop')).body;
    expect(html).toContain('<span class="cost">$32.00</span>');
    expect(html).not.toContain('<del');
    expect(html).not.toContain('Regular price');
    expect(html).not.toContain('class="potency"');
    expect(html).toContain('Special: Flower Friday');
    const [offer] = offersOf(html, 'Lemon Haze');
    expect(offer).toMatchObject({ price: '32.00', priceValidUntil: '2030-06-01' });
    expect(offer).not.toHaveProperty('priceSpecification');
    const menu = (await get('/m/rich-shop/menu.json')).json();
    expect(JSON.stringify(menu.items)).not.toContain('regular_');
    expect(menu.store).toMatchObject({ show_regular_price: false, show_potency: false });
    expect(menu.items.every((item: { potency: unknown }) => item.potency === null)).toBe(true);
    const invalid = await admin('PATCH', `/dispensaries/${id}`, { show_potency: 'no' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain('show_potency');
    await admin('PATCH', `/dispensaries/${id}`, { show_regular_price: true, show_potency: true });
  });

  it("the event stream sends the new prices at a special's start and end, with no write at the boundary", async () => {
    const start = Date.now() + 1_500;
    const special = await admin('POST', `/dispensaries/${id}/specials`, {
      name: 'Gummy hour',
      kind: 'amount_off',
      value: 5,
      applies_to: { item_ids: [12] },
      menu_type: 'rec',
      starts_at: new Date(start).toISOString(),
      ends_at: new Date(start + 1_000).toISOString(),
    });
    expect(special.statusCode, special.body).toBe(201);
    const url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const { read } = await followEvents(`${url}/m/rich-shop/events`, 3);
    const [, started, ended] = (await read).events as [
      unknown,
      ...[string, string, { items: { id: number; prices: { price: number }[] }[] }][],
    ];
    expect(started![2].items.map((item) => [item.id, item.prices[0]!.price])).toEqual([[12, 15]]);
    expect(ended![2].items.map((item) => [item.id, item.prices[0]!.price])).toEqual([[12, 20]]);
  });
});

/** A runtime with `menu`, its dispensary published with `settings`, for a describe block (made before its tests). */
function publishedShop(menu: unknown[], settings: Record<string, unknown>) {
  const shop = {} as {
    runtime: TestRuntime;
    admin: AdminCall;
    id: number;
    get(
      path: string,
      headers?: Record<string, string>,
    ): Promise<Awaited<ReturnType<TestRuntime['app']['inject']>>>;
  };
  beforeAll(async () => {
    const runtime = await syncTestRuntime({ menu });
    shop.runtime = runtime;
    shop.admin = (await adminKey(runtime, 'all')).call;
    shop.id = runtime.seed.dispensaryId;
    shop.get = (path, headers = {}) => runtime.app.inject({ method: 'GET', url: path, headers });
    const patch = await shop.admin('PATCH', `/dispensaries/${shop.id}`, { published: true, ...settings });
    expect(patch.statusCode, patch.body).toBe(200);
  });
  afterAll(() => shop.runtime.close());
  return shop;
}

/** An item of FILTER_MENU: its headline THC (percent, or mg per package) and its strain type. */
const filterItem = (
  [id, name, brand, type]: [number, string, string, string],
  thc: number,
  unit: '%' | 'mg',
  strain: string | null,
  prices: Record<string, unknown>[],
) => ({
  id,
  name,
  brand,
  product_type: type,
  cannabinoids: [
    unit === '%'
      ? { code: 'total-thc', min: thc, unit }
      : { code: 'd9-thc', min: thc, unit, basis: 'package' },
  ],
  strain: strain && { name, type: strain },
  prices,
});

/** A menu to filter: potency in percent and in mg, strain types, a special, a sold-out item, an inactive one. */
const FILTER_MENU = [
  filterItem([21, 'Lemon Haze', 'North Farm', 'Flower'], 24.1, '%', 'sativa_dominant', [
    { unit: 'gram', amount: 1, price: 12 },
    { unit: 'ounce', amount: 0.125, price: 40 },
  ]),
  filterItem([22, 'Blue Dream', 'Emerald Farms', 'Flower'], 18, '%', 'hybrid', [
    { unit: 'gram', amount: 1, price: 10, stock: 0 },
  ]),
  filterItem([23, 'Calm Gummies', 'Slow Co', 'Edible'], 10, 'mg', null, [
    { unit: 'unit', amount: 1, price: 20 },
  ]),
  filterItem([24, 'Night Cart', 'Moon Labs', 'Vape'], 85, '%', 'indica', [
    { unit: 'gram', amount: 0.5, price: 45 },
  ]),
  {
    ...filterItem([25, 'Secret Kush', '', 'Flower'], 30, '%', 'hybrid', [
      { unit: 'gram', amount: 1, price: 15 },
    ]),
    active: false,
  },
];

/** The ids of the items a page lists, in its order. */
const idsOf = (html: string) =>
  [...html.matchAll(/<li class="item[^"]*" data-id="(\d+)"/g)].map((m) => Number(m[1]));
/** The count a page shows beside a box of its filter form (`name`, `value`), and whether it is ticked. */
function boxOf(html: string, name: string, value: string): { count: number; checked: boolean } | undefined {
  const match = new RegExp(
    `<input type="checkbox" name="${name}" value="${value}"( checked)?> [^<]* <span class="n">(\\d+)</span>`,
  ).exec(html);
  return match ? { count: Number(match[2]), checked: match[1] !== undefined } : undefined;
}

describe("the menu page's filters, search and sort: Form v1's parameters and engine", () => {
  const shop = publishedShop(FILTER_MENU, { slug: 'filter-shop' });
  const get = (path: string, headers: Record<string, string> = {}) => shop.get(path, headers);
  beforeAll(async () => {
    const special = await shop.admin('POST', `/dispensaries/${shop.id}/specials`, {
      ...FLOWER_SPECIAL,
      applies_to: { item_ids: [21] },
    });
    expect(special.statusCode, special.body).toBe(201);
  });

  it('a GET form of v1 parameters, labelled, with the counts of the items shown beside each filter', async () => {
    const whole = (await get('/m/filter-shop')).body;
    expect(idsOf(whole)).toEqual([22, 21, 23, 24]);
    expect(whole).toContain('<form class="filter" method="get" role="search" aria-label="Filter the menu">');
    for (const name of ['q', 'sort', 'thc_min', 'thc_max', 'price_min', 'price_max'])
      expect(whole).toMatch(
        new RegExp(`<label[^>]*>[^<]*(<input [^>]*)?name="${name}"|<label for="${name}">`),
      );
    expect(boxOf(whole, 'product_type', 'Flower')).toEqual({ count: 2, checked: false });
    expect(boxOf(whole, 'strain_type', 'hybrid')).toEqual({ count: 1, checked: false });
    expect(boxOf(whole, 'on_special', 'true')).toEqual({ count: 1, checked: false });
    expect(boxOf(whole, 'in_stock', 'true')).toEqual({ count: 3, checked: false });
    expect(whole).toContain('<span class="n" id="thc-shown">18%–85% shown</span>');
    expect(whole).toContain('<span class="n" id="price-shown">$9.60–$45.00 shown</span>');

    // Counts over the items shown, as v1's facets count; every value of the menu keeps its box.
    const flower = (await get('/m/filter-shop?product_type=Flower')).body;
    expect(idsOf(flower)).toEqual([22, 21]);
    expect(flower).toContain('2 of 4 products');
    expect(boxOf(flower, 'product_type', 'Flower')).toEqual({ count: 2, checked: true });
    expect(boxOf(flower, 'product_type', 'Vape')).toEqual({ count: 0, checked: false });
    expect(boxOf(flower, 'strain_type', 'indica')).toEqual({ count: 0, checked: false });
    expect(boxOf(flower, 'strain_type', 'sativa_dominant')).toEqual({ count: 1, checked: false });
    expect(flower).toMatch(/<a class="reset" href="filter-shop">Show all<\/a>/);

    // Each filter as v1 has it: potency on the headline in percent (the edible's mg is not), the
    // effective price (Lemon Haze's gram at 20% off: 9.60), specials now, stock, any of a list.
    expect(idsOf((await get('/m/filter-shop?thc_min=20')).body)).toEqual([21, 24]);
    expect(idsOf((await get('/m/filter-shop?price_max=9.6')).body)).toEqual([21]);
    expect(idsOf((await get('/m/filter-shop?price_min=20&price_max=44')).body)).toEqual([21, 23]);
    expect(idsOf((await get('/m/filter-shop?on_special=true')).body)).toEqual([21]);
    expect(idsOf((await get('/m/filter-shop?in_stock=true')).body)).toEqual([21, 23, 24]);
    expect(idsOf((await get('/m/filter-shop?strain_type=hybrid,indica')).body)).toEqual([22, 24]);
    expect(idsOf((await get('/m/filter-shop?brand=moon%20labs')).body)).toEqual([24]);
    // The search: accent- and case-insensitive, the last word as a prefix.
    expect(idsOf((await get('/m/filter-shop?q=BL%C3%9CE%20dr')).body)).toEqual([22]);
    const checked = (await get('/m/filter-shop?product_type=Vape&in_stock=true&thc_min=50')).body;
    expect(boxOf(checked, 'in_stock', 'true')).toEqual({ count: 1, checked: true });
    expect(checked).toContain('name="thc_min" type="number" min="0" step="any" value="50"');
    // Never an inactive item, whatever the address says: v1's active and ids are not the page's.
    const sneaky = (await get('/m/filter-shop?active=false&ids=25&q=secret')).body;
    expect(sneaky).not.toContain('Secret Kush');
    expect(sneaky).toContain('Nothing matches');
  });

  it('sort: one list in the order asked for (ties by id), the select showing it', async () => {
    const byPrice = (await get('/m/filter-shop?sort=-price')).body;
    expect(idsOf(byPrice)).toEqual([24, 23, 22, 21]);
    expect(byPrice).toContain('<h2>Results</h2>');
    expect(byPrice).not.toContain('<h2>Flower</h2>');
    expect(byPrice).toContain('<option value="-price" selected>');
    expect(idsOf((await get('/m/filter-shop?sort=-thc')).body)).toEqual([24, 21, 22, 23]);
    expect(idsOf((await get('/m/filter-shop?sort=name&product_type=Flower')).body)).toEqual([22, 21]);
    // Best match without words is the page's own order, not an error.
    const relevance = await get('/m/filter-shop?sort=relevance');
    expect(relevance.statusCode).toBe(200);
    expect(idsOf(relevance.body)).toEqual([22, 21, 23, 24]);
  });

  it('a bad value: a 400 page that says which parameter was left out and why, the rest applied', async () => {
    for (const [query, words] of [
      ['thc_min=abc', 'thc_min is not a number ("abc")'],
      ['sort=cheapest', 'sort is "cheapest"'],
      ['price_min=30&price_max=10', 'price_min (30) is above price_max (10)'],
      ['on_special=yes', 'on_special is "yes"'],
      ['q=a&q=b', 'q was sent more than once'],
    ] as const) {
      const response = await get(`/m/filter-shop?product_type=Flower&${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers.etag).toBeUndefined();
      expect(response.body).toContain(
        `<p class="problem" role="alert">The query parameter ${words.replaceAll('"', '&quot;')}`,
      );
      expect(response.body, query).toContain('It was left out.');
      expect(
        idsOf(response.body).every((item) => item === 21 || item === 22),
        query,
      ).toBe(true);
    }
  });

  it('each query is a kept answer: strong ETag, 304, gzip and br; a change makes a new one', async () => {
    const path = '/m/filter-shop?product_type=Flower&sort=name';
    const first = await get(path, { 'accept-encoding': 'gzip' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+-gzip"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=10, stale-while-revalidate=60');
    expect(first.headers.vary).toContain('Accept-Encoding');
    expect(idsOf(gunzipSync(first.rawPayload).toString())).toEqual([22, 21]);
    const again = await get(path, { 'accept-encoding': 'br', 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    const br = await get(path, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(gunzipSync(first.rawPayload).toString());
    // Blue Dream back in stock: the same query is another page (in each coding already kept), and the
    // old tag no longer matches.
    const plain = await get(path);
    expect(plain.headers.etag).toBe(String(first.headers.etag).replace('-gzip', ''));
    const stock = await shop.admin('PATCH', `/dispensaries/${shop.id}/inventory`, [
      { item_id: 22, unit: 'gram', amount: 1, stock: 5 },
    ]);
    expect(stock.statusCode, stock.body).toBe(200);
    await until(
      async () => (await get(path, { 'if-none-match': String(plain.headers.etag) })).statusCode === 200,
      2_000,
      'the page to change',
    );
    expect(boxOf((await get(path)).body, 'in_stock', 'true')).toEqual({ count: 2, checked: false });
  });

  it('a store that hides potency offers no THC filter or sort, and ignores them in the address', async () => {
    const off = await shop.admin('PATCH', `/dispensaries/${shop.id}`, { show_potency: false });
    expect(off.statusCode, off.body).toBe(200);
    try {
      const response = await get('/m/filter-shop?thc_min=50&sort=-thc');
      expect(response.statusCode).toBe(200);
      expect(idsOf(response.body)).toEqual([22, 21, 23, 24]);
      expect(response.body).not.toContain('name="thc_min"');
      expect(response.body).not.toContain('value="-thc"');
    } finally {
      await shop.admin('PATCH', `/dispensaries/${shop.id}`, { show_potency: true });
    }
  });
});
