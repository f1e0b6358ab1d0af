import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { syncTestRuntime } from '../helpers/admin.js';
import type { EventStreamClient } from '../helpers/events.js';
import { continueFeedAt } from '../helpers/feed-sequence.js';
import { type ErrorPayload, expectError } from '../helpers/http.js';
import { SAMPLE_MENU, type TestRuntime } from '../helpers/runtime.js';
import { FORM_DRIVERS, type FormRequest } from './driver.js';

interface ChangesPage {
  changes: { cursor: string; type: string; item_id: number | null }[];
  next_cursor: string;
  has_more: boolean;
}

/** A change number as the wire spells a cursor: 16 digits, zero-padded. */
const cursor = (seq: number | bigint) => String(seq).padStart(16, '0');

/** Cursors no server gives out, past the feed's last number (2^53 - 1): as numbers they round. */
const PAST_THE_RANGE = ['9007199254740992', '9007199254740993', '9999999999999999'];

describe.each(FORM_DRIVERS)('$id: /changes and /events refuse cursors they cannot continue from', (form) => {
  let runtime: TestRuntime;
  let good: Record<string, unknown>;
  const changes = (parameters: Record<string, unknown> = {}) =>
    form.send(runtime, '/changes', { credentials: good, parameters });
  const page = async (parameters: Record<string, unknown> = {}) => {
    const response = await changes(parameters);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as ChangesPage;
  };
  /** Every stream a test opens, closed after it whatever happened. */
  const opened: EventStreamClient[] = [];
  afterEach(() => {
    for (const stream of opened.splice(0)) stream.close();
  });
  const events = async (request: Omit<FormRequest, 'credentials'>) => {
    const stream = await form.stream(runtime, '/events', { credentials: good, ...request });
    opened.push(stream);
    return stream;
  };
  /** The error of an /events request refused before any stream opened: JSON, as every error answer. */
  const refusedStream = (stream: EventStreamClient, status: number, code: string): ErrorPayload => {
    expect(stream.status, stream.body).toBe(status);
    expect(stream.headers['content-type']).toBe('application/json; charset=utf-8');
    const { error } = JSON.parse(stream.body) as { error: ErrorPayload };
    expect(error.code).toBe(code);
    return error;
  };
  /** Each way a client resumes a stream after a cursor: `after`, or the Last-Event-ID header. */
  const RESUMES: ((at: string) => Omit<FormRequest, 'credentials'>)[] = [
    (at) => ({ parameters: { after: at } }),
    (at) => ({ headers: { 'last-event-id': at } }),
  ];

  beforeAll(async () => {
    runtime = await syncTestRuntime({ menu: SAMPLE_MENU });
    good = form.credentials(runtime.seed);
    // Another dispensary's changes come after ours: the feed's numbers are shared.
    const { dispensaries, menus } = runtime.services;
    const other = await dispensaries.create('Other Collective');
    await menus.replace(other.id, menus.validate(SAMPLE_MENU));
  });
  afterAll(() => runtime.close());

  it('/changes: a cursor at the head of the whole feed is followed; one past it gets 410, however it is padded', async () => {
    const all = await page();
    const head = all.next_cursor;
    const ours = all.changes.at(-1)!.cursor;
    expect(head > ours).toBe(true);
    for (const at of [ours, head]) {
      expect(await page({ after: at })).toEqual({ changes: [], next_cursor: head, has_more: false });
    }
    for (const ahead of [cursor(BigInt(head) + 1n), '0000000000009999']) {
      const error = expectError(await changes({ after: ahead }), 410, 'cursor_expired');
      expect(error.message).toContain(`ahead of the feed, whose newest change is ${head}`);
      expect(error.message).toContain('Read the whole menu again');
    }
  });

  it('/events: a cursor past the head gets a JSON 410 before any stream opens; at the head the stream is live', async () => {
    for (const resume of RESUMES) {
      const head = (await page()).next_cursor;
      for (const ahead of [cursor(BigInt(head) + 1n), '0000000000009999']) {
        const error = refusedStream(await events(resume(ahead)), 410, 'cursor_expired');
        expect(error.message).toContain('ahead of the feed');
      }
      const stream = await events(resume(head));
      expect(stream.status).toBe(200);
      await runtime.services.menus.setActive(runtime.seed.dispensaryId, 7, false);
      const [event] = await stream.waitForEvents(1);
      expect(event).toMatchObject({ event: 'item.removed' });
      expect(event!.id! > head).toBe(true);
      await runtime.services.menus.setActive(runtime.seed.dispensaryId, 7, true);
      stream.close();
    }
  });

  it('/events takes no limit (400, pointing to /changes), while /changes pages with it', async () => {
    const limits = form.id === 'a' ? [2, -1, 99_999, 'abc', '2'] : ['2', '-1', '99999', 'abc', ''];
    for (const limit of limits) {
      const stream = await events({ parameters: { limit } });
      const error = refusedStream(stream, 400, 'invalid_request');
      expect(error.problems).toEqual([
        { field: 'limit', message: `${form.parameterCarrier} is not taken here` },
      ]);
      expect(error.message).toContain(`${form.method} /events does not take`);
      expect(error.message).toContain(`use ${form.method} /changes`);
    }
    // The same refusal read as an ordinary answer: the error shape, and its request id.
    expectError(
      await form.send(runtime, '/events', { credentials: good, parameters: { limit: 2 } }),
      400,
      'invalid_request',
    );
    const first = await page({ limit: form.id === 'a' ? 2 : '2' });
    expect(first.changes).toHaveLength(2);
    expect(first.has_more).toBe(true);
  });

  // Last: it moves the feed's numbers to the end of their range.
  it('cursors up to 2^53 - 1, the last the feed gives out, come back exactly; past it, 410, never rounded', async () => {
    const last = Number.MAX_SAFE_INTEGER;
    await continueFeedAt(runtime.database, last - 2);
    await runtime.services.menus.setActive(runtime.seed.dispensaryId, 7, false);
    await runtime.services.menus.setActive(runtime.seed.dispensaryId, 7, true);
    const top = await page({ after: cursor(last - 2) });
    expect(top.changes.map((change) => [change.cursor, change.type])).toEqual([
      ['9007199254740990', 'item.removed'],
      ['9007199254740991', 'item.upserted'],
    ]);
    expect(top.next_cursor).toBe('9007199254740991');
    expect(await page({ after: top.next_cursor })).toEqual({
      changes: [],
      next_cursor: '9007199254740991',
      has_more: false,
    });
    const stream = await events({ headers: { 'last-event-id': cursor(last - 2) } });
    expect((await stream.waitForEvents(2)).map((event) => event.id)).toEqual([
      '9007199254740990',
      '9007199254740991',
    ]);
    stream.close();
    for (const ahead of PAST_THE_RANGE) {
      expectError(await changes({ after: ahead }), 410, 'cursor_expired');
      for (const resume of RESUMES) refusedStream(await events(resume(ahead)), 410, 'cursor_expired');
    }
  });
});
