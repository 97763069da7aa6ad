import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';

/**
 * The one guarded fetcher for caller-supplied URLs (decisions.md section 10), used only when an adapter must
 * fetch (an image URL for a provider that takes inline data only). Refuses loopback, private, link-local,
 * CGNAT, multicast and metadata addresses; the address checked is the address dialled (the connection is
 * pinned to it); every redirect is checked again; size and time are limited.
 */
export class SafeFetchError extends Error {}

const MAX_REDIRECTS = 3;

export function isForbiddenAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number);
    return (
      a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || (a === 192 && b === 0) ||
      (a === 198 && (b === 18 || b === 19)) || a >= 224
    );
  }
  const lower = address.toLowerCase();
  return (
    lower === '::' || lower === '::1' || lower.startsWith('fc') || lower.startsWith('fd') || lower.startsWith('fe8') ||
    lower.startsWith('fe9') || lower.startsWith('fea') || lower.startsWith('feb') || lower.startsWith('ff') ||
    lower.startsWith('64:ff9b')
  );
}

export async function safeFetch(
  url: string,
  options: { maxBytes?: number; timeoutMs?: number; resolve?: (host: string) => Promise<{ address: string; family: number }[]> } = {},
): Promise<{ contentType: string; body: Buffer }> {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const resolve = options.resolve ?? ((host: string) => lookup(host, { all: true, verbatim: true }));
  let current = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new SafeFetchError('only http and https URLs can be fetched');
    const host = current.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
    if (!addresses.length || addresses.some(({ address }) => isForbiddenAddress(address)))
      throw new SafeFetchError('the URL points at an address that cannot be fetched');
    const pinned = addresses[0];
    const agent = new Agent({
      connect: { lookup: (_h: string, _o: unknown, cb: (e: Error | null, a: string, f: number) => void) => cb(null, pinned.address, pinned.family) } as never,
    });
    try {
      const response = await request(current, { method: 'GET', dispatcher: agent, signal: deadline, maxRedirections: 0 } as never);
      if (response.statusCode >= 300 && response.statusCode < 400 && response.headers.location) {
        await response.body.dump();
        current = new URL(String(response.headers.location), current);
        continue;
      }
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new SafeFetchError(`the URL answered ${response.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += chunk.length;
        if (size > maxBytes) {
          response.body.destroy();
          throw new SafeFetchError(`the URL's content is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { contentType: String(response.headers['content-type'] ?? 'application/octet-stream'), body: Buffer.concat(chunks) };
    } finally {
      void agent.close();
    }
  }
  throw new SafeFetchError('too many redirects');
}
