/**
 * The web frontend on the API's origin: the built shell (`frontend/dist`), with every path that is
 * not a file answered by its index.html (the shell routes in the browser); `/modules.json`, as
 * `ward modules sync-frontend` wrote it; and the layers it lists, at the URL form of their path
 * (`/modules/patients/frontend/index.js`). Only the layer folders of installed modules that
 * modules.json lists are reachable, never another file of the Ward folder. nginx serves the same
 * layout in production, so nothing here is needed there but the API.
 */
import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Context, Middleware, Next } from 'koa';
import { ApiError } from './errors.ts';

export interface FrontendFiles {
  /** The built shell: index.html and assets/. */
  dist: string;
  /** The modules.json `ward modules sync-frontend` writes (`<frontendDir>/modules.json`). */
  modulesFile: string;
  /** What layer paths are relative to: the Ward directory. */
  root: string;
  /** Each installed module that ships a layer: its layer path and folder, relative to `root`, `/`-separated. */
  modules: ReadonlyMap<string, { layer: string; dir: string }>;
}

/** A path as modules.json and `/active` write it: relative to `root`, `/`-separated. */
export function rootRelative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Hashed by Vite: the name changes with the content, so a browser may keep it for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Same name, new content at any time (index.html, modules.json, layers): revalidate each use. */
const REVALIDATE = 'no-cache';

export type FrontendTarget =
  | { kind: 'pass' }
  | { kind: 'refused'; reason: string }
  | { kind: 'modules-json' }
  | { kind: 'path'; segments: string[] };

/**
 * What a GET path asks for, before any file is looked at. Pure. `/api` and `/health` are the
 * API's; segments are decoded one by one, and `.`, `..`, hidden names, NUL and separators inside
 * a segment are refused, so no path can leave the folder it is looked up in.
 */
export function frontendTarget(pathname: string): FrontendTarget {
  if (/^\/(api|health)(\/|$)/.test(pathname)) return { kind: 'pass' };
  if (pathname === '/modules.json') return { kind: 'modules-json' };
  const segments: string[] = [];
  for (const raw of pathname.split('/').slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { kind: 'refused', reason: 'the path is not valid percent-encoding' };
    }
    if (segment === '') continue;
    if (segment === '.' || segment === '..')
      return { kind: 'refused', reason: 'the path holds a "." or ".." segment' };
    if (/[\\/\0]/.test(segment))
      return { kind: 'refused', reason: 'a path segment holds a separator or NUL' };
    if (segment.startsWith('.')) return { kind: 'refused', reason: 'hidden files are not served' };
    segments.push(segment);
  }
  return { kind: 'path', segments };
}

/**
 * The folder of each listed layer that may be served, as `/`-separated paths relative to the root,
 * with `only` set when just the entry may be (a layer whose entry sits in the module folder itself,
 * beside its server code). A module counts only when it is installed and modules.json names the
 * same layer path the installed module has. Pure.
 */
export function servableLayers(
  listed: ReadonlyArray<{ name: string; layer: string }>,
  installed: FrontendFiles['modules'],
  isDirectory: (layer: string) => boolean,
): Array<{ dir: string; only: string | null }> {
  return listed.flatMap(({ name, layer }) => {
    const module = installed.get(name);
    if (module?.layer !== layer) return [];
    const dir = isDirectory(layer) ? layer : path.posix.dirname(layer);
    return [{ dir, only: dir === module.dir ? layer : null }];
  });
}

/** Whether `file` (relative, `/`-separated) may be served from one of `layers`. Pure. */
export function inLayer(file: string, layers: ReadonlyArray<{ dir: string; only: string | null }>): boolean {
  return layers.some(({ dir, only }) =>
    only === null ? file.startsWith(`${dir}/`) && file.length > dir.length + 1 : file === only,
  );
}

interface Found {
  file: string;
  size: number;
  mtime: Date;
}

async function fileAt(file: string): Promise<Found | null> {
  const info = await stat(file).catch(() => null);
  return info?.isFile() ? { file, size: info.size, mtime: info.mtime } : null;
}

function notFound(message: string, hint: string): ApiError {
  return new ApiError(404, 'not_found', message, hint);
}

/** Reads modules.json's list; a missing or unreadable file lists nothing. */
async function listedModules(file: string): Promise<Array<{ name: string; layer: string }>> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { modules?: unknown };
    if (!Array.isArray(parsed.modules)) return [];
    return parsed.modules.filter(
      (entry): entry is { name: string; layer: string } =>
        typeof entry?.name === 'string' && typeof entry?.layer === 'string',
    );
  } catch {
    return [];
  }
}

export function frontendMiddleware(files: FrontendFiles): Middleware {
  const send = (ctx: Context, found: Found, cache: string) => {
    const type = TYPES[path.extname(found.file).toLowerCase()] ?? 'application/octet-stream';
    ctx.status = 200;
    ctx.set('Cache-Control', cache);
    ctx.set('Last-Modified', found.mtime.toUTCString());
    ctx.set('ETag', `W/"${found.size.toString(16)}-${Math.floor(found.mtime.getTime()).toString(16)}"`);
    if (type.startsWith('text/html')) ctx.set('X-Frame-Options', 'DENY');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = createReadStream(found.file);
    ctx.type = type;
    ctx.length = found.size;
  };

  const layerFile = async (relative: string): Promise<Found | null> => {
    const listed = await listedModules(files.modulesFile);
    const directories = new Set<string>();
    for (const { layer } of listed) {
      const info = await stat(path.join(files.root, layer)).catch(() => null);
      if (info?.isDirectory()) directories.add(layer);
    }
    const layers = servableLayers(listed, files.modules, (layer) => directories.has(layer));
    if (!inLayer(relative, layers) || !(path.extname(relative).toLowerCase() in TYPES)) return null;
    const file = path.join(files.root, relative);
    // A symbolic link inside a layer folder must not lead out of it.
    const real = await realpath(file).catch(() => null);
    const owner = layers.find(({ dir }) => relative.startsWith(`${dir}/`));
    const realDir =
      owner === undefined ? null : await realpath(path.join(files.root, owner.dir)).catch(() => null);
    if (real === null || realDir === null || !real.startsWith(`${realDir}${path.sep}`)) return null;
    return fileAt(file);
  };

  const indexHtml = async (): Promise<Found> => {
    const found = await fileAt(path.join(files.dist, 'index.html'));
    if (found === null)
      throw notFound(
        `the web frontend is not built: ${path.join(files.dist, 'index.html')} is missing`,
        'build it with `npm run build:frontend` (`npm install` does it too), then reload',
      );
    return found;
  };

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const target = frontendTarget(ctx.path);
    if (target.kind === 'pass') return next();
    if (target.kind === 'refused')
      throw new ApiError(400, 'bad_request', target.reason, 'request the path without it');
    if (target.kind === 'modules-json') {
      const found = await fileAt(files.modulesFile);
      if (found === null)
        throw notFound(
          `${files.modulesFile} does not exist, so no module has pages yet`,
          'run `ward modules sync-frontend` on the server',
        );
      return send(ctx, found, REVALIDATE);
    }
    const relative = target.segments.join('/');
    const layer = relative === '' ? null : await layerFile(relative);
    if (layer !== null) return send(ctx, layer, REVALIDATE);
    const built = relative === '' ? null : await fileAt(path.join(files.dist, ...target.segments));
    if (built !== null) return send(ctx, built, target.segments[0] === 'assets' ? IMMUTABLE : REVALIDATE);
    // A name with an extension is a file that is not there; anything else is a page of the shell.
    const last = target.segments.at(-1) ?? '';
    if (last.includes('.'))
      throw notFound(
        `no file at ${ctx.path}`,
        'check the path; module layers are served only once modules.json lists them',
      );
    return send(ctx, await indexHtml(), REVALIDATE);
  };
}
