/**
 * ESLint rule `ward/module-boundary`: a module reaches another only through Ward at run time
 * (`sdk.modules.get`). Its files may import another module's files only as types (`import type`,
 * erased before the code runs), only the public API file that module's manifest names (`api`), and
 * only of a module in its own `depends`. A module is the nearest folder above a file that holds a
 * manifest.json; official and community modules alike.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const roots = new Map();

/** The folder of the module `file` belongs to (the nearest with a manifest.json), or null. */
function moduleRoot(file) {
  let dir = path.dirname(file);
  const seen = [];
  while (!roots.has(dir)) {
    seen.push(dir);
    if (existsSync(path.join(dir, 'manifest.json'))) {
      roots.set(dir, dir);
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      roots.set(dir, null);
      break;
    }
    dir = parent;
  }
  const root = roots.get(dir);
  for (const visited of seen) roots.set(visited, root);
  return root;
}

const manifests = new Map();

function manifestOf(root) {
  if (!manifests.has(root)) {
    let manifest = {};
    try {
      manifest = JSON.parse(readFileSync(path.join(root, 'manifest.json'), 'utf8'));
    } catch {
      // A broken manifest is the manifest checks' to report; here it declares nothing.
    }
    manifests.set(root, manifest);
  }
  return manifests.get(root);
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'a module imports nothing of another module but the types of its public API' },
    schema: [],
    messages: {
      runtime:
        '{{module}} imports run-time code of module {{other}}; reach it through sdk.modules.get("{{other}}") and import only its types (`import type`)',
      notApi:
        '{{module}} imports {{file}} of module {{other}}; import only types of the public API its manifest names ({{api}})',
      notDepended: '{{module}} imports types of module {{other}}, which is not in its depends; add it there',
    },
  },
  create(context) {
    const file = context.filename;
    const own = moduleRoot(file);
    if (own === null) return {};
    const module = manifestOf(own).name ?? path.basename(own);
    const check = (node, typeOnly) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), specifier);
      const root = moduleRoot(target);
      if (root === null || root === own || !target.startsWith(`${root}${path.sep}`)) return;
      const other = manifestOf(root);
      const data = { module, other: other.name ?? path.basename(root) };
      if (!typeOnly) return context.report({ node, messageId: 'runtime', data });
      const api = other.api === undefined ? null : path.join(root, other.api);
      if (target !== api)
        return context.report({
          node,
          messageId: 'notApi',
          data: { ...data, file: path.relative(root, target), api: other.api ?? 'none' },
        });
      if (!(manifestOf(own).depends ?? []).includes(data.other))
        context.report({ node, messageId: 'notDepended', data });
    };
    return {
      ImportDeclaration: (node) => check(node, node.importKind === 'type'),
      ExportNamedDeclaration: (node) => check(node, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.exportKind === 'type'),
    };
  },
};
