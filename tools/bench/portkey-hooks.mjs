// Module hook for the Portkey peer: Portkey 1.15.2 streams only with @hono/node-server 1.14.1 (its issues
// #1389 and #1550), but npm nests a newer copy under it (its @hono/node-ws peer-requires ^1.19). This sends
// Portkey's own import of @hono/node-server to the copy pinned in the root package.json instead.
import { pathToFileURL } from 'node:url';

const ROOT_PARENT = pathToFileURL(`${process.env.BENCH_ROOT}/package.json`).href;

export async function resolve(specifier, context, next) {
  if (
    (specifier === '@hono/node-server' || specifier.startsWith('@hono/node-server/')) &&
    context.parentURL?.includes('/@portkey-ai/gateway/build/')
  )
    return next(specifier, { ...context, parentURL: ROOT_PARENT });
  return next(specifier, context);
}
