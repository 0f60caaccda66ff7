/**
 * A manifest's `frontend` names the layer's entry file, or a folder whose `index.js` is the entry:
 * the two forms the guides show. Discovery turns either into the entry file once, so modules.json,
 * `/active`, the `/layers/` files and the shell all see the same file, and a layer the shell could
 * not import is a manifest error before anything is installed.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { layerInModule } from './frontend-layers.ts';

/** What a browser imports as a module from Ward's `/layers/` URLs. */
const ENTRY_EXTENSIONS = new Set(['.js', '.mjs']);

export type LayerEntry = { ok: true; entry: string } | { ok: false; message: string };

/**
 * The layer's entry file, relative to the module directory and `/`-separated (`layerInModule`'s
 * form), or why there is none.
 */
export async function layerEntry(dir: string, frontend: string): Promise<LayerEntry> {
  const named = layerInModule(frontend);
  const info = await stat(path.join(dir, named)).catch(() => null);
  if (info === null)
    return refused(
      `frontend layer "${frontend}" does not exist in ${dir}; create it, or set "frontend" to the layer's entry file (such as "frontend/index.js") or to its folder`,
    );
  if (info.isDirectory()) {
    const entry = named === '' ? 'index.js' : `${named}/index.js`;
    const index = await stat(path.join(dir, entry)).catch(() => null);
    if (index?.isFile() !== true)
      return refused(
        `frontend layer folder "${frontend}" has no index.js, the file the shell imports; add ${path.join(dir, entry)}, or set "frontend" to the layer's entry file`,
      );
    return { ok: true, entry };
  }
  if (!info.isFile() || !ENTRY_EXTENSIONS.has(path.posix.extname(named).toLowerCase()))
    return refused(
      `frontend layer "${frontend}" is not a JavaScript file; set "frontend" to the layer's entry file (.js or .mjs) or to a folder holding index.js`,
    );
  return { ok: true, entry: named };
}

const refused = (message: string): LayerEntry => ({ ok: false, message });
