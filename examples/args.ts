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

export function exampleOptions(
  extra: Record<string, { type: 'string'; default?: string }> = {},
): ExampleOptions {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string', default: 'http://127.0.0.1:8080' },
      username: { type: 'string', default: 'demo' },
      password: { type: 'string', default: 'demo-password' },
      token: { type: 'string', default: 'demo-collective-token' },
      form: { type: 'string', default: 'B' },
      ...extra,
    },
  });
  const form = String(values.form).toUpperCase();
  if (form !== 'A' && form !== 'B') throw new Error(`--form must be A or B, not ${values.form}`);
  return {
    baseUrl: String(values['base-url']),
    username: String(values.username),
    password: String(values.password),
    token: String(values.token),
    form,
    values: values as Record<string, string | undefined>,
  };
}
