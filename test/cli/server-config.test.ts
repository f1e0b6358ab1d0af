import { describe, expect, it } from 'vitest';
import {
  defaultSettings,
  SETTINGS,
  type SettingName,
  type SettingValues,
} from '../../src/config/settings.js';
import { DEFAULTS, serverConfig } from '../../src/config.js';

const NAMES = Object.keys(SETTINGS) as SettingName[];
const named = (use: string) => NAMES.filter((name) => SETTINGS[name].use === use);

/**
 * Every setting with a value of its own, so that where each one lands can be told apart: a number the
 * defaults do not hold for the numbers, and an object of its own for the rest (the server settings are
 * passed on, never read).
 */
function distinctValues(): SettingValues {
  const values: Record<string, unknown> = {};
  NAMES.forEach((name, index) => {
    values[name] = typeof SETTINGS[name].default === 'number' ? 900_000 + index : { setting: name };
  });
  values.loginFailures = [1, 2, 3];
  return values as SettingValues; // one value per table entry; only its identity is looked at
}

/** ServerConfig is made from the table: its `server` and `http` settings are not listed again anywhere. */
describe('the server configuration', () => {
  it('takes every server setting of the table as it is, under its own name', () => {
    const values = distinctValues();
    const config = serverConfig(values) as unknown as Record<string, unknown>;
    for (const name of named('server')) expect(config[name], name).toBe(values[name]);
  });

  it('takes every http setting as it is among its connection limits', () => {
    const values = distinctValues();
    const http = serverConfig(values).http as unknown as Record<string, unknown>;
    for (const name of named('http')) {
      // The shorter of the two timeouts wins (Node refuses a longer headers timeout).
      if (name !== 'headersTimeoutMs') expect(http[name], name).toBe(values[name]);
    }
    expect(http.headersTimeoutMs).toBe(Math.min(values.headersTimeoutMs, values.requestTimeoutMs));
  });

  it('holds nothing but the server and http settings and the fields made of the others', () => {
    const made = ['snapshotBudgetBytes', 'loginGuard', 'redisUrl', 'corsOrigins', 'opsPort', 'opsHost'];
    expect(Object.keys(DEFAULTS).sort()).toEqual([...named('server'), 'http', ...made].sort());
    expect(Object.keys(DEFAULTS.http).sort()).toEqual([...named('http'), 'timeoutCheckIntervalMs'].sort());
    // The process's own settings (workers, logging) stay with `serve`.
    for (const name of named('process')) expect(DEFAULTS, name).not.toHaveProperty(name);
  });

  it('makes a field of every input setting, and none of the process settings', () => {
    const changed = (name: SettingName) =>
      serverConfig({ ...defaultSettings(), [name]: distinctValues()[name] });
    for (const name of named('input')) expect(changed(name), name).not.toEqual(DEFAULTS);
    for (const name of named('process')) expect(changed(name), name).toEqual(DEFAULTS);
  });
});
