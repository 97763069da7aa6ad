import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { GatewayException } from '../errors/gateway.exception';
import { ClientGoneError, readText, UpstreamClient, UpstreamTimeoutError, upstreamFailure } from './upstream-client';

/** A provider whose first `failures` connections are reset before any answer. */
async function flakyServer(failures: number): Promise<{ server: Server; url: string; requests: () => number }> {
  let seen = 0;
  const server = createServer((req, res) => {
    seen += 1;
    if (seen <= failures) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`,
    requests: () => seen,
  };
}

describe('UpstreamClient', () => {
  const client = new UpstreamClient();
  const servers: Server[] = [];
  afterAll(async () => {
    await client.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  });
  const send = (url: string, body: string | Readable) =>
    client.send({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: new AbortController().signal,
      timeoutMs: 5000,
    });

  it('tries a reset connection once more when the body can be replayed', async () => {
    const flaky = await flakyServer(1);
    servers.push(flaky.server);
    const response = await send(flaky.url, '{"model":"m"}');
    expect(response.status).toBe(200);
    expect(await readText(response.body)).toBe('{"ok":true}');
    expect(flaky.requests()).toBe(2);
  });

  it('gives up after that one retry, as a 502 without the upstream address', async () => {
    const flaky = await flakyServer(5);
    servers.push(flaky.server);
    const failure = await send(flaky.url, '{"model":"m"}').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayException);
    expect((failure as GatewayException).status).toBe(502);
    expect((failure as GatewayException).message).not.toContain('127.0.0.1');
    expect(flaky.requests()).toBe(2);
  });

  /** A provider that sends its headers and one chunk, then falls silent. */
  async function stallingServer(): Promise<string> {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"first":true}\n\n');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  }

  it('ends a body that falls silent longer than the timeout, as a 504', async () => {
    const url = await stallingServer();
    const response = await client.send({
      url,
      method: 'POST',
      headers: {},
      body: '{}',
      signal: new AbortController().signal,
      timeoutMs: 300,
    });
    const chunks: string[] = [];
    const failure = await (async () => {
      for await (const chunk of response.body) chunks.push(Buffer.from(chunk).toString());
    })().catch((error: unknown) => error);
    expect(chunks.join('')).toContain('first');
    expect(failure).toBeInstanceOf(UpstreamTimeoutError);
    expect((upstreamFailure(failure) as GatewayException).status).toBe(504);
  });

  it('reads a body that falls silent into a 504 for the caller (not an internal error)', async () => {
    const url = await stallingServer();
    const signal = new AbortController().signal;
    const response = await client.send({ url, method: 'POST', headers: {}, body: '{}', signal, timeoutMs: 300 });
    const failure = await readText(response.body, undefined, signal).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayException);
    expect((failure as GatewayException).status).toBe(504);
  });

  it('ends the upstream exchange when the caller goes away', async () => {
    const url = await stallingServer();
    const caller = new AbortController();
    const response = await client.send({
      url,
      method: 'POST',
      headers: {},
      body: '{}',
      signal: caller.signal,
      timeoutMs: 60_000,
    });
    setTimeout(() => caller.abort(), 50);
    const failure = await (async () => {
      for await (const chunk of response.body) void chunk;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClientGoneError);
  });

  it('does not retry a streamed body it could not send again', async () => {
    const flaky = await flakyServer(1);
    servers.push(flaky.server);
    const failure = await send(flaky.url, Readable.from([Buffer.from('{"model":"m"}')])).catch(
      (error: unknown) => error,
    );
    expect((failure as GatewayException).status).toBe(502);
    expect(flaky.requests()).toBe(1);
  });

  it('sends the Host of the URL, its user info as Basic credentials, the given headers and the body length, once each', async () => {
    const seen: string[][] = [];
    const server = createServer((req, res) => {
      seen.push(req.rawHeaders);
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const signal = new AbortController().signal;
    const body = '{"model":"é"}';
    await readText(
      (
        await client.send({
          url: `http://user:pa%20ss@127.0.0.1:${port}/v1/x`,
          method: 'POST',
          headers: { 'x-tenant': 't' },
          body,
          signal,
          timeoutMs: 5000,
        })
      ).body,
    );
    await readText(
      (
        await client.send({
          url: `http://127.0.0.1:${port}/v1/x`,
          method: 'GET',
          headers: { host: 'models.internal' },
          signal,
          timeoutMs: 5000,
        })
      ).body,
    );
    const pairs = (raw: string[]) =>
      Array.from({ length: raw.length / 2 }, (_, i) => `${raw[2 * i].toLowerCase()}: ${raw[2 * i + 1]}`);
    expect(pairs(seen[0])).toEqual(
      expect.arrayContaining([
        `host: 127.0.0.1:${port}`,
        `authorization: Basic ${Buffer.from('user:pa ss').toString('base64')}`,
        'x-tenant: t',
        `content-length: ${Buffer.byteLength(body)}`,
      ]),
    );
    expect(pairs(seen[1]).filter((line) => line.startsWith('host:'))).toEqual(['host: models.internal']);
  });
});
