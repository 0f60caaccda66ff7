/**
 * Loads a module's operator commands from its `commands.ts` or `commands.js` (the contract,
 * `ModuleCommands` and `CommandContext`, is in src/sdk/index.ts) and checks their shape, so a
 * mistake in a module is an error naming the file rather than a crash.
 */
import { pathToFileURL } from 'node:url';
import { WardError } from '../errors/ward-error.ts';
import type { DiskModule } from '../planner/types.ts';
import type { CommandDefinition } from '../sdk/index.ts';

const COMMAND_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** Pure: the problem with a commands file's default export, or null. */
export function commandsProblem(exported: unknown): string | null {
  if (!Array.isArray(exported)) return 'does not default-export an array of commands';
  const seen = new Set<string>();
  for (const [index, command] of exported.entries()) {
    const { name, summary, run } = (command ?? {}) as Partial<CommandDefinition>;
    if (typeof name !== 'string' || !COMMAND_NAME.test(name))
      return `command ${index} has no valid name (lowercase letters, digits and -, starting with a letter)`;
    if (seen.has(name)) return `names the command "${name}" twice`;
    seen.add(name);
    if (typeof summary !== 'string' || summary.trim() === '') return `command "${name}" has no summary`;
    if (typeof run !== 'function') return `command "${name}" has no run function`;
  }
  return null;
}

export async function loadModuleCommands(
  module: Pick<DiskModule, 'name' | 'commands'>,
): Promise<readonly CommandDefinition[]> {
  if (module.commands === null) return [];
  const exported = ((await import(pathToFileURL(module.commands).href)) as { default?: unknown }).default;
  const problem = commandsProblem(exported);
  if (problem !== null)
    throw new WardError(
      'invalid_commands',
      `${module.commands} ${problem}`,
      `fix the module's commands file (its contract is ModuleCommands in Ward's SDK), or ask its author`,
    );
  return exported as readonly CommandDefinition[];
}
