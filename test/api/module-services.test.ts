/**
 * Module services: started in order with the app, each with its module's context, stopped in
 * reverse when the app closes; one that fails to load or start is logged and left out, and the
 * others run all the same. The tests that record calls share one global, so they run in turn.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { servicesProblem, startModuleServices } from '../../src/api/module-services.ts';
import type { DiskModule } from '../../src/planner/types.ts';
import { sdk } from '../../src/sdk/runtime.ts';
import { scratchDir } from '../helpers/cli.ts';

/** A module whose services.js records its calls on `globalThis.serviceCalls`. */
async function moduleWith(name: string, source: string) {
  const dir = await scratchDir('ward-services-');
  const services = path.join(dir, 'services.js');
  await writeFile(services, source);
  return { module: { name, services } as unknown as DiskModule, version: '1.0.0' };
}

const recording = (name: string) => `
  const calls = (globalThis.serviceCalls ??= []);
  export default [
    { name: 'first', start: (ctx) => { calls.push('start ${name}/first as ' + ctx.module); return { stop: () => { calls.push('stop ${name}/first'); } }; } },
    { name: 'second', start: async () => { calls.push('start ${name}/second'); return { stop: async () => { calls.push('stop ${name}/second'); } }; } },
  ];`;

function logger() {
  const lines: Array<{ msg: string; module?: string; service?: string }> = [];
  const log = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

test.serial('services start in order with their module context and stop in reverse', async (t) => {
  const calls: string[] = ((globalThis as { serviceCalls?: string[] }).serviceCalls = []);
  const { log } = logger();
  const modules = [
    await moduleWith('alpha', recording('alpha')),
    await moduleWith('beta', recording('beta')),
  ];
  const running = await startModuleServices(modules, {
    knex: {} as Knex,
    logger: log,
    storageDir: '/nowhere',
    sdkFor: async () => sdk,
  });
  t.deepEqual(running.started, ['alpha/first', 'alpha/second', 'beta/first', 'beta/second']);
  await running.stop();
  t.deepEqual(calls, [
    'start alpha/first as alpha',
    'start alpha/second',
    'start beta/first as beta',
    'start beta/second',
    'stop beta/second',
    'stop beta/first',
    'stop alpha/second',
    'stop alpha/first',
  ]);
});

test.serial(
  'a service whose start throws, or a services file that breaks the contract, is logged and left out',
  async (t) => {
    (globalThis as { serviceCalls?: string[] }).serviceCalls = [];
    const { log, lines } = logger();
    const modules = [
      await moduleWith(
        'gamma',
        `export default [{ name: 'boom', start: () => { throw new Error('no disk'); } }, { name: 'fine', start: () => ({ stop() {} }) }];`,
      ),
      await moduleWith('delta', `export default { start() {} };`),
      await moduleWith('alpha', recording('alpha')),
    ];
    const running = await startModuleServices(modules, {
      knex: {} as Knex,
      logger: log,
      storageDir: '/nowhere',
      sdkFor: async () => sdk,
    });
    t.deepEqual(running.started, ['gamma/fine', 'alpha/first', 'alpha/second']);
    t.like(lines[0], { msg: 'module service did not start', module: 'gamma', service: 'boom' });
    t.like(lines[1], { msg: 'module services not started', module: 'delta' });
    await running.stop();
  },
);

test('the contract: an array of services, each named and with a start', (t) => {
  t.is(servicesProblem({}), 'the default export must be an array of services');
  t.is(
    servicesProblem([{ name: 'Sweeper', start() {} }]),
    'service 0: name must be lowercase letters, digits and hyphens, such as sweeper',
  );
  t.is(servicesProblem([{ name: 'sweeper' }]), 'service sweeper: start must be a function');
  t.is(servicesProblem([{ name: 'sweeper', start() {} }]), null);
});
