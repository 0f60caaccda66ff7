/**
 * The settings a backend takes from its configuration, parsed and checked in one place: by the
 * backend before it touches the database, and by `ward serve` before it starts one, so that a typo
 * is one clear error instead of a backend failing again and again under back-off.
 */
import { DEFAULT_JSON_LIMIT, parseSize } from '../api/body.ts';
import { parsePort, parseSwitch, type Config } from '../config.ts';

export interface BackendSettings {
  port: number;
  /** Largest JSON body accepted, in bytes. */
  jsonLimit: number;
  trustProxy: boolean;
}

/** Throws a WardError naming the variable and the fix for the first bad setting. */
export function backendSettings(config: Config): BackendSettings {
  return {
    port: parsePort(config.port),
    jsonLimit: config.jsonLimit === null ? DEFAULT_JSON_LIMIT : parseSize(config.jsonLimit),
    trustProxy: parseSwitch('WARD_TRUST_PROXY', config.trustProxy, false),
  };
}
