/**
 * What every command shares: configuration, a database opened on first use and closed at the end,
 * and the rendering of WardErrors (message and hint, or a JSON error object with --json) with the
 * error's exit code and no stack trace.
 */
import { Command } from '@oclif/core';
import type { Knex } from 'knex';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase } from '../db/connection.ts';
import { reportFailure } from './failure.ts';

export abstract class WardCommand extends Command {
  protected readonly settings: Config = loadConfig();
  private database: Knex | null = null;

  /** Parsing here, not in each run(), means no command can skip flag validation by forgetting it. */
  override async init(): Promise<void> {
    await super.init();
    await this.parse(this.ctor);
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
