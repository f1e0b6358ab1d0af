/**
 * `npm run settings`: writes the README's configuration tables from the settings table
 * (src/config/settings.ts), between the markers below.
 * `npm run settings:check`: fails when the committed README differs from a fresh rendering.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Setting } from '../src/config/setting.js';
import { SETTINGS } from '../src/config/settings.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const BEGIN = '<!-- settings:begin: generated from src/config/settings.ts by `npm run settings` -->';
const END = '<!-- settings:end -->';

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replaceAll('|', '\\|');

function shownDefault(setting: Setting<unknown>): string {
  if (setting.shown !== undefined) return code(setting.shown);
  if (setting.default === undefined) return 'none';
  return code(String(setting.default));
}

function table(scope: Setting<unknown>['scope']): string {
  const rows = Object.values(SETTINGS as Record<string, Setting<unknown>>)
    .filter((setting) => setting.scope === scope)
    .map((setting) =>
      [code(setting.flag), code(setting.env), shownDefault(setting), cell(setting.doc)].join(' | '),
    );
  return [
    '| Option | Environment | Default | |',
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** The generated part of the README, markers included. */
export function settingsSection(): string {
  return [
    BEGIN,
    'Every command:',
    '',
    table('global'),
    '',
    '`npx menu-api serve`:',
    '',
    table('serve'),
    END,
  ].join('\n');
}

function main(): void {
  const readme = readFileSync(README, 'utf8');
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) {
    process.stderr.write(`README.md has no ${BEGIN} ... ${END} markers.\n`);
    process.exit(1);
  }
  const fresh = readme.slice(0, begin) + settingsSection() + readme.slice(end + END.length);
  if (process.argv.includes('--check')) {
    if (fresh !== readme) {
      process.stderr.write(
        "README.md's configuration tables are not what src/config/settings.ts generates. Run `npm run settings` and commit the result.\n",
      );
      process.exit(1);
    }
    return;
  }
  writeFileSync(README, fresh);
}

main();
