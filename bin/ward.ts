import { execute, settings } from '@oclif/core';

// Node 24 runs our .ts commands itself; oclif must not look for ts-node or a compiled lib/.
settings.enableAutoTranspile = false;

await execute({ dir: import.meta.url });
