/**
 * What every command shares: configuration, a database opened on first use and closed at the end,
 * and the rendering of WardErrors (message and hint, or a JSON error object with --json) with the
 * error's exit code and no stack trace.
 */
import { Command } from '@oclif/core';
import type { Knex } from 'knex';
import { loadConfig, type Config } from '../config.ts';
import { isWardError } from '../controller/errors.ts';
import { databaseError } from '../db/connection.ts';

export abstract class WardCommand extends Command {
  protected readonly settings: Config = loadConfig();
  private database: Knex | null = null;

  /** Parsing here, not in each run(), means no command can skip flag validation by forgetting it. */
  override async init(): Promise<void> {
    await super.init();
    await this.parse(this.ctor);
  }

  protected async db(): Promise<Knex> {
    if (this.database === null) {
      const { openDatabase } = await import('../db/connection.ts');
      this.database = await openDatabase(this.settings);
    }
    return this.database;
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    await this.database?.destroy();
    this.database = null;
    return super.finally(error);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    const wardError = databaseError(error);
    if (!isWardError(wardError)) return super.catch(error);
    if (this.jsonEnabled()) this.logJson({ error: wardError.toJSON() });
    else this.logToStderr(`error: ${wardError.message}\nhint: ${wardError.hint}`);
    this.exit(wardError.exitCode);
  }
}
