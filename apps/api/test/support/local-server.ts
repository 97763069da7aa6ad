import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The fakes' edge: an http server on 127.0.0.1 and a free port, and its origin (`http://127.0.0.1:PORT`). */
export async function listenLocally(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Closes it at once, keep-alive connections included (a client's pooled sockets would hold close() for seconds). */
export async function closeLocally(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/**
 * Fake providers for a suite: a local server answering with `handle`, and a catalog file (MODELS_CONFIG) that
 * `catalog` writes for the server's origin. `close` stops the server and removes the file.
 */
export async function fakeProviders(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
  catalog: (origin: string) => unknown,
): Promise<{ origin: string; catalogPath: string; close: () => Promise<void> }> {
  const { server, origin } = await listenLocally(handle);
  const dir = mkdtempSync(join(tmpdir(), 'sy-providers-'));
  const catalogPath = join(dir, 'models.json');
  writeFileSync(catalogPath, JSON.stringify(catalog(origin)));
  return {
    origin,
    catalogPath,
    close: async () => {
      await closeLocally(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
