import type { FormBNames } from './forms/form.js';
import { DEFAULT_DATABASE } from './store/open.js';

/** Every setting of the server, with its default. The CLI and environment fill these in. */
export interface ServerConfig {
  database: string;
  host: string;
  port: number;
  formBNames: FormBNames;
  /** Largest request body of the public endpoints, bytes. */
  bodyLimit: number;
  /** How often a process looks for changes written by other processes (the CLI), ms. */
  changePollMs: number;
  /** How long a verified username and password are remembered, ms. */
  rememberCredentialsMs: number;
  demo: boolean;
}

export const DEFAULTS: ServerConfig = {
  database: DEFAULT_DATABASE,
  host: '127.0.0.1',
  port: 8080,
  formBNames: 'both',
  bodyLimit: 64 * 1024,
  changePollMs: 250,
  rememberCredentialsMs: 5 * 60 * 1000,
  demo: false,
};

export const FORM_B_NAMES: readonly FormBNames[] = ['both', 'table', 'sample'];
