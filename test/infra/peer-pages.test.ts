import type { Worker } from 'node:cluster';
import { describe, expect, it } from 'vitest';
import { relayPeerPages } from '../../src/server/peer-pages.js';

/**
 * The primary's relay of Form v1's pages between `serve --workers N` workers (the whole path, through
 * real worker processes, is test/e2e/v1-paging.e2e.test.ts): who is asked, and what the asker gets.
 */

/** A worker as the relay sees it: an id, whether it is connected, and what it was sent. */
function worker(id: number) {
  const sent: { kind: string; id: string; answer?: unknown }[] = [];
  const fake = { id, isConnected: () => true, send: (message: (typeof sent)[number]) => sent.push(message) };
  // The relay uses only these three members of a cluster Worker.
  return { worker: fake as unknown as Worker, sent };
}

const REQUEST = { dispensaryId: 1, version: 42, parameters: { sort: 'price', cursor: 'c' } };
const PAGE = { body: 'e30=', encoding: 'identity', etag: '"t"', tag: 't', cursor: 42 };

describe('relayPeerPages', () => {
  it('asks every other worker, and gives the asker the first answer that has the page', () => {
    const [asker, first, second] = [worker(1), worker(2), worker(3)];
    const relay = relayPeerPages(() => [asker.worker, first.worker, second.worker]);
    relay(asker.worker, { kind: 'menu-api:peer-page-ask', id: '7', request: REQUEST });
    expect(asker.sent).toEqual([]);
    for (const other of [first, second]) {
      expect(other.sent).toEqual([{ kind: 'menu-api:peer-page-ask', id: '1:7', request: REQUEST }]);
    }
    relay(first.worker, { kind: 'menu-api:peer-page-answer', id: '1:7', answer: null });
    expect(asker.sent).toEqual([]);
    relay(second.worker, { kind: 'menu-api:peer-page-answer', id: '1:7', answer: PAGE });
    expect(asker.sent).toEqual([{ kind: 'menu-api:peer-page-answer', id: '7', answer: PAGE }]);
  });

  it('answers null once every other worker has said it does not keep the version, or at once with none', () => {
    const [asker, other, alone] = [worker(1), worker(2), worker(3)];
    const relay = relayPeerPages(() => [asker.worker, other.worker]);
    relay(asker.worker, { kind: 'menu-api:peer-page-ask', id: '8', request: REQUEST });
    relay(other.worker, { kind: 'menu-api:peer-page-answer', id: '1:8', answer: null });
    // A late or repeated answer to a question answered already goes nowhere.
    relay(other.worker, { kind: 'menu-api:peer-page-answer', id: '1:8', answer: PAGE });
    expect(asker.sent).toEqual([{ kind: 'menu-api:peer-page-answer', id: '8', answer: null }]);

    relayPeerPages(() => [alone.worker])(alone.worker, {
      kind: 'menu-api:peer-page-ask',
      id: '9',
      request: REQUEST,
    });
    expect(alone.sent).toEqual([{ kind: 'menu-api:peer-page-answer', id: '9', answer: null }]);
  });

  it('ignores every other message of the cluster (the metrics aggregator’s)', () => {
    const [one, two] = [worker(1), worker(2)];
    const relay = relayPeerPages(() => [one.worker, two.worker]);
    relay(one.worker, { type: 'prom-client:getMetricsReq', requestId: 1 });
    relay(one.worker, null);
    expect([...one.sent, ...two.sent]).toEqual([]);
  });
});
