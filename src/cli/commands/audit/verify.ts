import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import type { Checkpoint } from '../../../audit/chain.ts';
import { verifyChain, type Verdict } from '../../../audit/verify.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { WardCommand } from '../../base.ts';

const HEX64 = /^[0-9a-f]{64}$/;

async function readCheckpoint(file: string): Promise<Checkpoint> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new WardError(
      'bad_checkpoint',
      `cannot read the checkpoint ${file}: ${(error as Error).message}`,
      'give the file `ward audit checkpoint --output FILE` wrote',
      { exitCode: 2, cause: error },
    );
  }
  const value = parsed as Partial<Checkpoint> | null;
  if (
    value === null ||
    typeof value !== 'object' ||
    typeof value.id !== 'string' ||
    !/^[1-9]\d*$/.test(value.id) ||
    typeof value.hash !== 'string' ||
    !HEX64.test(value.hash)
  )
    throw new WardError(
      'bad_checkpoint',
      `${file} is not an audit checkpoint: it needs "id" (a row id as text) and "hash" (64 hex digits)`,
      'give the file `ward audit checkpoint --output FILE` wrote',
      { exitCode: 2 },
    );
  return { id: value.id, hash: value.hash, at: typeof value.at === 'string' ? value.at : '' };
}

export default class AuditVerify extends WardCommand {
  static override description =
    "Check the audit trail's hash chain: exit 0 when intact, 1 naming the first broken row after any change or removal";
  static override examples = [
    '<%= config.bin %> audit verify',
    '<%= config.bin %> audit verify --checkpoint /secure/ward-audit-checkpoint.json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    checkpoint: Flags.string({
      description:
        'a file `ward audit checkpoint` wrote: its row must still hold its hash, so a rewrite of the whole chain fails too',
    }),
  };

  async run(): Promise<Verdict> {
    const { flags } = await this.parse(AuditVerify);
    const checkpoint = flags.checkpoint === undefined ? null : await readCheckpoint(flags.checkpoint);
    const verdict = await verifyChain(await this.db(), checkpoint);
    const from =
      verdict.anchor === null
        ? ''
        : ` Rows through ${verdict.anchor.throughId} were purged by retention; the oldest row kept links to the hash the purge at row ${verdict.anchor.purgeId} recorded (only a checkpoint taken before the purge vouches for the rows it removed).`;
    if (!verdict.intact)
      throw new WardError(
        'audit_chain_broken',
        `The audit trail is broken${verdict.brokenAt === null ? '' : ` at row ${verdict.brokenAt}`}: ${verdict.reason}.${from}`,
        'restore the database from a backup taken before the change, and find out who could write to the table (its owner role, a superuser)',
      );
    const span =
      verdict.last === null ? 'it is empty' : `${verdict.rows} rows, ${verdict.first} to ${verdict.last.id}`;
    this.log(
      `The audit trail is intact: ${span}${checkpoint === null ? '' : `, and row ${checkpoint.id} matches the checkpoint`}.${from}`,
    );
    return verdict;
  }
}
