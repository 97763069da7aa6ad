// Read once from the root package.json; the build keeps the same relative layout (apps/api/{src,dist}).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return '0.0.0';
  }
}

export const APP_VERSION = readVersion();
