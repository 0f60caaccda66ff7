/**
 * The backend runs from one bundle built at install (`npm run build:backend`, src/server/build-bundle.ts):
 * loading some 390 files one by one was most of a cold start. The bundle lives in build/, one level
 * below the Ward folder as src/ is, so the paths Ward computes from its own files (src/config.ts's
 * ROOT, src/generated.ts) hold in it too. Module code and the validators in generated/ stay outside
 * it, loaded from their folders as before.
 *
 * Beside the bundle, the build records its inputs: each of Ward's own files it read, and
 * package-lock.json, which pins the packages it took code from (`npm install` and `npm ci` install
 * what it says and rewrite it when that changes), each by size, modification time and a SHA-256 of
 * its content. A bundle whose inputs changed is stale, and must not run as if it were the code on
 * disk. The check stats each file and hashes only one whose time alone changed (a checkout, a copy
 * into an image), so a start pays a stat per file: reading every bundled package's package.json
 * instead cost a start 10 to 40 ms.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { WardError } from '../errors/ward-error.ts';

export const BUNDLE_DIR = 'build';
/** The bundle's entry point (src/server/bundle-entry.ts), relative to the Ward folder. */
export const BUNDLE_ENTRY = `${BUNDLE_DIR}/backend.mjs`;
/** The lean `ward modules list`'s entry point (src/cli/list-entry.ts), built with the backend's. */
export const LIST_BUNDLE_ENTRY = `${BUNDLE_DIR}/modules-list.mjs`;
/** What the build read, relative to the Ward folder. */
export const BUNDLE_INPUTS = `${BUNDLE_DIR}/backend-inputs.json`;

export interface BundledFile {
  /** Relative to the Ward folder, with `/` separators. */
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
}

export interface BundleInputs {
  files: BundledFile[];
}

/** What a check finds of a file on disk; null when it is gone. */
export type FileStat = { size: number; mtimeMs: number } | null;

export interface Disk {
  stat(file: string): FileStat;
  sha256(file: string): string;
}

export const sha256 = (content: Buffer | string): string =>
  createHash('sha256').update(content).digest('hex');

/**
 * Pure over `disk`: the first input that differs from what the build recorded, said as a reason
 * ("src/api/app.ts changed"), or null when the bundle is the code on disk. A file whose size and
 * time are unchanged is taken as unchanged; one whose time alone changed is compared by content.
 */
export function staleInput(inputs: BundleInputs, disk: Disk): string | null {
  for (const file of inputs.files) {
    const now = disk.stat(file.path);
    if (now === null) return `${file.path} is gone`;
    if (now.size !== file.size) return `${file.path} changed`;
    if (now.mtimeMs !== file.mtimeMs && disk.sha256(file.path) !== file.sha256) return `${file.path} changed`;
  }
  return null;
}

/** The disk under `root`, read synchronously: a start does nothing else meanwhile. */
export function diskUnder(root: string): Disk {
  return {
    stat(file) {
      const found = statSync(path.join(root, file), { throwIfNoEntry: false });
      return found === undefined ? null : { size: found.size, mtimeMs: found.mtimeMs };
    },
    sha256: (file) => sha256(readFileSync(path.join(root, file))),
  };
}

/** Why the bundle under `root` cannot run as the code on disk (missing, or an input changed); null if it can. */
export function bundleStaleness(root: string): string | null {
  if (!existsSync(path.join(root, BUNDLE_ENTRY))) return 'the backend has not been built';
  let inputs: BundleInputs;
  try {
    inputs = JSON.parse(readFileSync(path.join(root, BUNDLE_INPUTS), 'utf8')) as BundleInputs;
  } catch {
    return `${BUNDLE_INPUTS} is missing or unreadable`;
  }
  const changed = staleInput(inputs, diskUnder(root));
  return changed === null ? null : `${changed} since the backend was built`;
}

export function staleBundleError(reason: string): WardError {
  return new WardError(
    'backend_bundle_stale',
    `the backend bundle in ${BUNDLE_DIR}/ is not the code on disk: ${reason}`,
    'run `npm run build:backend` in the Ward folder (`npm start` does it for you), then start the backend again',
  );
}

/** Throws backend_bundle_stale unless the bundle under `root` is the code on disk. */
export function assertBundleFresh(root: string): void {
  const reason = bundleStaleness(root);
  if (reason !== null) throw staleBundleError(reason);
}
