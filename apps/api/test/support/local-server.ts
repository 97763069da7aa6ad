import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
