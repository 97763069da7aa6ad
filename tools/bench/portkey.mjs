// Starts Portkey's open-source gateway (npm @portkey-ai/gateway, its own start-server.js) for the benchmark:
// headless, production mode, on 127.0.0.1 only, with @hono/node-server resolved to the pinned 1.14.1.
// Usage: node tools/bench/portkey.mjs --port=N   (BENCH_ROOT = the repository root)
import net from 'node:net';
import { register } from 'node:module';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

register(pathToFileURL(new URL('./portkey-hooks.mjs', import.meta.url).pathname).href);

// @hono/node-server calls server.listen(port, undefined): keep the peer on loopback like everything else here.
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && (args[1] === undefined || args[1] === null)) args[1] = '127.0.0.1';
  return listen.apply(this, args);
};

const require = createRequire(`${process.env.BENCH_ROOT}/package.json`);
const entry = require.resolve('@portkey-ai/gateway/build/start-server.js');
process.argv.push('--headless');
await import(pathToFileURL(entry).href);
