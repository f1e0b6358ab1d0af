/**
 * `npm run settings`: writes the configuration tables of docs/configuration.md from the settings table
 * (src/config/settings.ts), between the markers below.
 * `npm run settings:check`: fails when the committed page differs from a fresh rendering.
 */
import { fileURLToPath } from 'node:url';
import type { Setting } from '../src/config/setting.js';
import { SETTINGS } from '../src/config/settings.js';
import { writeOrCheck } from './generated-section.js';

const PAGE = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
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

/** The generated part of the page, markers included. */
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

writeOrCheck({
  file: PAGE,
  name: 'docs/configuration.md',
  begin: BEGIN,
  end: END,
  render: settingsSection,
  source: 'src/config/settings.ts',
  command: 'npm run settings',
});
