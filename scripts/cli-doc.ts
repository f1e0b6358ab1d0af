/**
 * `npm run cli-doc`: writes the command line reference of docs/cli.md, between the markers below, from
 * the command definitions themselves: it builds the program as `npx menu-api` does (src/cli/main.ts)
 * and reads each command's arguments and options through commander's own help, so the page says what
 * `--help` says.
 * `npm run cli-doc:check`: fails when the committed page differs from a fresh rendering.
 */
import { fileURLToPath } from 'node:url';
import type { Command, Help } from 'commander';
import { buildProgram } from '../src/cli/main.js';
import { writeOrCheck } from './generated-section.js';

const PAGE = fileURLToPath(new URL('../docs/cli.md', import.meta.url));
const BEGIN = '<!-- cli:begin: generated from src/cli/commands by `npm run cli-doc` -->';
const END = '<!-- cli:end -->';

const code = (text: string) => `\`${text}\``;
/** Plain text in a table cell: no column breaks, and no `<id>` taken for an HTML tag. */
const cell = (text: string) =>
  text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\n', ' ');

/** A command's full name below the program: `dispensary create`. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function optionsTable(help: Help, command: Command): string[] {
  const options = help.visibleOptions(command).filter((option) => option.long !== '--help');
  if (options.length === 0) return [];
  return [
    '| Option | |',
    '|---|---|',
    ...options.map(
      (option) =>
        `| ${code(option.flags)}${option.mandatory ? ' (required)' : ''} | ${cell(help.optionDescription(option))} |`,
    ),
    '',
  ];
}

function argumentsTable(help: Help, command: Command): string[] {
  const args = help.visibleArguments(command);
  if (args.length === 0) return [];
  return [
    '| Argument | |',
    '|---|---|',
    ...args.map(
      (argument) => `| ${code(help.argumentTerm(argument))} | ${cell(help.argumentDescription(argument))} |`,
    ),
    '',
  ];
}

/** One section per command, its subcommands after it, in the order the program declares them. */
function section(help: Help, command: Command, depth: number): string[] {
  const subcommands = help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
  const lines = [`${'#'.repeat(depth)} ${pathOf(command)}`, '', cell(help.commandDescription(command)), ''];
  if (subcommands.length === 0) {
    lines.push(`Usage: ${code(`npx ${help.commandUsage(command)}`)}`, '');
    lines.push(...argumentsTable(help, command), ...optionsTable(help, command));
  }
  for (const sub of subcommands) lines.push(...section(help, sub, depth + 1));
  return lines;
}

/** The generated part of the page, markers included. */
export function cliReference(): string {
  const program = buildProgram();
  const help = program.createHelp();
  const lines = [
    BEGIN,
    '## Every command',
    '',
    `Usage: ${code(`npx ${help.commandUsage(program)}`)}`,
    '',
    ...optionsTable(help, program),
  ];
  for (const command of help.visibleCommands(program).filter((sub) => sub.name() !== 'help'))
    lines.push(...section(help, command, 2));
  while (lines.at(-1) === '') lines.pop();
  lines.push(END);
  return lines.join('\n');
}

writeOrCheck({
  file: PAGE,
  name: 'docs/cli.md',
  begin: BEGIN,
  end: END,
  render: cliReference,
  source: 'the command definitions (src/cli/commands)',
  command: 'npm run cli-doc',
});
