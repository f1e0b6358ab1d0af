import { request as httpRequest } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A tiny load balancer for the drills: a TCP proxy that hands each new connection to the next backend
 * whose `/readyz` answered 200 at the last check (every `checkMs`), the way a real balancer takes a
 * draining server out of rotation. A connection that cannot reach its backend is tried on another one
 * before any byte has been sent. Backends are replaced while it runs (a rolling restart).
 */
export class Balancer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly ready = new Map<string, boolean>();
  private backends: string[] = [];
  private next = 0;
  private checker: NodeJS.Timeout | undefined;
  port = 0;

  private constructor(private readonly checkMs: number) {
    this.server = createServer((client) => this.route(client));
  }

  static async start(backends: string[], checkMs = 50): Promise<Balancer> {
    const balancer = new Balancer(checkMs);
    balancer.setBackends(backends);
    await balancer.checkAll();
    await new Promise<void>((resolve) => balancer.server.listen(0, '127.0.0.1', () => resolve()));
    balancer.port = (balancer.server.address() as { port: number }).port;
    balancer.checker = setInterval(() => void balancer.checkAll(), checkMs);
    return balancer;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The backends' base URLs (`http://127.0.0.1:PORT`). A new one gets traffic once it is ready. */
  setBackends(backends: string[]): void {
    this.backends = [...backends];
    for (const backend of [...this.ready.keys()]) if (!backends.includes(backend)) this.ready.delete(backend);
  }

  /** Resolves once `backend` answered /readyz with 200. */
  async whenReady(backend: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ready.get(backend)) {
      if (Date.now() > deadline) throw new Error(`${backend} not ready after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, this.checkMs));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.checker);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private checking = false;

  /** One round of checks at a time; a check that times out (a busy backend) leaves its state as it was. */
  private async checkAll(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await Promise.all(
        this.backends.map(async (backend) => {
          const ok = await readyz(backend);
          if (ok !== undefined && this.backends.includes(backend)) this.ready.set(backend, ok);
        }),
      );
    } finally {
      this.checking = false;
    }
  }

  private candidates(): string[] {
    const known = this.backends.filter((backend) => this.ready.get(backend));
    // None ready: fail open, as balancers do, rather than refuse everything.
    const ready = known.length > 0 ? known : this.backends;
    this.next = (this.next + 1) % Math.max(ready.length, 1);
    return [...ready.slice(this.next), ...ready.slice(0, this.next)];
  }

  private route(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    const attempt = (candidates: string[]) => {
      const backend = candidates[0];
      if (!backend) {
        client.destroy();
        return;
      }
      const { hostname, port } = new URL(backend);
      const upstream = connect(Number(port), hostname);
      this.sockets.add(upstream);
      upstream.on('close', () => this.sockets.delete(upstream));
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.on('error', () => {
        if (!connected) attempt(candidates.slice(1));
        else client.destroy();
      });
    };
    attempt(this.candidates());
  }
}

/** true: ready; false: said 503 or refused the connection; undefined: no answer in time. */
function readyz(backend: string): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    const request = httpRequest(`${backend}/readyz`, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => {
      request.destroy();
      resolve(undefined);
    });
    request.on('error', () => resolve(false));
    request.end();
  });
}
