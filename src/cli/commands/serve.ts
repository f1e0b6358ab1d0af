import { Command, Option } from 'commander';
import { pino } from 'pino';
import { DEFAULTS, FORM_B_NAMES, type ServerConfig } from '../../config.js';
import { DEMO } from '../../demo/seed.js';
import type { FormBNames } from '../../forms/form.js';
import { startServer } from '../../http/server.js';
import { commonOptions, jsonOption } from '../context.js';
import { emit, fail } from '../output.js';

function positiveInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0)
      throw new Error(`${name} must be a whole number, not "${value}"`);
    return parsed;
  };
}

function banner(url: string, config: ServerConfig): string {
  const lines = [`Dispensary Menu API listening on ${url} (database ${config.database})`];
  if (config.demo) {
    lines.push(
      '',
      `Demo data is loaded: dispensary "${DEMO.dispensaryName}", credential ${DEMO.username}. Try:`,
      '',
      '  # Form A: credentials in a JSON body',
      `  curl -s ${url}/menu -H 'content-type: application/json' \\`,
      `    -d '{"username":"${DEMO.username}","password":"${DEMO.password}","collective_token":"${DEMO.token}"}'`,
      '',
      '  # Form B: credentials in headers',
      `  curl -s ${url}/menu -H 'store: ${DEMO.token}' -H 'username: ${DEMO.username}' -H 'password: ${DEMO.password}'`,
      '',
      'The demo secrets are public: never use --demo with real dispensaries.',
    );
  }
  return lines.join('\n');
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('run the HTTP server (both request forms on one port)')
    .addOption(new Option('--host <host>', 'address to listen on').env('HOST').default(DEFAULTS.host))
    .addOption(
      new Option('--port <port>', 'port to listen on (0 picks a free one)')
        .env('PORT')
        .default(DEFAULTS.port)
        .argParser(positiveInteger('--port')),
    )
    .option('--demo', 'load the demo dispensary, credential and menu (once) and print curl commands')
    .addOption(
      new Option(
        '--form-b-names <names>',
        'Form B spellings: both, table (brand, variants) or sample (brand_name, prices)',
      )
        .choices(FORM_B_NAMES)
        .env('FORM_B_NAMES')
        .default(DEFAULTS.formBNames),
    )
    .addOption(
      new Option('--body-limit <bytes>', 'largest request body accepted, bytes')
        .env('BODY_LIMIT')
        .default(DEFAULTS.bodyLimit)
        .argParser(positiveInteger('--body-limit')),
    )
    .addOption(
      new Option('--change-poll-ms <ms>', 'how often to look for changes made by other processes')
        .default(DEFAULTS.changePollMs)
        .argParser(positiveInteger('--change-poll-ms')),
    )
    .addOption(new Option('--log-level <level>', 'log level').env('LOG_LEVEL').default('info'))
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const options = commonOptions<{
        host: string;
        port: number;
        demo?: boolean;
        formBNames: FormBNames;
        bodyLimit: number;
        changePollMs: number;
        logLevel: string;
      }>(self);
      const config: ServerConfig = {
        ...DEFAULTS,
        database: options.db,
        host: options.host,
        port: Number(options.port),
        demo: Boolean(options.demo),
        formBNames: options.formBNames,
        bodyLimit: Number(options.bodyLimit),
        changePollMs: Number(options.changePollMs),
      };
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer(config, { logger: pino({ level: options.logLevel }) });
      } catch (error) {
        fail(options, new Error(`The server could not start: ${(error as Error).message}`));
        return;
      }
      emit(
        options,
        { url: server.url, database: config.database, demo: config.demo ? DEMO : null },
        banner(server.url, config),
      );
      const stop = async () => {
        await server.close();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
