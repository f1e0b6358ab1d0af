/** The ceiling's side in the bench: starts bench/lib/ceiling-server.ts and tells it what to serve. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { RawResponse } from './http.js';
import { freePort, pinned, ROOT, SERVER_CORE } from './processes.js';
import type { ServerUnderTest } from './server.js';

export interface Ceiling {
  url: string;
  pid: number;
  serve(response: RawResponse): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the bare node:http ceiling server of `server` (same keep-alive timeout), pinned to the server
 * core, or run by `wrapper` (a command that runs node, as startMenuServer takes one).
 */
export async function startCeiling(server: ServerUnderTest, wrapper?: string[]): Promise<Ceiling> {
  const port = await freePort();
  const ceilingArgs = ['--import', 'tsx', join(ROOT, 'bench/lib/ceiling-server.ts')];
  const [command, argv] = wrapper
    ? [wrapper[0]!, [...wrapper.slice(1), process.execPath, ...ceilingArgs]]
    : pinned(SERVER_CORE, process.execPath, ceilingArgs);
  const child = spawn(command, argv, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), KEEP_ALIVE_MS: String(server.keepAliveMs) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the ceiling server exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    serve: (response) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          // Node writes the connection headers (from the keep-alive timeout) and the date itself.
          if (value === undefined || ['connection', 'keep-alive', 'date'].includes(name)) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        child.send({ status: response.status, headers, body: response.body.toString('base64') });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}
