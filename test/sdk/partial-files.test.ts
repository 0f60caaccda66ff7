/**
 * Which partial files (uploads still being written) a backend removes as abandoned: those of a
 * process gone from this machine at once, those of another machine only once nobody has touched
 * them for ABANDONED_MS, never one this process writes, never a file of another kind.
 */
import { spawn } from 'node:child_process';
import { readdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import {
  ABANDONED_MS,
  isAbandoned,
  namespaceTag,
  newPartialFile,
  ownerOf,
  partialName,
  removeAbandoned,
  touchLiveFiles,
  type Here,
  type PartialKind,
} from '../../src/sdk/partial-files.ts';
import { scratchDir } from '../helpers/cli.ts';

const KIND: PartialKind = { prefix: '.incoming-', suffix: '.part' };
const NOW = 1_800_000_000_000;
const here = (runs: (pid: number) => boolean = () => true): Here => ({
  tag: 'aaaaaaaaaaaa',
  pid: 100,
  now: NOW,
  runs,
});

/** The id of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid as number;
}

test('a name carries its owner, and only a name of the kind is read as one', (t) => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 22 }), fc.stringMatching(/^[0-9a-f]{12}$/), (pid, tag) => {
      const name = partialName(KIND, tag, pid);
      t.deepEqual(ownerOf(KIND, name), { tag, pid });
      t.is(ownerOf({ prefix: '', suffix: '.part' }, name.slice(1)), null);
    }),
  );
  t.is(ownerOf(KIND, '.incoming-0123456789abcdef.part'), null, 'an earlier version’s name has no owner');
});

test('who may take a partial file: this process’s never, a gone process’s at once, others by age', (t) => {
  const owner = (tag: string, pid: number) => ({ tag, pid });
  const fresh = NOW - ABANDONED_MS + 1;
  const stale = NOW - ABANDONED_MS - 1;
  const file = (o: ReturnType<typeof owner> | null, mtimeMs: number, ours = false) => ({
    owner: o,
    mtimeMs,
    ours,
  });
  t.false(isAbandoned(file(owner('aaaaaaaaaaaa', 100), stale, true), here()), 'this process writes it');
  t.true(isAbandoned(file(owner('aaaaaaaaaaaa', 100), fresh), here()), 'an earlier process with our id');
  t.true(
    isAbandoned(
      file(owner('aaaaaaaaaaaa', 7), fresh),
      here(() => false),
    ),
    'its process is gone',
  );
  t.false(isAbandoned(file(owner('aaaaaaaaaaaa', 7), fresh), here()), 'its process runs');
  t.true(isAbandoned(file(owner('aaaaaaaaaaaa', 7), stale), here()), 'untouched: its id was reused');
  t.false(
    isAbandoned(
      file(owner('bbbbbbbbbbbb', 7), fresh),
      here(() => false),
    ),
    'another machine, touched',
  );
  t.true(isAbandoned(file(owner('bbbbbbbbbbbb', 7), stale), here()), 'another machine, untouched');
  t.false(
    isAbandoned(
      file(null, fresh),
      here(() => false),
    ),
    'no owner, touched',
  );
  t.true(isAbandoned(file(null, stale), here()), 'no owner, untouched');
});

test('whatever else holds, a file this process writes, or one touched lately from elsewhere, is never taken', (t) => {
  const owners = fc.option(
    fc.record({
      tag: fc.constantFrom('aaaaaaaaaaaa', 'bbbbbbbbbbbb'),
      pid: fc.integer({ min: 1, max: 200 }),
    }),
  );
  const age = fc.integer({ min: 0, max: 10 * ABANDONED_MS });
  fc.assert(
    fc.property(owners, age, fc.boolean(), (owner, ageMs, running) => {
      const at = here(() => running);
      t.false(isAbandoned({ owner, mtimeMs: NOW - ageMs, ours: true }, at));
      if (owner?.tag !== at.tag && ageMs <= ABANDONED_MS)
        t.false(isAbandoned({ owner, mtimeMs: NOW - ageMs, ours: false }, at));
      if (ageMs > ABANDONED_MS) t.true(isAbandoned({ owner, mtimeMs: NOW - ageMs, ours: false }, at));
    }),
  );
});

test('removeAbandoned removes what a gone process or a long silence left, and nothing a live upload writes', async (t) => {
  const dir = await scratchDir('ward-partial-');
  const tag = await namespaceTag();
  const long = new Date(Date.now() - ABANDONED_MS - 60_000);
  const write = async (name: string, old = false) => {
    await writeFile(path.join(dir, name), 'bytes');
    if (old) await utimes(path.join(dir, name), long, long);
    return name;
  };
  const live = await newPartialFile(dir, KIND);
  t.teardown(() => live.release());
  await writeFile(live.file, 'being written');
  await utimes(live.file, long, long);
  const gone = await write(partialName(KIND, tag, await deadPid()));
  const earlier = await write(partialName(KIND, tag, process.pid));
  const running = await write(partialName(KIND, tag, process.ppid));
  const reused = await write(partialName(KIND, tag, process.ppid), true);
  const elsewhere = await write(partialName(KIND, 'bbbbbbbbbbbb', 1));
  const elsewhereSilent = await write(partialName(KIND, 'bbbbbbbbbbbb', 1), true);
  const legacySilent = await write('.incoming-0123456789abcdef.part', true);
  const other = await write('settled-file', true);

  const removed = await removeAbandoned(dir, KIND);
  t.deepEqual(removed.sort(), [gone, earlier, reused, elsewhereSilent, legacySilent].sort());
  t.deepEqual(
    (await readdir(dir)).sort(),
    [path.basename(live.file), running, elsewhere, other].sort(),
    'a live upload’s file, a running process’s, a recent one from elsewhere and other files stay',
  );
  live.release();
  t.deepEqual(
    await removeAbandoned(dir, KIND),
    [path.basename(live.file)],
    'released and untouched: abandoned',
  );
});

test('a folder that does not exist has nothing abandoned', async (t) => {
  t.deepEqual(await removeAbandoned(path.join(await scratchDir(), 'none'), KIND), []);
});

test('the heartbeat touches the files this process writes, and no longer once they are released', async (t) => {
  const dir = await scratchDir('ward-partial-');
  const long = new Date(Date.now() - ABANDONED_MS - 60_000);
  const writing = await newPartialFile(dir, KIND);
  const done = await newPartialFile(dir, KIND);
  t.teardown(() => writing.release());
  for (const file of [writing.file, done.file]) {
    await writeFile(file, 'bytes');
    await utimes(file, long, long);
  }
  done.release();
  await touchLiveFiles();
  t.true((await stat(writing.file)).mtimeMs > long.getTime() + ABANDONED_MS, 'touched');
  t.true((await stat(done.file)).mtimeMs < long.getTime() + 1000, 'left alone');
});
