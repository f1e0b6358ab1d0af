import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  type RequestLine,
  requestLineFields,
  requestLineWriter,
} from '../../src/http/pipeline/request-line.js';
import { requestLogger, writeRequestLine } from '../../src/http/pipeline/request-logger.js';

/** A pino logger (fixed time, so that two writes of one line compare) writing its raw lines into `lines`. */
function capturing(options: pino.LoggerOptions = {}) {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', timestamp: () => ',"time":1764300000000', ...options },
    {
      write(line: string) {
        lines.push(line);
      },
    },
  );
  return { logger, lines };
}

const LINES: RequestLine[] = [
  {
    method: 'GET',
    route: '/menu',
    status: 200,
    ms: 0.3,
    address: '127.0.0.1',
    username: 'bench-integrator',
    adminKey: null,
  },
  { method: 'POST', route: null, status: 404, ms: 12, address: '::1', username: null, adminKey: null },
  { method: 'PUT', route: '/sync', status: 204, ms: 1.5, address: '10.0.0.2', username: '', adminKey: 'ops' },
  {
    method: 'GET',
    route: '/menu/:id',
    status: 500,
    ms: Number.NaN,
    address: '192.0.2.1',
    username: 'quote " back \\ tab \t nl \n é ✓',
    adminKey: `${'long '.repeat(30)}"key"`,
  },
];

describe('the request line put together without pino', () => {
  it("writes each line byte for byte as the request's child logger writes it through pino", () => {
    const fast = capturing();
    const through = capturing();
    const writer = requestLineWriter(fast.logger);
    expect(writer).not.toBeNull();
    for (const [index, line] of LINES.entries()) {
      writer!(`req-${index}"`, line);
      through.logger.child({ reqId: `req-${index}"` }, {}).info(requestLineFields(line), 'request');
    }
    expect(fast.lines).toEqual(through.lines);
    expect(fast.lines).toHaveLength(LINES.length);
    // What a line says, in order: no username when there is none, an admin key's name when there is one.
    expect(Object.entries(JSON.parse(fast.lines[2]!))).toEqual([
      ['level', 30],
      ['time', 1764300000000],
      ['pid', process.pid],
      ['hostname', expect.any(String)],
      ['reqId', 'req-2"'],
      ['method', 'PUT'],
      ['route', '/sync'],
      ['status', 204],
      ['ms', 1.5],
      ['address', '10.0.0.2'],
      ['adminKey', 'ops'],
      ['msg', 'request'],
    ]);
  });

  it('is not used for a logger whose lines it cannot foresee, whose lines still go through pino', () => {
    const variants: pino.LoggerOptions[] = [
      { mixin: () => ({ extra: 1 }) },
      { formatters: { log: (object) => ({ ...object, formatted: true }) } },
      { redact: ['username'] },
      { messageKey: 'message' },
      { nestedKey: 'payload' },
      { msgPrefix: '[api] ' },
      { serializers: { address: () => 'hidden' } },
      { hooks: { streamWrite: (line) => line.replace('request', 'REQUEST') } },
    ];
    for (const options of variants) {
      const { logger, lines } = capturing(options);
      expect(requestLineWriter(logger)).toBeNull();
      writeRequestLine(requestLogger(logger, 'r-1'), LINES[0]!);
      const expected = capturing(options);
      expected.logger.child({ reqId: 'r-1' }, {}).info(requestLineFields(LINES[0]!), 'request');
      expect(lines).toEqual(expected.lines);
    }
  });

  it('writes nothing below info, and makes no child logger to write it', () => {
    const { logger, lines } = capturing({ level: 'warn' });
    writeRequestLine(requestLogger(logger, 'r-1'), LINES[0]!);
    expect(lines).toEqual([]);
    const loud = capturing();
    let children = 0;
    const child = loud.logger.child.bind(loud.logger);
    loud.logger.child = ((...args: Parameters<typeof child>) => {
      children++;
      return child(...args);
    }) as typeof loud.logger.child;
    writeRequestLine(requestLogger(loud.logger, 'r-2'), LINES[0]!);
    expect(loud.lines).toHaveLength(1);
    expect(JSON.parse(loud.lines[0]!)).toMatchObject({ reqId: 'r-2', msg: 'request', status: 200 });
    expect(children).toBe(0);
  });
});
