/**
 * Modules' public APIs, loaded once per process: the file a manifest's `api` names is imported
 * and its factory called with the module's own SDK view the first time a module that depends on
 * it gets its view. A module's view holds the APIs of its `depends` only (depends are acyclic, the
 * planner sees to it), so `sdk.modules.get` hands out nothing else.
 */
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import type { DiskModule } from '../planner/types.ts';
import type { ModuleApiFactory, SdkJobs, WardSdk } from './index.ts';
import { moduleSdk } from './runtime.ts';

export interface ModuleApisEnv {
  /** The modules this process may run, by name (an inventory's, or the installed ones). */
  modules: ReadonlyMap<string, DiskModule>;
  knex: Knex;
  storageDir: string;
  logger: Logger;
  /** Each module's view of the backend's job queue; without it, views have no jobs. */
  jobsFor?: (module: string) => SdkJobs;
}

export class ModuleApis {
  readonly #env: ModuleApisEnv;
  readonly #apis = new Map<string, Promise<object | null>>();
  readonly #views = new Map<string, Promise<WardSdk>>();

  constructor(env: ModuleApisEnv) {
    this.#env = env;
  }

  /** The SDK view of `module`, its depends' APIs loaded; throws when one of them fails to load. */
  sdkFor(module: DiskModule): Promise<WardSdk> {
    let view = this.#views.get(module.name);
    if (view === undefined) this.#views.set(module.name, (view = this.#view(module)));
    return view;
  }

  async #view(module: DiskModule): Promise<WardSdk> {
    const apis = new Map<string, object>();
    for (const name of module.depends) {
      const api = await this.#api(name);
      if (api !== null) apis.set(name, api);
    }
    return moduleSdk({
      module: module.name,
      knex: this.#env.knex,
      apis,
      depends: module.depends,
      jobs: this.#env.jobsFor?.(module.name),
    });
  }

  #api(name: string): Promise<object | null> {
    let api = this.#apis.get(name);
    if (api === undefined) this.#apis.set(name, (api = this.#load(name)));
    return api;
  }

  async #load(name: string): Promise<object | null> {
    const module = this.#env.modules.get(name);
    if (module?.api == null) return null;
    const imported = (await import(pathToFileURL(module.api).href)) as { default?: unknown };
    if (typeof imported.default !== 'function')
      throw new Error(
        `${module.api} must export default a function returning the API (see src/sdk/index.ts)`,
      );
    const api = (imported.default as ModuleApiFactory<object>)({
      module: name,
      logger: this.#env.logger.child({ module: name }),
      storageDir: this.#env.storageDir,
      sdk: await this.sdkFor(module),
    });
    if (api === null || typeof api !== 'object')
      throw new Error(`${module.api}: its default export must return an object of functions`);
    return Object.freeze(api);
  }
}
