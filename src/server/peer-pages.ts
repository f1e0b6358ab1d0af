import cluster, { type Worker } from 'node:cluster';
import type { PeerPageRequest, PeerPages } from '../forms/form.js';
import type { Representation } from '../services/snapshots/types.js';

/**
 * The pages of menu versions that another worker of `serve --workers N` keeps (Form v1's cursors,
 * src/forms/form-v1/menu.ts): a worker asked for a page of a version it never kept asks the others
 * through the primary, and the one that keeps it answers. Each worker keeps the versions it gave
 * cursors out for in its own memory, and the primary hands connections round-robin, so a paging's next
 * page often reaches another worker.
 */

const ASK = 'menu-api:peer-page-ask';
const ANSWER = 'menu-api:peer-page-answer';

/** A representation as it crosses the cluster's IPC channel (JSON: the body in base64). */
type WireAnswer = Omit<Representation, 'body'> & { body: string };

interface AskMessage {
  kind: typeof ASK;
  id: string;
  request: PeerPageRequest;
}

interface AnswerMessage {
  kind: typeof ANSWER;
  id: string;
  answer: WireAnswer | null;
}

const isAsk = (message: unknown): message is AskMessage => (message as AskMessage | null)?.kind === ASK;
const isAnswer = (message: unknown): message is AnswerMessage =>
  (message as AnswerMessage | null)?.kind === ANSWER;

/** How long a worker waits for the others before it answers 410 itself. */
const ASK_TIMEOUT_MS = 2_000;

/** A worker's side: undefined outside a cluster worker (one process keeps every version it gave out). */
export function clusterPeerPages(timeoutMs = ASK_TIMEOUT_MS): PeerPages | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  const send = (message: AskMessage | AnswerMessage) => process.send!(message);
  const waiting = new Map<string, (answer: WireAnswer | null) => void>();
  let asked = 0;
  let serve: ((request: PeerPageRequest) => Promise<Representation | undefined>) | undefined;
  process.on('message', (message: unknown) => {
    if (isAnswer(message)) waiting.get(message.id)?.(message.answer);
    else if (isAsk(message)) {
      const answering = serve ? serve(message.request) : Promise.resolve(undefined);
      // A page this worker cannot make (an error reading the menu) is not its to answer.
      answering.then(
        (answer) => send({ kind: ANSWER, id: message.id, answer: answer ? toWire(answer) : null }),
        () => send({ kind: ANSWER, id: message.id, answer: null }),
      );
    }
  });
  return {
    ask: (request) =>
      new Promise((resolve) => {
        const id = String(++asked);
        const done = (answer: WireAnswer | null) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(answer ? fromWire(answer) : undefined);
        };
        const timer = setTimeout(() => done(null), timeoutMs);
        waiting.set(id, done);
        send({ kind: ASK, id, request });
      }),
    serve: (answer) => {
      serve = answer;
    },
  };
}

/**
 * The primary's side: hands a worker's question to every other worker, and the first answer that
 * has the page (or, when none has it, the last answer) back to the asker. Returns the listener to
 * remove when the cluster stops.
 */
export function relayPeerPages(workers: () => Worker[]): (worker: Worker, message: unknown) => void {
  const relayed = new Map<string, { asker: Worker; id: string; left: number }>();
  return (worker, message) => {
    if (isAsk(message)) {
      const others = workers().filter((other) => other !== worker && other.isConnected());
      if (others.length === 0) {
        worker.send({ kind: ANSWER, id: message.id, answer: null } satisfies AnswerMessage);
        return;
      }
      const relayId = `${worker.id}:${message.id}`;
      relayed.set(relayId, { asker: worker, id: message.id, left: others.length });
      // A worker that exits without answering leaves its question here until the asker has given up.
      setTimeout(() => relayed.delete(relayId), ASK_TIMEOUT_MS * 2).unref();
      for (const other of others) other.send({ kind: ASK, id: relayId, request: message.request });
    } else if (isAnswer(message)) {
      const found = relayed.get(message.id);
      if (!found) return;
      found.left -= 1;
      if (message.answer === null && found.left > 0) return;
      relayed.delete(message.id);
      if (found.asker.isConnected()) {
        found.asker.send({ kind: ANSWER, id: found.id, answer: message.answer } satisfies AnswerMessage);
      }
    }
  };
}

function toWire(answer: Representation): WireAnswer {
  return { ...answer, body: answer.body.toString('base64') };
}

function fromWire(answer: WireAnswer): Representation {
  return { ...answer, body: Buffer.from(answer.body, 'base64') };
}
