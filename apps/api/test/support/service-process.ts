import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * Starts the real service (its main.ts) as a separate process, so a test can kill it with SIGKILL, and
 * resolves with its address once it listens (bounded: 45 s).
 */
export function startServiceProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=development', '-r', '@swc-node/register', join(ROOT, 'apps/api/src/main.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        NO_COLOR: '1',
        SWC_NODE_PROJECT: join(ROOT, 'apps/api/tsconfig.spec.json'),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'log',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[0-9.:]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
}
