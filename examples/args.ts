/**
 * What both examples share: their options (defaulting to the demo server of `npm start`), the client
 * those options describe, and how a failure is reported.
 */
import { parseArgs } from 'node:util';
import { MenuApiError, MenuClient } from 'dispensary-menu-api/client';

export interface ExampleOptions {
  baseUrl: string;
  username: string;
  password: string;
  token: string;
  form: 'A' | 'B';
  values: Record<string, string | undefined>;
}

/** The options every example takes, for its usage text. */
export const COMMON_USAGE = `Options:
  --base-url URL    the server (default: $MENU_API_URL, or http://127.0.0.1:8080, the demo server of npm start)
  --username NAME   the API credential's username (default: demo)
  --password PASS   its password (default: demo-password)
  --token TOKEN     the dispensary token (default: demo-collective-token)
  --form A|B        the request form (default: B)
  -h, --help        print this help and exit`;

/**
 * Reads the command line. `--help` prints `usage` and exits 0; an unknown or malformed option prints
 * what is wrong and the usage, and exits 2 (never a stack trace).
 */
export function exampleOptions(
  usage: string,
  extra: Record<string, { type: 'string'; default?: string }> = {},
): ExampleOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      options: {
        'base-url': { type: 'string', default: process.env.MENU_API_URL || 'http://127.0.0.1:8080' },
        username: { type: 'string', default: 'demo' },
        password: { type: 'string', default: 'demo-password' },
        token: { type: 'string', default: 'demo-collective-token' },
        form: { type: 'string', default: 'B' },
        help: { type: 'boolean', short: 'h', default: false },
        ...extra,
      },
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const form = String(values.form).toUpperCase();
  if (form !== 'A' && form !== 'B') {
    process.stderr.write(`--form must be A or B, not ${String(values.form)}\n\n${usage}\n`);
    process.exit(2);
  }
  return {
    baseUrl: String(values['base-url']),
    username: String(values.username),
    password: String(values.password),
    token: String(values.token),
    form,
    values: values as Record<string, string | undefined>,
  };
}

/** The client the options describe (the token goes with each call, not here). */
export function exampleClient(options: ExampleOptions): MenuClient {
  return new MenuClient({
    baseUrl: options.baseUrl,
    username: options.username,
    password: options.password,
    form: options.form,
  });
}

/**
 * Runs an example's main. A refusal of the API prints its status, code, message and request id (what
 * to quote when asking for help); anything else prints as thrown. Either way the exit code is 1.
 */
export function runExample(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof MenuApiError) {
      console.error(`${error.status} ${error.code}: ${error.message} (request ${error.requestId ?? 'none'})`);
    } else {
      console.error(error);
    }
    process.exitCode = 1;
  });
}
