// switchyard/import-layers: which folders of one tree may import which, by relative path. Two kinds of rule, both
// set per config block (eslint.config.mjs):
//   - `siblings`: folders whose sub-folders never import each other (the dashboard's features/<name>/: a feature is
//     composed with another in app/routes, never inside one; the proxy's faces/<name>/ and providers/<kind>/). A file
//     directly in such a folder is what its sub-folders share: they may import it, it may not import them;
//   - `forbid`: `{ from, to }`: files under `from` never import anything under any folder of `to` (the dashboard's
//     lib/ and components/ sit below its features; the proxy's call/ and billing/ below its faces and providers).
// Paths are relative to `root`, '/'-separated. Checks the same import forms as module-faces.mjs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `file` relative to `root` as '/'-separated segments, or null outside it. */
function segmentsIn(root, file) {
  const rel = path.relative(root, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep);
}

/** True when `segments` lie under the folder `prefix` ('a/b'). */
function under(segments, prefix) {
  const parts = prefix.split('/');
  return parts.every((part, i) => segments[i] === part) && segments.length > parts.length;
}

export const importLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep the layers of a folder tree: siblings apart, lower folders below higher ones' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          siblings: { type: 'array', items: { type: 'string' } },
          forbid: {
            type: 'array',
            items: {
              type: 'object',
              properties: { from: { type: 'string' }, to: { type: 'array', items: { type: 'string' } } },
              required: ['from', 'to'],
              additionalProperties: false,
            },
          },
        },
        required: ['root'],
        additionalProperties: false,
      },
    ],
    messages: {
      sibling:
        "'{{specifier}}' reaches from {{parent}}/{{own}} into {{parent}}/{{other}}: siblings never import each other (compose them one level up)",
      forbidden: "'{{specifier}}': {{from}}/ may not import {{to}}/ (it sits below it)",
    },
  },
  create(context) {
    const options = context.options[0];
    const root = path.resolve(ROOT, options.root);
    const own = segmentsIn(root, context.filename);
    if (!own) return {};

    function check(node, specifier) {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = segmentsIn(root, path.resolve(path.dirname(context.filename), specifier));
      if (!target) return;
      for (const parent of options.siblings ?? []) {
        if (!under(own, parent) || !under(target, parent)) continue;
        const depth = parent.split('/').length;
        // A file of the parent folder itself (faces/face.ts) is shared by its sub-folders.
        if (target.length <= depth + 1) continue;
        if (own[depth] !== target[depth])
          context.report({
            node,
            messageId: 'sibling',
            data: { specifier, parent, own: own[depth], other: target[depth] },
          });
      }
      for (const rule of options.forbid ?? []) {
        if (!under(own, rule.from)) continue;
        const to = rule.to.find((folder) => under(target, folder) || target.join('/') === folder);
        if (to) context.report({ node, messageId: 'forbidden', data: { specifier, from: rule.from, to } });
      }
    }

    const literal = (node) => (node && node.type === 'Literal' ? node.value : undefined);
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => check(node.source, literal(node.source)),
      TSImportType: (node) => {
        const arg = node.source ?? node.argument;
        const lit = arg && arg.type === 'TSLiteralType' ? arg.literal : arg;
        check(node, literal(lit));
      },
    };
  },
};
