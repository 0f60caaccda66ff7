/**
 * Commands under `ward modules` also need the disk inventory, and most take one module name,
 * validated before anything touches the database or the filesystem.
 */
import { Args } from '@oclif/core';
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
}
