import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const node = process.execPath;
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });

/** Every file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/**
 * The kit as npm publishes it (docs/sdk.md): `npm pack` of @switchyard/sdk and @switchyard/react after a build,
 * unpacked into a folder of its own, as an app maker's project would install them. Types are present and type a
 * consumer's code, the SDK loads in plain Node, and nothing of the workspace (sources, tests, configs, the
 * workspace's own packages or paths) is inside.
 */
describe('the kit’s npm packages', () => {
  const work = mkdtempSync(join(tmpdir(), 'kit-pack-'));
  const unpacked: Record<'sdk' | 'react', string> = { sdk: '', react: '' };
  const modules = join(work, 'app', 'node_modules');

  beforeAll(() => {
    for (const which of ['sdk', 'react'] as const) {
      execFileSync(node, [join(root, 'tools/kit/build.mjs'), which], { stdio: 'pipe' });
      const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], join(root, 'libs', which))) as {
        filename: string;
      }[];
      const target = join(modules, '@switchyard', which);
      mkdirSync(target, { recursive: true });
      execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', target, '--strip-components=1']);
      unpacked[which] = target;
    }
  }, 120_000);

  it('holds the build and its types only: no sources, tests, configs or workspace paths', () => {
    expect(files(unpacked.sdk).sort()).toEqual(
      expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/switchyard.js']),
    );
    expect(files(unpacked.react).sort()).toEqual(
      expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts']),
    );
    for (const dir of Object.values(unpacked)) {
      for (const file of files(dir)) {
        expect([file, /(^src\/|\.spec\.|tsconfig|project\.json|jest\.config|\.tsbuildinfo|\.map$)/.test(file)]).toEqual(
          [file, false],
        );
        const text = readFileSync(join(dir, file), 'utf8');
        // No workspace package, no path of this machine or the repository, no relative way out of the package.
        expect([
          file,
          /@switchyard\/shared-dto|\/work\/|\blibs\/|\bapps\/(api|dashboard|example-chat)|\.\.\/\.\.\//.test(text),
        ]).toEqual([file, false]);
      }
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      expect(manifest.private).toBeUndefined();
      expect(manifest.dependencies).toBeUndefined();
      // Every entry point exists in the package.
      const targets: string[] = [];
      const collect = (value: unknown): void => {
        if (typeof value === 'string') targets.push(value.replace(/^\.\//, ''));
        else if (value && typeof value === 'object') Object.values(value).forEach(collect);
      };
      collect(manifest.exports);
      for (const target of [...targets, manifest.main, manifest.types])
        expect([target, files(dir).includes(target.replace(/^\.\//, ''))]).toEqual([target, true]);
    }
    const react = JSON.parse(readFileSync(join(unpacked.react, 'package.json'), 'utf8'));
    expect(Object.keys(react.peerDependencies).sort()).toEqual(['@switchyard/sdk', 'react']);
  });

  it('loads in plain Node (ESM, no dependencies) with everything the docs name', () => {
    const out = execFileSync(
      node,
      [
        '--input-type=module',
        '-e',
        `const sdk = await import('@switchyard/sdk'); console.log(Object.keys(sdk).sort().join(','));`,
      ],
      { cwd: join(work, 'app'), encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(out.trim().split(',')).toEqual(
      expect.arrayContaining([
        'AuthorizationError',
        'BudgetExhaustedError',
        'NotSignedInError',
        'PopupError',
        'SwitchyardError',
        'createSwitchyard',
        'memoryStorage',
        'toSwitchyardError',
      ]),
    );
  });

  it('types an app maker’s code with its own declarations (a wrong use fails to compile)', () => {
    // The app's React types come from this repository's installation.
    for (const name of ['react', '@types/react']) {
      mkdirSync(join(modules, name, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), join(modules, name));
    }
    const app = join(work, 'app');
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'esnext',
          moduleResolution: 'bundler',
          jsx: 'react-jsx',
          lib: ['es2022', 'dom'],
          types: [],
          skipLibCheck: false,
        },
        files: ['app.tsx'],
      }),
    );
    const tsc = (source: string) => {
      writeFileSync(join(app, 'app.tsx'), source);
      try {
        execFileSync(node, [join(root, 'node_modules/typescript/bin/tsc'), '-p', app], { encoding: 'utf8' });
        return '';
      } catch (error) {
        return String((error as { stdout?: string }).stdout);
      }
    };
    const good = `
      import { BudgetExhaustedError, createSwitchyard, type Balance } from '@switchyard/sdk';
      import { BalanceBadge, SignInButton, SwitchyardProvider, TopUpButton } from '@switchyard/react';
      const sy = createSwitchyard({ baseUrl: 'https://sy.example', clientId: 'app' });
      export const balance: Promise<Balance> = sy.balance();
      export const kind = (error: unknown) => (error instanceof BudgetExhaustedError ? error.kind : null);
      export const page = (
        <SwitchyardProvider client={sy}>
          <SignInButton mode="redirect" /> <BalanceBadge /> <TopUpButton limit="app" />
        </SwitchyardProvider>
      );`;
    expect(tsc(good)).toBe('');
    expect(tsc(`import { createSwitchyard } from '@switchyard/sdk'; createSwitchyard({ clientId: 1 });`)).toMatch(
      /error TS/,
    );
  });
});
