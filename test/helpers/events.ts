import type { IncomingHttpHeaders } from 'node:http';
import { type OwnRequest, sendAlone } from './process.js';

/** One server-sent event as a client parses it. */
export interface ServerSentEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** A live /events answer, read as it arrives (or the error answer, when the status is not 200). */
export interface EventStreamClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body of an answer that is not a stream (an error). */
  body: string;
  events: ServerSentEvent[];
  comments: string[];
  /** Resolves when the server ends the stream (or the connection closes). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Closes the connection from the client's side. */
  close(): void;
  /** Waits until `count` events have arrived; throws naming what it waited for after `timeoutMs`. */
  waitForEvents(count: number, timeoutMs?: number): Promise<ServerSentEvent[]>;
  /** Waits until a comment line of this text (`: keep-alive`) has arrived; throws after `timeoutMs`. */
  waitForComment(text: string, timeoutMs?: number): Promise<void>;
  /** The data of every event, parsed. */
  changes<T = Record<string, unknown>>(): T[];
}

/**
 * Opens an event stream on a connection of its own and parses it as EventSource does (lines of
 * `field: value`, events ended by a blank line, comments starting with a colon).
 */
export function openEvents(
  url: string,
  options: Omit<OwnRequest, 'timeoutMs'> = {},
): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const request = sendAlone(
      url,
      options,
      (response) => {
        const events: ServerSentEvent[] = [];
        const comments: string[] = [];
        let buffer = '';
        let body = '';
        let current: ServerSentEvent = {};
        let ended = false;
        const waiters = new Set<() => void>();
        const endedPromise = new Promise<void>((done) => {
          const finish = () => {
            ended = true;
            for (const waiter of waiters) waiter();
            done();
          };
          response.on('end', finish);
          response.on('close', finish);
          response.on('error', finish);
        });
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += response.statusCode === 200 ? '' : chunk;
          buffer += chunk;
          let newline = buffer.indexOf('\n');
          while (newline >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line === '') {
              if (current.data !== undefined || current.id !== undefined) events.push(current);
              current = {};
            } else if (line.startsWith(':')) {
              comments.push(line.slice(1).trim());
            } else {
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id' || field === 'event') current[field] = value;
              else if (field === 'data')
                current.data = current.data === undefined ? value : `${current.data}\n${value}`;
            }
            newline = buffer.indexOf('\n');
          }
          for (const waiter of waiters) waiter();
        });
        /** What `ready` gives once it gives something; fails when the stream ends first, or after `timeoutMs`. */
        const waitUntil = <T>(ready: () => T | undefined, what: () => string, timeoutMs: number) =>
          new Promise<T>((done, fail) => {
            const check = () => {
              const value = ready();
              if (value !== undefined) {
                cleanup();
                done(value);
              } else if (ended) {
                cleanup();
                fail(new Error(`the stream ended before ${what()}`));
              }
            };
            const timer = setTimeout(() => {
              cleanup();
              fail(new Error(`waited ${timeoutMs} ms for ${what()}`));
            }, timeoutMs);
            const cleanup = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        const client: EventStreamClient = {
          status: response.statusCode ?? 0,
          headers: response.headers,
          get body() {
            return body;
          },
          events,
          comments,
          ended: endedPromise,
          isEnded: () => ended,
          close: () => request.destroy(),
          waitForEvents: (count, timeoutMs = 10_000) =>
            waitUntil(
              () => (events.length >= count ? events.slice(0, count) : undefined),
              () => `${count} events; got ${events.length}`,
              timeoutMs,
            ),
          waitForComment: (text, timeoutMs = 10_000) =>
            waitUntil(
              () => (comments.includes(text) ? true : undefined),
              () => `the comment "${text}"; got ${JSON.stringify(comments)}`,
              timeoutMs,
            ).then(() => undefined),
          changes: <T>() => events.map((event) => JSON.parse(event.data ?? 'null') as T),
        };
        if (client.status === 200) resolve(client);
        else endedPromise.then(() => resolve(client), reject);
      },
      reject,
    );
  });
}
