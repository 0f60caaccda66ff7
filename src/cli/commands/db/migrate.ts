import { WardCommand } from '../../base.ts';
import { LOCK_KEYS, withAdvisoryLock } from '../../../db/lock.ts';
import { databaseUrl } from '../../../db/connection.ts';
import { migrateCore } from '../../../db/migrate.ts';

export default class DbMigrate extends WardCommand {
  static override description = 'Bring the core schema (the `core` migration branch) to its head revision';
  static override examples = ['<%= config.bin %> db migrate'];
  static override enableJsonFlag = true;

  async run(): Promise<{ applied: string[] }> {
    const knex = await this.db();
    const applied = await withAdvisoryLock(await databaseUrl(this.settings), LOCK_KEYS.reconcile, () =>
      migrateCore(knex),
    );
    this.log(
      applied.length === 0 ? 'Core schema is at head; nothing to apply.' : `Applied ${applied.join(', ')}.`,
    );
    return { applied };
  }
}
