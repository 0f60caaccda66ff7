/**
 * What `ward config` shows, as plain data (its --json output): each setting of the table with the
 * value Ward uses, given or default, and where it came from; secrets masked unless asked.
 */
import type { Config } from '../config.ts';
import type { SettingSource } from './resolve.ts';
import { maskSecret, SETTINGS } from './settings.ts';

export interface ConfigEntry {
  name: string;
  /** null: not given and without a default (DATABASE_URL unset means the embedded server). */
  value: string | null;
  source: SettingSource['kind'];
  /** For a value from a settings file: which file, and which line. */
  file?: string;
  line?: number;
}

export interface ConfigReport {
  settings: ConfigEntry[];
  files: Array<{ path: string; found: boolean }>;
  warnings: string[];
}

export function configReport(config: Config, options: { showSecrets: boolean }): ConfigReport {
  const paths = { root: config.root, storageDir: config.storageDir };
  return {
    settings: SETTINGS.map((setting) => {
      const resolved = config.resolved.get(setting.name);
      const source = resolved?.source ?? { kind: 'default' };
      const value = resolved?.value ?? setting.fallback?.(paths) ?? null;
      return {
        name: setting.name,
        value: value === null || options.showSecrets ? value : maskSecret(setting.name, value),
        source: source.kind,
        ...(source.kind === 'file' ? { file: source.file, line: source.line } : {}),
      };
    }),
    files: [...config.files],
    warnings: [...config.warnings],
  };
}

/** `environment`, `<file>:<line>` or `default`, as the text output and doctor's hints say it. */
export function entrySource(entry: ConfigEntry): string {
  return entry.file === undefined ? entry.source : `${entry.file}:${entry.line ?? 0}`;
}
