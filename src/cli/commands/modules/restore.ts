import { stat } from 'node:fs/promises';
import path from 'node:path';
import { appendOnConnection } from '../../../audit/record.ts';
import { Flags } from '@oclif/core';
import { WardError } from '../../../errors/ward-error.ts';
import { latestBackup, restoreBackup } from '../../../backup/restore.ts';
import { backupDir } from '../../../backup/backup-format.ts';
import { ModuleCommand, moduleNameArg } from '../../module-command.ts';
import { plural } from '../../render.ts';

interface Restored {
  module: string;
  file: string;
  tables: Array<{ table: string; rows: number }>;
  rows: number;
}

export default class ModulesRestore extends ModuleCommand {
  static override description =
    "Load a module's backup (written when it was uninstalled) back into its tables; reinstall the module first";
  static override examples = [
    '<%= config.bin %> modules restore lab',
    '<%= config.bin %> modules restore lab --file storage/backups/module_lab_20261121T101500Z.sql',
  ];
  static override enableJsonFlag = true;
  static override args = { module_name: moduleNameArg };
  static override flags = {
    file: Flags.string({ description: 'the backup to load (default: the newest backup of the module)' }),
  };

  async run(): Promise<Restored> {
    const { args, flags } = await this.parse(ModulesRestore);
    const name = args.module_name;
    const dir = backupDir(this.settings.storageDir);
    const file = flags.file === undefined ? await latestBackup(dir, name) : path.resolve(flags.file);
    if (file === null)
      throw new WardError(
        'no_backup',
        `no backup of ${name} in ${dir}`,
        'pass --file with the path of the backup to load',
      );
    if (
      !(await stat(file).then(
        (found) => found.isFile(),
        () => false,
      ))
    )
      throw new WardError(
        'no_backup',
        `${file} is not a file`,
        `pass --file with the path of a backup (uninstall writes them to ${dir})`,
      );
    // Progress is for a person watching; scripts and --json get only the result.
    const progress = process.stderr.isTTY
      ? (p: { table: string; rows: number }) => this.logToStderr(`  ${p.table}: ${p.rows} rows so far`)
      : undefined;
    const knex = await this.db();
    // Recorded in the restore's own transaction: a restore that rolls back leaves no row, and one
    // that commits always has its row.
    const result = await restoreBackup(knex, file, progress, name, (connection, restored) =>
      appendOnConnection(
        connection,
        [
          {
            actor: this.by.actor,
            action: 'module.restore',
            kind: 'module',
            recordId: name,
            detail: { file: path.basename(file), rows: restored.rows, tables: restored.tables },
          },
        ],
        this.by.client,
      ),
    );
    this.log(
      [
        `Restored ${result.rows} row(s) of ${name} from ${file}:`,
        ...result.tables.map((table) => `  ${table.table}: ${plural(table.rows, 'row')}`),
      ].join('\n'),
    );
    return { module: name, file, ...result };
  }
}
