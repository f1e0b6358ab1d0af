import { describe, expect, it } from 'vitest';
import { parseWorkers } from '../../src/server/cluster.js';
import { isStoreUnavailable, StoreUnavailableError } from '../../src/store/unavailable.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isStoreUnavailable: 503 for "not now", never for a bug', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['an unknown host', withCode('ENOTFOUND')],
    [
      'PostgreSQL shutting down (57P01)',
      withCode('57P01', 'terminating connection due to administrator command'),
    ],
    ['PostgreSQL starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['a connection exception (08006)', withCode('08006')],
    ['too many connections (53300)', withCode('53300')],
    ['a SQLite write lock held too long', withCode('SQLITE_BUSY', 'database is locked')],
    ['node-postgres losing the connection', new Error('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
    ['our own error', new StoreUnavailableError('the database is unreachable')],
    ['a wrapped cause', new Error('migration failed', { cause: withCode('ECONNREFUSED') })],
    ['every address refused', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])],
  ])('%s is unavailable', (_what, error) => {
    expect(isStoreUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value')],
    ['a syntax error', withCode('42601', 'syntax error')],
    ['a missing table', withCode('SQLITE_ERROR', 'no such table: items')],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s is not', (_what, error) => {
    expect(isStoreUnavailable(error)).toBe(false);
  });
});

describe('--workers', () => {
  it('takes a whole number from 1 to 256, or auto for one per core', () => {
    expect(parseWorkers('1')).toBe(1);
    expect(parseWorkers('8')).toBe(8);
    expect(parseWorkers('auto')).toBeGreaterThanOrEqual(1);
    for (const bad of ['0', '-1', '1.5', 'two', '257', ''])
      expect(() => parseWorkers(bad)).toThrow(/--workers/);
  });
});
