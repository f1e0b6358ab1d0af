/**
 * The server log's form: JSON lines (pino) when stdout is not a terminal, which is what log shippers
 * and operators expect; on a terminal, the same lines made readable. A small formatter of our own
 * rather than pino-pretty: this is all it needs to do, and it adds no dependency (README: "Logs").
 */

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

/** pino's own fields, and the request line's fields that the readable form places itself. */
const PLACED = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'method',
  'route',
  'status',
  'ms',
  'reqId',
]);

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  return `${date.toTimeString().slice(0, 8)}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  if (value instanceof Object && 'message' in value && typeof value.message === 'string')
    return JSON.stringify(value.message);
  return JSON.stringify(value);
}

/**
 * One JSON log line as a person reads it: time, level, then for a request `GET /menu 200 3.1 ms`,
 * otherwise the message, then the other fields as `name=value`. A line that is not JSON is kept.
 */
export function readableLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null) return line;
  const level = LEVELS[Number(entry.level)] ?? String(entry.level);
  const request =
    entry.msg === 'request' && typeof entry.method === 'string'
      ? `${entry.method} ${String(entry.route ?? '(unknown path)')} ${String(entry.status)} ${String(entry.ms)} ms`
      : String(entry.msg ?? '');
  const rest = Object.entries(entry)
    .filter(([key, value]) => !PLACED.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${valueText(value)}`);
  if (typeof entry.reqId === 'string') rest.push(`reqId=${entry.reqId}`);
  if (entry.msg !== 'request') {
    for (const key of ['method', 'route', 'status', 'ms'])
      if (entry[key] !== undefined) rest.unshift(`${key}=${valueText(entry[key])}`);
  }
  return [clock(entry.time), level, request, ...rest].join(' ').trimEnd();
}

/** A pino destination that writes each line readably to a terminal. */
export function readableDestination(out: NodeJS.WriteStream = process.stdout): {
  write(chunk: string): boolean;
} {
  return {
    write(chunk: string): boolean {
      const lines = chunk.split('\n').filter((line) => line !== '');
      return out.write(`${lines.map(readableLogLine).join('\n')}\n`);
    },
  };
}
