import { Command } from 'commander';
import { commonOptions, jsonOption } from '../options.js';
import { addSettingOptions, readSettings } from '../settings-options.js';

/** `serve`: its options are the settings of the table (src/config/settings.ts), nothing else but --json. */
export function serveCommand(): Command {
  return addSettingOptions(
    new Command('serve').description('run the HTTP server (both request forms on one port)'),
    'serve',
  )
    .addOption(jsonOption())
    .action(async (_options, self: Command) => {
      const settings = readSettings(self);
      const { serve } = await import('../actions/serve.js');
      await serve(settings, commonOptions(self));
    });
}
