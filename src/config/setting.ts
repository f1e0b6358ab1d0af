/**
 * The shape of one entry of the settings table (src/config/settings.ts), and the helpers that declare
 * one while keeping its value type and its use for the types made from the table.
 */

/**
 * What becomes of a setting's value. `server`: a field of the server configuration (ServerConfig,
 * src/config.ts) of the same name and value; `http`: the same among its connection limits
 * (ServerConfig.http); `input`: an input of a field `serverConfig` makes (a unit converted, two
 * settings joined, an unset value spelled); `process`: read by `serve` for the process itself
 * (workers, logging), never passed to the server.
 */
export type SettingUse = 'server' | 'http' | 'input' | 'process';

export interface Setting<T> {
  /** The option as commander spells it: `--port <port>`, or `--demo` for a switch. */
  flag: string;
  /** The environment variable; an option given on the command line wins over it. */
  env: string;
  /** One line: the option's help and the README's description. */
  doc: string;
  /** Where the option is: on every command (`global`: the database, the webhook key), or on `serve`. */
  scope: 'global' | 'serve';
  /** Text to value; absent for plain text. Throws commander's InvalidArgumentError. */
  parse?: (text: string) => T;
  /** The only values accepted (commander lists them in its error). */
  choices?: readonly string[];
  /** The value when neither the option nor the variable is given; undefined: unset. */
  default: T;
  /** How the default is written in --help and the README, when not as JSON. */
  shown?: string;
  /** What becomes of its value: see SettingUse. */
  use: SettingUse;
}

/**
 * Declares the settings of one use: each entry keeps its value type (T) and its use as a literal. Most
 * settings are options of `serve`: the table writes the scope of the others only.
 */
const settingsFor =
  <U extends SettingUse>(use: U) =>
  <T>(
    entry: Omit<Setting<T>, 'use' | 'scope'> & Partial<Pick<Setting<T>, 'scope'>>,
  ): Setting<T> & { use: U } => ({
    scope: 'serve',
    ...entry,
    use,
  });

/** A setting the server takes as it is, as a ServerConfig field of the same name. */
export const serverSetting = settingsFor('server');
/** A connection limit the server takes as it is, in ServerConfig.http. */
export const httpLimit = settingsFor('http');
/** A setting `serverConfig` makes a ServerConfig field of (see there). */
export const serverInput = settingsFor('input');
/** A setting of the `serve` process itself, not of the server. */
export const processSetting = settingsFor('process');
