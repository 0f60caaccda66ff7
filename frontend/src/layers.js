/**
 * Module layers: `/modules.json` lists the layer of each installed module (the backend writes it at
 * start) and the URL it is served at; each is imported once after sign-in, checked against the SDK version,
 * and its routes join the router. A layer that fails to load, or that needs another SDK, costs only
 * its own pages: they show what went wrong, every other page works.
 */
import { SDK_VERSION, SLOT_NAME, translator } from '@ward/ui';
import { isShellPath } from './paths.js';
import { loadMessageParser } from './ui/i18n.js';
import { satisfies } from './semver.js';

export const MODULES_JSON = '/modules.json';

/** The text of /modules.json, or null when it is missing (never synced); compared to notice changes. */
export async function fetchModulesJson() {
  const response = await fetch(MODULES_JSON, { cache: 'no-cache', credentials: 'same-origin' });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`${MODULES_JSON} answered ${response.status} ${response.statusText}`);
  return response.text();
}

/** `[{name, version, layer, url}]` from the text of /modules.json (null: none). */
export function listedLayers(text) {
  if (text === null) return [];
  const parsed = JSON.parse(text);
  return Array.isArray(parsed?.modules) ? parsed.modules : [];
}

/**
 * Why a layer's default export is not `{sdk, routes: [{path, render}], extensions?: [{slot,
 * component, permission?, order?}]}`, or null. Pure.
 */
export function contractProblem(layer) {
  if (layer === null || typeof layer !== 'object')
    return 'the layer has no default export; give it `export default { sdk, routes }`';
  if (typeof layer.sdk !== 'string') return 'the layer declares no `sdk` range, such as "^1.0.0"';
  const fits = satisfies(SDK_VERSION, layer.sdk);
  if (fits === null) return `the layer's sdk range "${layer.sdk}" is not a version range, such as "^1.0.0"`;
  if (!fits)
    return `the layer needs shell SDK ${layer.sdk}, and this shell has ${SDK_VERSION}; install a version of the module made for this Ward`;
  if (!Array.isArray(layer.routes)) return 'the layer has no `routes` array';
  const bad = layer.routes.find((route) => !isShellPath(route?.path) || typeof route.render !== 'function');
  if (bad !== undefined)
    return 'each route of the layer needs a `path` starting with a single / (not // or /\\, another host), without spaces or control characters, and a `render` function';
  return extensionsProblem(layer.extensions) ?? messagesProblem(layer.messages);
}

/** Why a layer's `messages` (optional) are not `{language: {key: message}}`, or null. */
function messagesProblem(messages) {
  if (messages === undefined) return null;
  if (messages === null || typeof messages !== 'object' || Array.isArray(messages))
    return "the layer's `messages` is not an object of catalogues by language, such as { en: { title: 'Notes' } }";
  for (const [language, catalogue] of Object.entries(messages)) {
    if (catalogue === null || typeof catalogue !== 'object' || Array.isArray(catalogue))
      return `the layer's \`messages.${language}\` is not an object of messages by key`;
    const bad = Object.keys(catalogue).find((key) => typeof catalogue[key] !== 'string');
    if (bad !== undefined) return `the layer's message ${language}.${bad} is not a string`;
  }
  return null;
}

/** Why a layer's `extensions` (optional) are not `[{slot, component, permission?, order?}]`, or null. */
function extensionsProblem(extensions) {
  if (extensions === undefined) return null;
  if (!Array.isArray(extensions)) return "the layer's `extensions` is not an array";
  for (const extension of extensions) {
    if (typeof extension?.slot !== 'string' || !SLOT_NAME.test(extension.slot))
      return `each extension needs a \`slot\` name of lowercase words joined by dots, such as "patient.chart" (got ${JSON.stringify(extension?.slot)})`;
    if (typeof extension.component !== 'function')
      return `the extension for slot ${extension.slot} needs a \`component\` (a Preact component)`;
    if (extension.permission !== undefined && typeof extension.permission !== 'string')
      return `the extension for slot ${extension.slot} has a \`permission\` that is not a permission name`;
    if (extension.order !== undefined && !Number.isFinite(extension.order))
      return `the extension for slot ${extension.slot} has an \`order\` that is not a number`;
  }
  return null;
}

/**
 * Imports every listed layer, from its `url`, at once. Each result: `{name, version, layer, url,
 * routes, extensions, error}`, with `routes` and `extensions` empty and `error` set when the
 * import failed or the contract does not hold.
 */
export async function loadLayers(listed) {
  // Layers bring their catalogues as ICU text: the parser loads beside them, so it is there before
  // any of their pages renders. Should it fail to load, their messages show as written.
  const [layers] = await Promise.all([
    Promise.all(listed.map(loadLayer)),
    loadMessageParser().catch(() => {}),
  ]);
  return layers;
}

/** One entry of loadLayers. */
async function loadLayer(entry) {
  if (typeof entry.url !== 'string')
    return {
      ...entry,
      routes: [],
      extensions: [],
      error: new Error(
        '/modules.json gives no URL for this layer (an older Ward wrote it); run `ward modules sync-frontend` on the server',
      ),
    };
  try {
    const imported = await import(/* @vite-ignore */ entry.url);
    const problem = contractProblem(imported.default);
    if (problem !== null) return { ...entry, routes: [], extensions: [], error: new Error(problem) };
    const { routes, extensions = [], messages = {} } = imported.default;
    return { ...entry, routes, extensions, messages, t: translator(messages), error: null };
  } catch (error) {
    return { ...entry, routes: [], extensions: [], error };
  }
}

/** Whether `path` is `prefix` or below it. */
export const under = (path, prefix) =>
  path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

/**
 * The module whose pages `path` is among, judged by the navigation paths `/active` lists: how
 * the shell names a module whose layer is missing or broken. Null when none claims it.
 */
export function moduleOfPath(path, activeModules) {
  let best = null;
  for (const module of activeModules)
    for (const entry of module.navigation)
      if (under(path, entry.path) && (best === null || entry.path.length > best.length))
        best = { module, length: entry.path.length };
  return best?.module ?? null;
}
