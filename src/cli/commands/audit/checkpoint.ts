import { writeFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import type { Checkpoint } from '../../../audit/chain.ts';
import { takeCheckpoint } from '../../../audit/verify.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { WardCommand } from '../../base.ts';

export default class AuditCheckpoint extends WardCommand {
  static override description =
    "Print the audit chain's latest row id and hash as JSON, to keep outside the database: `ward audit verify --checkpoint FILE` then detects a rewrite of the whole chain";
  static override examples = [
    '<%= config.bin %> audit checkpoint',
    '<%= config.bin %> audit checkpoint --output /secure/ward-audit-checkpoint.json',
  ];
  static override flags = {
    output: Flags.string({ description: 'write the checkpoint to this file as well as printing it' }),
  };

  async run(): Promise<Checkpoint> {
    const { flags } = await this.parse(AuditCheckpoint);
    const checkpoint = await takeCheckpoint(await this.db());
    if (checkpoint === null)
      throw new WardError(
        'audit_empty',
        'the audit trail is empty: there is no row to checkpoint',
        'take a checkpoint once Ward has recorded something (any sign-in does)',
      );
    const text = `${JSON.stringify(checkpoint)}\n`;
    if (flags.output !== undefined) await writeFile(flags.output, text, { mode: 0o600 });
    process.stdout.write(text);
    return checkpoint;
  }
}
