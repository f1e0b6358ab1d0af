/**
 * The ceiling of bench/live.ts: a bare node:http server with the same job as the live path and nothing
 * else. `GET /events` opens a server-sent event stream; `POST /change` with a body writes that body as
 * one event to every open stream, then answers 204. Told its port by PORT; says it listens over IPC.
 */
import { createServer, type ServerResponse } from 'node:http';

const streams = new Set<ServerResponse>();
let seq = 0;

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/events') {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
    });
    response.write('retry: 1000\n\n');
    streams.add(response);
    request.on('close', () => streams.delete(response));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    seq += 1;
    const frame = `id: ${String(seq).padStart(16, '0')}\nevent: item.upserted\ndata: ${Buffer.concat(chunks).toString()}\n\n`;
    for (const stream of streams) stream.write(frame);
    response.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
process.on('disconnect', () => {
  for (const stream of streams) stream.destroy();
  server.close(() => process.exit(0));
});
