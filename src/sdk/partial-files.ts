/**
 * Files an upload is still writing (documents' `tmp/*.part`, migration_import's
 * `sources/.incoming-*`), and which of them a backend that died mid-upload left behind. A partial
 * file is renamed into place when its upload ends, or removed when it fails; a backend killed
 * meanwhile (SIGKILL, a power cut) leaves it forever, up to a source's 2 GiB, unless someone else
 * removes it. Several replicas may share the storage folder, so "someone else" must never take a
 * file a live upload is writing, on this backend or on another one.
 *
 * Each partial file's name says who writes it: a tag for the process namespace it runs in (host
 * name, boot and PID namespace, so two containers never share one) and its process id. Then:
 * - a file this process writes is never abandoned (an in-process registry knows them);
 * - a file from this namespace whose process is gone, or that carries this process's own id
 *   without being one of its files (an earlier process had the id), is abandoned at once;
 * - any other file (another machine or container, whose processes cannot be seen from here, or a
 *   name without an owner, from an earlier version) is abandoned once nobody has touched it for
 *   ABANDONED_MS: a live writer touches its files every HEARTBEAT_MS, even while its client
 *   sends nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, readlink, rm, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { PartialFile, PartialKind } from './index.ts';

export type { PartialFile, PartialKind };

/** How often a live writer touches its partial files. */
export const HEARTBEAT_MS = 60_000;
/** A partial file no process here vouches for, untouched this long, is abandoned: 15 heartbeats. */
export const ABANDONED_MS = 15 * HEARTBEAT_MS;

export interface Owner {
  tag: string;
  pid: number;
}

interface Registry {
  live: Set<string>;
  heartbeat: NodeJS.Timeout | undefined;
}

// One registry per process, however many copies of this file are loaded: a copy that did not
// know another copy's files would take them for an earlier process's.
const REGISTRY = Symbol.for('ward.sdk.partialFiles');
const registry = ((globalThis as Record<symbol, Registry | undefined>)[REGISTRY] ??= {
  live: new Set(),
  heartbeat: undefined,
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let tagOnce: Promise<string> | undefined;

/** The process namespace this process runs in, as 12 hex digits: the same for every process here. */
export function namespaceTag(): Promise<string> {
  tagOnce ??= (async () => {
    const read = (get: () => Promise<string>) => get().catch(() => '');
    const boot = await read(() => readFile('/proc/sys/kernel/random/boot_id', 'utf8'));
    const pids = await read(() => readlink('/proc/self/ns/pid'));
    return createHash('sha256').update(`${hostname()}\0${boot.trim()}\0${pids}`).digest('hex').slice(0, 12);
  })();
  return tagOnce;
}

/** A partial file's name for this process. */
export const partialName = (kind: PartialKind, tag: string, pid: number): string =>
  `${kind.prefix}${tag}-${pid}-${randomBytes(16).toString('hex')}${kind.suffix}`;

/** Whether `name` is a partial file of this kind (with an owner or without one). */
export const isPartial = (kind: PartialKind, name: string): boolean =>
  name.startsWith(kind.prefix) &&
  name.endsWith(kind.suffix) &&
  name.length > kind.prefix.length + kind.suffix.length;

/** The owner a partial file's name carries, or null when it carries none. */
export function ownerOf(kind: PartialKind, name: string): Owner | null {
  const pattern = new RegExp(
    `^${escape(kind.prefix)}([0-9a-f]{12})-([1-9][0-9]*)-[0-9a-f]{32}${escape(kind.suffix)}$`,
  );
  const match = pattern.exec(name);
  return match === null ? null : { tag: match[1] as string, pid: Number(match[2]) };
}

export interface Here {
  tag: string;
  pid: number;
  now: number;
  /** Whether a process with this id runs in this namespace. */
  runs: (pid: number) => boolean;
}

/** Pure: whether the partial file is abandoned (see the top of this file). */
export function isAbandoned(
  file: { owner: Owner | null; mtimeMs: number; ours: boolean },
  here: Here,
): boolean {
  if (file.ours) return false;
  const { owner } = file;
  if (owner !== null && owner.tag === here.tag && (owner.pid === here.pid || !here.runs(owner.pid)))
    return true;
  return here.now - file.mtimeMs > ABANDONED_MS;
}

function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The heartbeat: marks every partial file this process writes as touched now. */
export async function touchLiveFiles(): Promise<void> {
  const now = new Date();
  // A file not created yet, or already renamed, has nothing to touch.
  await Promise.all([...registry.live].map((file) => utimes(file, now, now).catch(() => undefined)));
}

/**
 * A new partial file's path in `dir`, vouched for by this process (touched every HEARTBEAT_MS)
 * until `release`. The caller creates the file.
 */
export async function newPartialFile(dir: string, kind: PartialKind): Promise<PartialFile> {
  const file = path.join(dir, partialName(kind, await namespaceTag(), process.pid));
  registry.live.add(file);
  if (registry.heartbeat === undefined) {
    registry.heartbeat = setInterval(() => void touchLiveFiles(), HEARTBEAT_MS);
    // Never keeps a stopping backend (or a test process) alive.
    registry.heartbeat.unref();
  }
  return {
    file,
    release() {
      registry.live.delete(file);
      if (registry.live.size === 0) {
        clearInterval(registry.heartbeat);
        registry.heartbeat = undefined;
      }
    },
  };
}

/** Removes the abandoned partial files of this kind in `dir`; returns their names. */
export async function removeAbandoned(dir: string, kind: PartialKind): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const here: Here = { tag: await namespaceTag(), pid: process.pid, now: Date.now(), runs };
  const removed: string[] = [];
  for (const name of names.filter((candidate) => isPartial(kind, candidate))) {
    const file = path.join(dir, name);
    const mtimeMs = await stat(file).then(
      (found) => (found.isFile() ? found.mtimeMs : null),
      () => null,
    );
    if (mtimeMs === null) continue;
    if (!isAbandoned({ owner: ownerOf(kind, name), mtimeMs, ours: registry.live.has(file) }, here)) continue;
    await rm(file, { force: true });
    removed.push(name);
  }
  return removed;
}
