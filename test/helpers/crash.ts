/**
 * The environment that makes a spawned `ward` kill itself at a chosen step or batch (see
 * crash-preload.ts): NODE_OPTIONS preloads the file into the process that applies the plan.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/config.ts';
import type { WardEnv } from './cli.ts';

const PRELOAD = `--import=${pathToFileURL(path.join(ROOT, 'test', 'helpers', 'crash-preload.ts')).href}`;

/** `at`: "<n>:<start|middle|end>", the n-th step a restart runs. */
export const crashAtStep = (at: string): WardEnv => ({ NODE_OPTIONS: PRELOAD, CRASH_AT_STEP: at });

/** `at`: "<n>:<middle|end>", the n-th batch a migration_import execute run writes. */
export const crashAtBatch = (at: string): WardEnv => ({ NODE_OPTIONS: PRELOAD, CRASH_AT_BATCH: at });
