import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Setting } from '../config/setting.js';
import { SETTINGS, type SettingName, type SettingValues } from '../config/settings.js';

/** The commander option of one setting of the table: its flag, variable, parser, choices and default. */
export function settingOption<T>(setting: Setting<T>): Option {
  const option = new Option(setting.flag, setting.doc).env(setting.env);
  if (setting.choices) option.choices(setting.choices);
  else if (setting.parse && !option.isBoolean()) option.argParser(setting.parse);
  // A switch (--demo) is off unless given: commander shows no default for it.
  if (setting.default !== undefined && !option.isBoolean()) option.default(setting.default, setting.shown);
  return option;
}

/** One entry of the table, whatever its value type. */
const entry = (name: SettingName): Setting<unknown> => SETTINGS[name];
const NAMES = Object.keys(SETTINGS) as SettingName[];

/** Adds the options of every setting of a scope (`global`: the program; `serve`: the server). */
export function addSettingOptions(command: Command, scope: Setting<unknown>['scope']): Command {
  for (const name of NAMES) {
    if (entry(name).scope === scope) command.addOption(settingOption(entry(name)));
  }
  return command;
}

/** The value of every setting as the command line and the environment give it (the program's options included). */
export function readSettings(command: Command): SettingValues {
  const values: Record<string, unknown> = {};
  for (const name of NAMES) values[name] = readSetting(command, name);
  return values as SettingValues; // one value per table entry, parsed by that entry
}

/**
 * The value of one setting as the command line and the environment give it. Commander hands a switch's
 * variable over as "set" whatever it says; here DEMO=false is off, and a value that is neither true
 * nor false is a usage error like any other.
 */
export function readSetting<Name extends SettingName>(command: Command, name: Name): SettingValues[Name] {
  const setting = entry(name);
  const option = findOption(command, setting.flag);
  const key = option.attributeName();
  let value: unknown = command.optsWithGlobals()[key] ?? setting.default;
  const text = process.env[setting.env];
  if (option.isBoolean() && sourceOf(command, key) === 'env' && text !== undefined && setting.parse) {
    try {
      value = setting.parse(text);
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      command.error(
        `error: option '${setting.flag}' value '${text}' from env '${setting.env}' is invalid. ${error.message}`,
        { code: error.code, exitCode: error.exitCode },
      );
    }
  }
  if (option.isBoolean()) value = Boolean(value);
  return value as SettingValues[Name]; // parsed by this entry's parser: commander's argParser, or above
}

function findOption(command: Command, flag: string): Option {
  for (let current: Command | null = command; current; current = current.parent) {
    const option = current.options.find((candidate) => candidate.flags === flag);
    if (option) return option;
  }
  throw new Error(`no option ${flag} on ${command.name()} or its parents`);
}

function sourceOf(command: Command, key: string): string | undefined {
  for (let current: Command | null = command; current; current = current.parent) {
    const source = current.getOptionValueSource(key);
    if (source !== undefined) return source;
  }
  return undefined;
}
