import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type EventStreamClient, openEvents } from '../helpers/events.js';
import { BLUE_DREAM } from '../helpers/fixtures.js';
import { formBHeaders } from '../helpers/http.js';
import { DATABASE_KIND, type TestRuntime, testRuntime } from '../helpers/runtime.js';

/**
 * Items per write, each with a long description: a write is about 15 kB of events. The hub hands a
 * stream a write's changes in one synchronous burst, which Node buffers (the response is corked until
 * the next tick): past its 16 kB high-water mark `write` returns false even for a reader that keeps
 * up, so a write must stay under it (with the backlog of 5 to spare), or that reader is cut off too.
 */
const ITEMS = 4;
const DESCRIPTION = 3_000;
/** Most writes before giving up on the cutoff (about 15 MB of events, far beyond loopback socket buffers). */
const MAX_ROUNDS = 1_000;

/** A menu of ITEMS items whose descriptions differ from every other round's: each item changes. */
function menu(round: number): unknown[] {
  return Array.from({ length: ITEMS }, (_, index) => ({
    ...BLUE_DREAM,
    id: 100 + index,
    name: `Bulk ${index}`,
    description: `${round}:${index} `.padEnd(DESCRIPTION, 'x'),
  }));
}

/** Waits until `check` holds, or fails naming `what` after `ms` (a bound, not a measurement). */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The ended-streams counter of this reason in /metrics. */
async function endedCount(runtime: TestRuntime, reason: string): Promise<number> {
  const metrics = (await runtime.app.inject({ url: '/metrics' })).body;
  const line = new RegExp(`^menu_api_live_streams_ended_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(
    metrics,
  );
  return Number(line?.[1] ?? 0);
}

let runtime: TestRuntime | undefined;
const sockets: Socket[] = [];
const streams: EventStreamClient[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const stream of streams.splice(0)) stream.close();
  await runtime?.close();
  runtime = undefined;
});

describe(`/events cuts off a slow reader (--stream-max-backlog) on ${DATABASE_KIND}`, {
  timeout: 60_000,
}, () => {
  it('ends the stream of a reader that stops reading, counted as slow, while a reader that keeps up gets every event', async () => {
    runtime = await testRuntime({ config: { streamMaxBacklog: 5 } });
    const { seed, hub } = runtime;
    const url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(url);

    // The reader that keeps up.
    const reader = await openEvents(`${url}/events`, { headers: formBHeaders(seed) });
    streams.push(reader);
    expect(reader.status).toBe(200);

    // The slow reader: a raw connection that sends its request, then stops reading (its kernel
    // receive buffer fills, then the server's send buffer, then the server's writes return false).
    const slow = connect(Number(port), '127.0.0.1');
    sockets.push(slow);
    let received = '';
    slow.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    const slowClosed = new Promise<void>((resolve) => slow.on('close', () => resolve()));
    await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
    const headers = Object.entries(formBHeaders(seed)).map(([name, value]) => `${name}: ${value}`);
    slow.write(
      `${['GET /events HTTP/1.1', `Host: 127.0.0.1:${port}`, ...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`,
    );
    // Both streams are subscribed, and the slow one has its headers, before it stops reading.
    await until(() => hub.stats.open === 2 && received.includes('retry: 1000'), 10_000, 'two open streams');
    slow.pause();
    expect(await endedCount(runtime, 'slow')).toBe(0);

    // Writes until the server cuts the slow reader off; the reader that keeps up reads every event.
    let written = 0;
    for (let round = 0; round < MAX_ROUNDS && hub.stats.ended.slow === 0; round++) {
      await runtime.services.menus.replace(seed.dispensaryId, runtime.services.menus.validate(menu(round)));
      written += ITEMS;
      await reader.waitForEvents(written, 10_000);
    }
    expect(hub.stats.ended.slow, `the slow reader was still streaming after ${written} events`).toBe(1);
    expect(await endedCount(runtime, 'slow')).toBe(1);
    // Only the slow stream ended: the other is still open and still gets what is written next.
    expect(hub.stats.open).toBe(1);
    expect(reader.isEnded()).toBe(false);
    await runtime.services.menus.replace(
      seed.dispensaryId,
      runtime.services.menus.validate(menu(MAX_ROUNDS)),
    );
    written += ITEMS;
    const events = await reader.waitForEvents(written, 10_000);
    expect(events).toHaveLength(written);
    // Every event once.
    const ids = events.map((event) => event.id!);
    expect(new Set(ids).size).toBe(written);
    expect(events.every((event) => event.event === 'item.upserted')).toBe(true);

    // The server ended the slow stream: once it reads again, the stream says why and the connection
    // closes (it asked for Connection: close), with fewer events than were written.
    slow.resume();
    await slowClosed;
    expect(received).toContain(': stream ended (slow)');
    expect(received.split('\nevent: ').length - 1).toBeLessThan(written);
  });

  it('keeps a reader that keeps up when one write alone is far more than the backlog and the socket buffer', async () => {
    runtime = await testRuntime({ config: { streamMaxBacklog: 5 } });
    const { seed, hub } = runtime;
    const url = await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const reader = await openEvents(`${url}/events`, { headers: formBHeaders(seed) });
    streams.push(reader);
    expect(reader.status).toBe(200);
    await until(() => hub.stats.open === 1, 10_000, 'the stream open');
    // One full sync of 200 changed items: about 600 kB of events handed over in one burst.
    const items = Array.from({ length: 200 }, (_, index) => ({
      ...BLUE_DREAM,
      id: 100 + index,
      name: `Big ${index}`,
      description: `${index} `.padEnd(DESCRIPTION, 'y'),
    }));
    const before = (await runtime.services.store.menus.read(seed.dispensaryId)).filter((item) => item.active);
    await runtime.services.menus.replace(seed.dispensaryId, runtime.services.menus.validate(items));
    // The 200 new items, and the removal of each item the sync replaced.
    const events = await reader.waitForEvents(200 + before.length, 20_000);
    expect(events.filter((event) => event.event === 'item.upserted')).toHaveLength(200);
    expect(hub.stats.ended.slow).toBe(0);
    expect(reader.isEnded()).toBe(false);
  });
});
