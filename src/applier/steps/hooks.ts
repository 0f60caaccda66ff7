/**
 * Loads the lifecycle hooks of a module's `hooks.ts` or `hooks.js` (the contract, `Hooks` and
 * `HookContext`, is in src/sdk/index.ts). A hook runs inside its step's transaction (`ctx.knex`),
 * so a failing hook leaves no partial writes, and its step is recorded done in that same
 * transaction. A hook with effects outside the database must be safe to run again: after a crash
 * its step runs again.
 */
import { pathToFileURL } from 'node:url';
import { WardError } from '../../errors/ward-error.ts';
import type { DiskModule } from '../../planner/types.ts';
import type { Hooks } from '../../sdk/index.ts';

const HOOK_NAMES = ['post_install', 'post_upgrade', 'uninstall'] as const;

export async function loadHooks(module: Pick<DiskModule, 'name' | 'hooks'>): Promise<Hooks> {
  if (module.hooks === null) return {};
  const exported = (await import(pathToFileURL(module.hooks).href)) as Record<string, unknown>;
  const hooks: Hooks = {};
  for (const name of HOOK_NAMES) {
    const hook = exported[name];
    if (hook === undefined) continue;
    if (typeof hook !== 'function')
      throw new WardError(
        'invalid_hook',
        `${module.hooks} exports ${name} as a ${typeof hook}, not a function`,
        `export ${name} as an (async) function, or remove it`,
      );
    Object.assign(hooks, { [name]: hook });
  }
  return hooks;
}
