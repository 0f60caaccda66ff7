/**
 * Commands under `ward modules` also need the disk inventory, and most take one module name,
 * validated before anything touches the database or the filesystem.
 */
import os from 'node:os';
import { Args } from '@oclif/core';
import type { Knex } from 'knex';
import { acting, cliActor, type Acting } from '../db/acting.ts';
import { discover } from '../manifests/discover.ts';
import { assertModuleName } from '../planner/names.ts';
import type { Inventory } from '../planner/types.ts';
import { WardCommand } from './base.ts';

export const moduleNameArg = Args.string({
  name: 'module_name',
  description: 'module identifier (lowercase letters, digits and _)',
  required: true,
  parse: async (input) => assertModuleName(input),
});

export abstract class ModuleCommand extends WardCommand {
  private discovered: Promise<Inventory> | null = null;

  protected inventory(): Promise<Inventory> {
    this.discovered ??= discover(this.settings);
    return this.discovered;
  }

  /** The operator (`cli:<os user>`) as an acting context on `knex`: what the command writes in. */
  protected operatorActing(knex: Knex): Acting {
    return acting(knex, cliActor(os.userInfo().username));
  }
}
