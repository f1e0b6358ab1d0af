/** The options both examples take, defaulting to the demo server (`npm start`). */
import { parseArgs } from 'node:util';

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
