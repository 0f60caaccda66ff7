/**
 * Preloaded (`--import`) into the import benchmark's worker for its runs without the audit trail:
 * `recordAudit`, through which every module's `sdk.audit` appends, records nothing there. It lives
 * in the benchmark, so that Ward itself has no switch that turns its audit trail off.
 */
import { registerHooks } from 'node:module';

const RECORD = '/src/audit/record.ts';
const ORIGINAL = 'export function recordAudit(';

registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (!url.endsWith(RECORD) || loaded.source === undefined) return loaded;
    const source = loaded.source.toString();
    if (!source.includes(ORIGINAL)) throw new Error(`bench/audit-off.ts: ${RECORD} has no ${ORIGINAL}`);
    return {
      ...loaded,
      source: source.replace(
        ORIGINAL,
        'export function recordAudit(..._: unknown[]): Promise<void> {\n  return Promise.resolve();\n}\nexport function recordedAudit(',
      ),
    };
  },
});
