import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from '../../src/http/pipeline/request-logger.js';

/** A pino logger writing JSON lines into `lines`, counting the children made of it. */
function capturing(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level }, stream);
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof logger.child;
  return { logger, lines, children: () => children };
}

describe('the per-request logger', () => {
  it('makes no child logger for a request that writes nothing, and binds the request id to lines written', async () => {
    const { logger, lines, children } = capturing('warn');
    const app = Fastify({
      loggerInstance: logger,
      childLoggerFactory: lazyChildLogger,
      logController: new LogController({ disableRequestLogging: true }),
      genReqId: () => 'r-1',
    });
    app.get('/quiet', async (request) => {
      // Dropped at warn: no child is needed for it.
      request.log.info('dropped');
      return { level: request.log.level };
    });
    app.get('/loud', async (request) => {
      request.log.info('dropped at warn');
      request.log.warn({ detail: 1 }, 'written');
      return {};
    });
    await app.ready();
    // Fastify's own children (its plugins' loggers) are made at start-up; only requests' count here.
    const before = children();
    const quiet = await app.inject({ url: '/quiet' });
    expect(quiet.json()).toEqual({ level: 'warn' });
    expect(children() - before).toBe(0);
    await app.inject({ url: '/loud' });
    expect(children() - before).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([expect.objectContaining({ reqId: 'r-1', detail: 1, msg: 'written', level: 40 })]);
    await app.close();
  });
});
