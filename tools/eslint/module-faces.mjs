// switchyard/module-faces: outside apps/api/src/modules/<name>/, that module is reached only through its face,
// modules/<name>/index.ts (an import path ending in the folder, e.g. '../clients'). Inside the folder, relative
// imports are free. Checks static imports, `export … from`, `import()` and `import('…')` types, `require` and
// `jest.mock`, type-only ones included: an entity type is as much an internal as the repository that loads it.
// docs/architecture.md, "Module faces". (Not in tools/eslint-rules: Nx's ESLint plugin loads that folder as its
// own TypeScript workspace rules.)
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root, from this file's place in it (not the working directory: ESLint may run in a subfolder). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The folder that holds the modules; a path below it names a module by its first segment. */
function modulesRoot(options) {
  return path.resolve(ROOT, options.modulesDir ?? 'apps/api/src/modules');
}

/** The module a file belongs to and the rest of its path, or null outside the modules folder. */
function locate(root, file) {
  const rel = path.relative(root, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const [name, ...rest] = rel.split(path.sep);
  return { name, rest: rest.join('/') };
}

/** A relative specifier's target without a script extension, as the module resolver would see it. */
function resolveSpecifier(fromFile, specifier) {
  return path.resolve(path.dirname(fromFile), specifier).replace(/\.(?:[cm]?[jt]s|tsx)$/, '');
}

/** An `allow` entry as a regular expression: '*' is one path segment, everything else is literal. */
function pattern(entry) {
  const escaped = entry.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]+')}$`);
}

/** True when `target` (relative to modules/<name>/) is that module's face. */
function isFace(rest) {
  return rest === '' || rest === 'index';
}

export const moduleFaces = {
  meta: {
    type: 'problem',
    docs: { description: 'Reach another API module only through its index.ts, never its files' },
    schema: [
      {
        type: 'object',
        properties: {
          modulesDir: { type: 'string' },
          // Internals the linted files may still import, as '<module>/<path without extension>' ('*' for any
          // module). The config block that sets this scopes it to some files and says why beside each entry.
          allow: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      internal:
        "'{{specifier}}' reaches into the {{module}} module; import from its face ('{{face}}') and export what is needed there",
    },
  },
  create(context) {
    const options = context.options[0] ?? {};
    const root = modulesRoot(options);
    const allowed = (options.allow ?? []).map(pattern);
    const file = context.filename;
    const own = locate(root, file);

    function check(node, specifier) {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = locate(root, resolveSpecifier(file, specifier));
      if (!target || isFace(target.rest)) return;
      if (own && own.name === target.name) return;
      if (allowed.some((re) => re.test(`${target.name}/${target.rest}`))) return;
      const faceAbs = path.join(root, target.name);
      let face = path.relative(path.dirname(file), faceAbs).split(path.sep).join('/');
      if (!face.startsWith('.')) face = `./${face}`;
      context.report({ node, messageId: 'internal', data: { specifier, module: target.name, face } });
    }

    const literal = (node) => (node && node.type === 'Literal' ? node.value : undefined);

    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => check(node.source, literal(node.source)),
      TSImportType: (node) => {
        // typescript-eslint 8 keeps the string in `argument` (a literal type) or in `source`.
        const arg = node.source ?? node.argument;
        const lit = arg && arg.type === 'TSLiteralType' ? arg.literal : arg;
        check(node, literal(lit));
      },
      TSExternalModuleReference: (node) => check(node.expression, literal(node.expression)),
      CallExpression: (node) => {
        const callee = node.callee;
        const isRequire = callee.type === 'Identifier' && callee.name === 'require';
        const isJestMock =
          callee.type === 'MemberExpression' &&
          callee.object.type === 'Identifier' &&
          callee.object.name === 'jest' &&
          callee.property.type === 'Identifier' &&
          ['mock', 'doMock', 'requireActual', 'unmock'].includes(callee.property.name);
        if ((isRequire || isJestMock) && node.arguments[0]) check(node.arguments[0], literal(node.arguments[0]));
      },
    };
  },
};
