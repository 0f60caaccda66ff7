/**
 * Which value each setting takes, and from where: the process environment first, then the settings
 * files in the order given (`<storage>/ward.env`, then `<root>/.env`), else the default. Pure: the
 * loader (src/config.ts) reads the files. An empty value counts as unset wherever it is given, so
 * the next source decides. Only names in the settings table are taken from a file; any other name
 * is ignored with a warning, so a file cannot set NODE_OPTIONS or PATH for every process.
 */
import path from 'node:path';
import type { EnvFileEntry } from './env-file.ts';
import { closestSetting, findSetting, SETTINGS, type Setting } from './settings.ts';

export interface SettingsFile {
  path: string;
  /** null: there is no such file. */
  entries: readonly EnvFileEntry[] | null;
  /** The file on the storage volume, which cannot choose the storage folder. */
  inStorage: boolean;
}

export type SettingSource =
  { kind: 'environment' } | { kind: 'file'; file: string; line: number } | { kind: 'default' };

export interface ResolvedSetting {
  name: string;
  /** As Ward uses it (paths made absolute); null when not given, so the default applies. */
  value: string | null;
  source: SettingSource;
}

export interface Resolution {
  settings: ReadonlyMap<string, ResolvedSetting>;
  warnings: string[];
}

/** `cwd` resolves relative paths given in the environment; a file's own folder resolves its own. */
export function resolveSettings(
  env: NodeJS.ProcessEnv,
  cwd: string,
  files: readonly SettingsFile[],
): Resolution {
  const warnings: string[] = [];
  const byFile = files.map((file) => ({ file, values: lastByKey(file, warnings) }));
  const settings = new Map(SETTINGS.map((setting) => [setting.name, resolveOne(setting, env, cwd, byFile)]));
  return { settings, warnings };
}

function resolveOne(
  setting: Setting,
  env: NodeJS.ProcessEnv,
  cwd: string,
  byFile: ReadonlyArray<{ file: SettingsFile; values: ReadonlyMap<string, EnvFileEntry> }>,
): ResolvedSetting {
  const { name } = setting;
  const given = env[name];
  if (given !== undefined && given !== '')
    return { name, value: normalise(setting, given, cwd), source: { kind: 'environment' } };
  for (const { file, values } of byFile) {
    const entry = values.get(name);
    if (entry === undefined || entry.value === '') continue;
    return {
      name,
      value: normalise(setting, entry.value, path.dirname(file.path)),
      source: { kind: 'file', file: file.path, line: entry.line },
    };
  }
  return { name, value: null, source: { kind: 'default' } };
}

/** The last assignment of each known key; warnings for unknown keys, repeats and misplaced ones. */
function lastByKey(file: SettingsFile, warnings: string[]): Map<string, EnvFileEntry> {
  const values = new Map<string, EnvFileEntry>();
  for (const entry of file.entries ?? []) {
    const where = `${file.path}:${entry.line}`;
    const setting = findSetting(entry.key);
    if (setting === undefined) {
      const closest = closestSetting(entry.key);
      warnings.push(
        `${where}: ${entry.key} is not a Ward setting, ignored` +
          (closest === null
            ? ' (a settings file sets only the settings Ward lists in `ward config`)'
            : `; did you mean ${closest}?`),
      );
      continue;
    }
    if (setting.notInStorageFile && file.inStorage) {
      warnings.push(
        `${where}: ${entry.key} is ignored here: this file is found through it; set it in the environment or in the .env beside Ward's package.json`,
      );
      continue;
    }
    const earlier = values.get(entry.key);
    if (earlier !== undefined)
      warnings.push(`${where}: ${entry.key} is set again (first on line ${earlier.line}); this line counts`);
    values.set(entry.key, entry);
  }
  return values;
}

function normalise(setting: Setting, value: string, base: string): string | null {
  if (setting.kind === 'text') return value;
  if (setting.kind === 'path') return path.resolve(base, value);
  const entries = value.split(':').filter((entry) => entry !== '');
  return entries.length === 0 ? null : entries.map((entry) => path.resolve(base, entry)).join(':');
}
