/**
 * The web frontend on the API's origin: the built shell (`frontend/dist`), with every path that is
 * not a file answered by its index.html (the shell routes in the browser); `/modules.json`, as the
 * backend (or `ward modules sync-frontend`) wrote it; and the layer of each installed module at
 * `/layers/<module>/<path inside the module folder>`, wherever the module lives (a module found
 * through WARD_MODULE_PATHS may be outside the Ward folder). Only layer folders are reachable,
 * never a module's server code nor another file of the Ward folder.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Context, Middleware, Next } from '../http/context.ts';
import { LAYERS_PREFIX } from '../manifests/frontend-layers.ts';
import { ApiError } from '../errors/api-error.ts';

export interface FrontendFiles {
  /** The built shell: index.html and assets/. */
  dist: string;
  /** The modules.json the backend writes at start (`<frontendDir>/modules.json`). */
  modulesFile: string;
  /**
   * Each installed module that ships a layer: its folder (absolute) and its layer's entry file
   * inside it (`DiskModule.frontend`: `/`-separated).
   */
  modules: ReadonlyMap<string, { dir: string; entry: string }>;
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

/**
 * The sha256 source of each inline script of an HTML page (the import map is one), as CSP writes
 * it. Pure. The browser hashes the text between the tags after turning CR LF and lone CR into LF,
 * as its parser does; a script with a `src` runs from its file, so it has no inline text to hash.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const [, attributes = '', text = ''] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script/gi)) {
    if (/\ssrc\s*=/i.test(attributes)) continue;
    const normalised = text.replace(/\r\n?/g, '\n');
    hashes.push(`'sha256-${createHash('sha256').update(normalised, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

/**
 * The Content-Security-Policy of an HTML page. Pure. Scripts, styles, fonts and fetches come from
 * this origin only, plus the page's own inline scripts by hash (the import map); `data:` images
 * because the shell's favicon is `data:,`. Inline `style` attributes need no 'unsafe-inline':
 * Preact sets them through the CSSOM (`element.style`), which CSP does not govern. No plugin, no
 * `<base>`, no framing by another page, forms post back to this origin only.
 */
export function contentSecurityPolicy(html: string): string {
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...inlineScriptHashes(html)].join(' '),
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export type FrontendTarget =
  | { kind: 'pass' }
  | { kind: 'refused'; reason: string }
  | { kind: 'modules-json' }
  | { kind: 'layer'; module: string; file: string }
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
  const [first, module, ...file] = segments;
  if (`/${first}` === LAYERS_PREFIX) return { kind: 'layer', module: module ?? '', file: file.join('/') };
  return { kind: 'path', segments };
}

/**
 * Whether `file` (inside the module folder, `/`-separated) belongs to the layer whose entry file is
 * `entry` (`layerInModule`'s form): the files beside the entry and under its folder; an entry that
 * sits in the module folder itself (beside its server code) is the only file served there. Pure.
 */
export function inLayer(file: string, entry: string): boolean {
  const folder = path.posix.dirname(entry);
  if (folder === '.') return file === entry;
  return file.startsWith(`${folder}/`) && file.length > folder.length + 1;
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

/** An HTML file as last read, with its policy; read again when its size or time changes. */
interface Page {
  size: number;
  mtimeMs: number;
  body: Buffer;
  csp: string;
}

export function frontendMiddleware(files: FrontendFiles): Middleware {
  const pages = new Map<string, Page>();

  /** The page and its policy from the same bytes, so the hashes always match what is served. */
  const page = async (found: Found): Promise<Page> => {
    const cached = pages.get(found.file);
    if (cached?.size === found.size && cached.mtimeMs === found.mtime.getTime()) return cached;
    const body = await readFile(found.file);
    const fresh = {
      size: found.size,
      mtimeMs: found.mtime.getTime(),
      body,
      csp: contentSecurityPolicy(body.toString('utf8')),
    };
    pages.set(found.file, fresh);
    return fresh;
  };

  const send = async (ctx: Context, found: Found, cache: string) => {
    const type = TYPES[path.extname(found.file).toLowerCase()] ?? 'application/octet-stream';
    const html = type.startsWith('text/html') ? await page(found) : null;
    ctx.status = 200;
    ctx.set('Cache-Control', cache);
    ctx.set('Last-Modified', found.mtime.toUTCString());
    ctx.set('ETag', `W/"${found.size.toString(16)}-${Math.floor(found.mtime.getTime()).toString(16)}"`);
    // The app sets X-Content-Type-Options: nosniff on every answer; a page's address (patient
    // ids in the path) must not leak to another site through Referer.
    ctx.set('Referrer-Policy', 'no-referrer');
    if (html !== null) {
      ctx.set('Content-Security-Policy', html.csp);
      ctx.set('X-Frame-Options', 'DENY');
    }
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = html?.body ?? createReadStream(found.file);
    ctx.type = type;
    ctx.length = html?.body.length ?? found.size;
  };

  const layerFile = async (name: string, file: string): Promise<Found | null> => {
    const module = files.modules.get(name);
    if (module === undefined || !(path.extname(file).toLowerCase() in TYPES)) return null;
    if (!inLayer(file, module.entry)) return null;
    const absolute = path.join(module.dir, file);
    // A symbolic link inside a layer folder must not lead out of it.
    const real = await realpath(absolute).catch(() => null);
    const folder = await realpath(path.join(module.dir, path.posix.dirname(module.entry))).catch(() => null);
    if (real === null || folder === null || !real.startsWith(`${folder}${path.sep}`)) return null;
    return fileAt(absolute);
  };

  const indexHtml = async (): Promise<Found> => {
    const found = await fileAt(path.join(files.dist, 'index.html'));
    if (found === null)
      throw notFound(
        // The path stays on the server: this answer goes to anyone, signed in or not.
        'the web frontend is not built: its index.html is missing on the server',
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
          'the list of module pages (modules.json) does not exist on the server, so no module has pages yet',
          'the backend writes it at start: check its log for why it could not, or run `ward modules sync-frontend` on the server',
        );
      return send(ctx, found, REVALIDATE);
    }
    if (target.kind === 'layer') {
      const layer = await layerFile(target.module, target.file);
      if (layer === null)
        throw notFound(
          `no file at ${ctx.path}`,
          `installed modules' layers are served at ${LAYERS_PREFIX}/<module>/<path inside the module folder>; check the module is installed and the path is inside its layer`,
        );
      return send(ctx, layer, REVALIDATE);
    }
    const built =
      target.segments.length === 0 ? null : await fileAt(path.join(files.dist, ...target.segments));
    if (built !== null) return send(ctx, built, target.segments[0] === 'assets' ? IMMUTABLE : REVALIDATE);
    // A name with an extension is a file that is not there; anything else is a page of the shell.
    const last = target.segments.at(-1) ?? '';
    if (last.includes('.')) throw notFound(`no file at ${ctx.path}`, 'check the path');
    return send(ctx, await indexHtml(), REVALIDATE);
  };
}
