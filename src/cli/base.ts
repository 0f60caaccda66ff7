/**
 * What every command shares: configuration (read once the command line is parsed, so that a
 * malformed settings file is refused like any bad setting; its warnings go to stderr), a database
 * opened on first use and closed at the end, and the rendering of WardErrors (message and hint, or
 * a JSON error object with --json) with the error's exit code and no stack trace.
 */
import { Command } from '@oclif/core';
import type { Knex } from 'knex';
import { loadConfig, type Config } from '../config.ts';
import { isWardError, WardError } from '../errors/ward-error.ts';
import os from 'node:os';
import type { By } from '../audit/record.ts';
import { cliActor } from '../db/acting.ts';
import { openDatabase } from '../db/connection.ts';
import { reportFailure, reportWarnings } from '../server/failure.ts';

/**
 * A failure to parse the command line as bad usage, in oclif's words without its help pointer. A
 * WardError from an argument's or flag's own check keeps its code, hint and exit code.
 */
export function usageError(error: unknown, command: string): WardError {
  const text = error instanceof Error ? error.message : String(error);
  const message = text
    .replace(/\s*See more help with --help\s*$/, '')
    .replace(/^Parsing (--[\w-]+)\s*\n\t/, 'bad value for $1: ')
    .trim();
  if (isWardError(error)) {
    // oclif has already prefixed the message of an error from a flag's parse function.
    error.message = message;
    return error;
  }
  return new WardError(
    'bad_usage',
    message,
    `run \`ward ${command.replaceAll(':', ' ')} --help\` for its arguments and flags`,
    { exitCode: 2, cause: error },
  );
}

export abstract class WardCommand extends Command {
  private loadedSettings: Config | null = null;
  private database: Knex | null = null;

  protected get settings(): Config {
    if (this.loadedSettings === null) throw new Error('settings are loaded by init(), before run()');
    return this.loadedSettings;
  }

  /** Parsing here, not in each run(), means no command can skip flag validation by forgetting it. */
  override async init(): Promise<void> {
    await super.init();
    try {
      await this.parse(this.ctor);
    } catch (error) {
      // Rendered like every other refusal (and exit 2): oclif's own rendering of a parse error
      // puts its whole configuration in the --json output.
      throw usageError(error, this.id ?? '');
    }
    this.loadedSettings = loadConfig();
    // Not logToStderr, which --json silences: stdout stays JSON, and a misread file still shows.
    reportWarnings(this.loadedSettings.warnings, (text) => process.stderr.write(`${text}\n`));
  }

  /** Whom this command's writes are recorded as: `cli:<operating-system user>`. */
  protected get by(): By {
    return { actor: cliActor(os.userInfo().username), client: null };
  }

  protected async db(): Promise<Knex> {
    if (this.database === null) this.database = await openDatabase(this.settings);
    return this.database;
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    await this.database?.destroy();
    this.database = null;
    return super.finally(error);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    const exitCode = reportFailure(error, this.jsonEnabled(), {
      json: (value) => this.logJson(value),
      stderr: (text) => this.logToStderr(text),
    });
    if (exitCode === null) return super.catch(error);
    this.exit(exitCode);
  }
}
