import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ScryptCost } from '../auth/password.js';
import type { ServerConfig } from '../config.js';
import { ensureDemo } from '../demo/seed.js';
import { AccessService } from '../services/access.js';
import { ChangeFeed } from '../services/change-feed.js';
import { createServices, type Services } from '../services/index.js';
import { MenuReader } from '../services/menu-reader.js';
import { openStore } from '../store/open.js';
import { buildApp } from './app.js';

export interface Runtime {
  app: FastifyInstance;
  services: Services;
  feed: ChangeFeed;
  close(): Promise<void>;
}

export interface RunningServer extends Runtime {
  url: string;
}

export interface RuntimeOptions {
  logger: FastifyBaseLogger | false;
  scryptCost?: ScryptCost;
}

/** Opens the database and wires the caches to its change feed; the app is ready but not listening. */
export async function createRuntime(config: ServerConfig, options: RuntimeOptions): Promise<Runtime> {
  const store = await openStore(config.database);
  const feed = new ChangeFeed(store, config.changePollMs);
  const services = createServices(store, () => feed.poll(), options.scryptCost);
  try {
    await feed.start();
    if (config.demo) await ensureDemo(services);
    const access = new AccessService(store, feed, {
      rememberCredentialsMs: config.rememberCredentialsMs,
      scryptCost: options.scryptCost,
    });
    const app = await buildApp({
      access,
      menus: new MenuReader(store, feed),
      formBNames: config.formBNames,
      bodyLimit: config.bodyLimit,
      logger: options.logger,
    });
    return {
      app,
      services,
      feed,
      async close() {
        feed.stop();
        await app.close();
        await store.close();
      },
    };
  } catch (error) {
    feed.stop();
    await store.close();
    throw error;
  }
}

export async function startServer(config: ServerConfig, options: RuntimeOptions): Promise<RunningServer> {
  const runtime = await createRuntime(config, options);
  try {
    const url = await runtime.app.listen({ host: config.host, port: config.port });
    return { ...runtime, url };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
