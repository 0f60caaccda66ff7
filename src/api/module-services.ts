/**
 * Starts the services of every installed module that ships a services file (`ModuleServices` in
 * src/sdk/index.ts) and stops them again. A services file that fails to load, or a service whose
 * start throws, is logged and left out: one module's background work must not keep the clinic
 * from being served. Stopping goes in reverse order, each stop awaited, none skipped for another's
 * failure.
 */
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import type { InstalledModule } from '../auth/installed.ts';
import type { DiskModule } from '../planner/types.ts';
import type { Logger } from '../logger.ts';
import type { ServiceDefinition, StartedService, WardSdk } from '../sdk/index.ts';

export interface ServiceDeps {
  knex: Knex;
  logger: Logger;
  storageDir: string;
  sdkFor(module: DiskModule): Promise<WardSdk>;
}

export interface RunningServices {
  /** Names of the services that started, `<module>/<service>`. */
  readonly started: readonly string[];
  stop(): Promise<void>;
}

/** Why a services file's default export breaks the contract, or null. Pure. */
export function servicesProblem(exported: unknown): string | null {
  if (!Array.isArray(exported)) return 'the default export must be an array of services';
  for (const [index, value] of exported.entries()) {
    const service = value as Partial<ServiceDefinition> | null;
    if (service === null || typeof service !== 'object') return `service ${index} is not an object`;
    if (typeof service.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(service.name))
      return `service ${index}: name must be lowercase letters, digits and hyphens, such as sweeper`;
    if (typeof service.start !== 'function') return `service ${service.name}: start must be a function`;
  }
  return null;
}

async function load(file: string): Promise<readonly ServiceDefinition[]> {
  const imported = (await import(pathToFileURL(file).href)) as { default?: unknown };
  const problem = servicesProblem(imported.default);
  if (problem !== null) throw new Error(`${file}: ${problem} (see src/sdk/index.ts)`);
  return imported.default as readonly ServiceDefinition[];
}

export async function startModuleServices(
  modules: readonly InstalledModule[],
  deps: ServiceDeps,
): Promise<RunningServices> {
  const running: Array<{ id: string; started: StartedService; logger: Logger }> = [];
  for (const { module } of modules) {
    if (module.services === null) continue;
    let services: readonly ServiceDefinition[];
    try {
      services = await load(module.services);
    } catch (error) {
      deps.logger.error({ err: error, module: module.name }, 'module services not started');
      continue;
    }
    for (const service of services) {
      const logger = deps.logger.child({ module: module.name, service: service.name });
      try {
        const started = await service.start({
          knex: deps.knex,
          logger,
          storageDir: deps.storageDir,
          module: module.name,
          sdk: await deps.sdkFor(module),
        });
        if (typeof started?.stop !== 'function')
          throw new Error(`${module.services}: service ${service.name}: start must return { stop() }`);
        running.push({ id: `${module.name}/${service.name}`, started, logger });
      } catch (error) {
        logger.error({ err: error }, 'module service did not start');
      }
    }
  }
  return {
    started: running.map(({ id }) => id),
    async stop() {
      for (const { started, logger } of running.reverse()) {
        try {
          await started.stop();
        } catch (error) {
          logger.error({ err: error }, 'module service did not stop cleanly');
        }
      }
    },
  };
}
