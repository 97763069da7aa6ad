import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, request } from 'undici';

/**
 * The one guard for fetching a URL a caller supplied (today: an image URL in a chat message, for a provider that
 * takes inline bytes only). Every place that fetches such a URL goes through `guardedFetch`; nothing else in the
 * product dials an address a caller chose. docs/gateway.md, "Fetching caller-supplied URLs".
 *
 * - http and https only, no credentials in the URL, ports in `allowedPorts` only (FETCH_ALLOWED_PORTS: 80, 443);
 * - the host is resolved once (all its addresses) and EVERY address is checked against the block list below;
 * - the connection is made to the checked address (a lookup pinned to it: no second resolution);
 * - each redirect goes through the same checks, at most `maxRedirects` of them;
 * - the whole fetch is bounded in time and the answer in size;
 * - every refusal and every failure is the same `FetchRefusedError` with the same message, so a caller learns
 *   nothing about which hosts or ports exist or answer; its `reason` is for a debug log line only.
 */

/** The message of every refusal or failure, whatever the reason. */
export const FETCH_REFUSED_MESSAGE = 'The URL could not be fetched';

export class FetchRefusedError extends Error {
  /** Why, for the operator's debug log; never shown to the caller. */
  readonly reason: string;

  constructor(reason: string) {
    super(FETCH_REFUSED_MESSAGE);
    this.name = 'FetchRefusedError';
    this.reason = reason;
  }
}

export interface BlockedRange {
  network: string;
  prefix: number;
  type: 'ipv4' | 'ipv6';
  why: string;
}

/**
 * Addresses never dialled. IPv6 outside 2000::/3 (global unicast) is refused altogether, which also covers every
 * form with an IPv4 address inside (mapped ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96 and
 * 64:ff9b:1::/48) whatever its textual form; 6to4 (2002::/16) is judged by the IPv4 address it carries.
 */
export const BLOCKED_RANGES: readonly BlockedRange[] = [
  { network: '0.0.0.0', prefix: 8, type: 'ipv4', why: 'this network, unspecified' },
  { network: '10.0.0.0', prefix: 8, type: 'ipv4', why: 'private (RFC 1918)' },
  { network: '100.64.0.0', prefix: 10, type: 'ipv4', why: 'carrier-grade NAT' },
  { network: '127.0.0.0', prefix: 8, type: 'ipv4', why: 'loopback' },
  { network: '169.254.0.0', prefix: 16, type: 'ipv4', why: 'link-local, cloud metadata' },
  { network: '172.16.0.0', prefix: 12, type: 'ipv4', why: 'private (RFC 1918)' },
  { network: '192.0.0.0', prefix: 24, type: 'ipv4', why: 'IETF protocol assignments' },
  { network: '192.0.2.0', prefix: 24, type: 'ipv4', why: 'documentation' },
  { network: '192.88.99.0', prefix: 24, type: 'ipv4', why: '6to4 relay anycast' },
  { network: '192.168.0.0', prefix: 16, type: 'ipv4', why: 'private (RFC 1918)' },
  { network: '198.18.0.0', prefix: 15, type: 'ipv4', why: 'benchmarking' },
  { network: '198.51.100.0', prefix: 24, type: 'ipv4', why: 'documentation' },
  { network: '203.0.113.0', prefix: 24, type: 'ipv4', why: 'documentation' },
  { network: '224.0.0.0', prefix: 4, type: 'ipv4', why: 'multicast' },
  { network: '240.0.0.0', prefix: 4, type: 'ipv4', why: 'reserved, broadcast' },
  {
    network: '::',
    prefix: 3,
    type: 'ipv6',
    why: 'not global unicast (unspecified, loopback, IPv4-mapped, IPv4-compatible, NAT64)',
  },
  { network: '4000::', prefix: 2, type: 'ipv6', why: 'not global unicast' },
  { network: '8000::', prefix: 1, type: 'ipv6', why: 'not global unicast (ULA, link-local, site-local, multicast)' },
  { network: '::', prefix: 128, type: 'ipv6', why: 'unspecified' },
  { network: '::1', prefix: 128, type: 'ipv6', why: 'loopback' },
  { network: '::ffff:0:0', prefix: 96, type: 'ipv6', why: 'IPv4-mapped' },
  { network: '::', prefix: 96, type: 'ipv6', why: 'IPv4-compatible' },
  { network: '64:ff9b::', prefix: 96, type: 'ipv6', why: 'NAT64' },
  { network: '64:ff9b:1::', prefix: 48, type: 'ipv6', why: 'local-use NAT64' },
  { network: '100::', prefix: 64, type: 'ipv6', why: 'discard-only' },
  { network: '2001::', prefix: 23, type: 'ipv6', why: 'IETF protocol assignments (Teredo 2001::/32 among them)' },
  { network: '2001:db8::', prefix: 32, type: 'ipv6', why: 'documentation' },
  { network: '3fff::', prefix: 20, type: 'ipv6', why: 'documentation' },
  { network: 'fc00::', prefix: 7, type: 'ipv6', why: 'unique local' },
  { network: 'fe80::', prefix: 10, type: 'ipv6', why: 'link-local' },
  { network: 'fec0::', prefix: 10, type: 'ipv6', why: 'site-local' },
  { network: 'ff00::', prefix: 8, type: 'ipv6', why: 'multicast' },
];

/**
 * Two of node's BlockLists, one per family: node checks an IPv4 address against IPv6 rules too (as ::ffff:a.b.c.d),
 * so IPv6 rules covering ::ffff:0:0/96 kept in the same list would block every IPv4 address.
 */
export interface AddressBlockList {
  ipv4: BlockList;
  ipv6: BlockList;
}

export function blockListOf(ranges: readonly BlockedRange[] = BLOCKED_RANGES): AddressBlockList {
  const lists = { ipv4: new BlockList(), ipv6: new BlockList() };
  for (const range of ranges) lists[range.type].addSubnet(range.network, range.prefix, range.type);
  return lists;
}

/** The product's block list. Tests that need a local server pass one without loopback. */
export const DEFAULT_BLOCK_LIST = blockListOf();

/** The eight 16-bit groups of an IPv6 address in any textual form (dotted tail included), or null. */
function ipv6Groups(address: string): number[] | null {
  let canonical: string;
  try {
    // The URL parser writes every IPv6 form the same way: lower-case hex, zeros compressed, no dotted tail.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = canonical.split('::');
  const first = head ? head.split(':') : [];
  const last = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last].map((group) =>
    parseInt(group, 16),
  );
  return groups.length === 8 && groups.every((group) => group >= 0 && group <= 0xffff) ? groups : null;
}

/** Whether an address (as resolved or as written in a URL) may not be dialled. Anything unreadable is blocked. */
export function isBlockedAddress(address: string, blockList: AddressBlockList = DEFAULT_BLOCK_LIST): boolean {
  // A zone (fe80::1%eth0) names an interface: link-local by nature.
  if (address.includes('%')) return true;
  const family = isIP(address);
  if (family === 4) return blockList.ipv4.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  if (blockList.ipv6.check(address, 'ipv6')) return true;
  if (groups[0] === 0x2002) {
    // 6to4: the IPv4 address in bits 16-47 is where the packets end up.
    const v4 = [groups[1] >> 8, groups[1] & 0xff, groups[2] >> 8, groups[2] & 0xff].join('.');
    return blockList.ipv4.check(v4, 'ipv4');
  }
  return false;
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

export const DEFAULT_ALLOWED_PORTS: readonly number[] = [80, 443];

export interface FetchGuardOptions {
  /** Ports that may be dialled (FETCH_ALLOWED_PORTS); default 80 and 443. */
  allowedPorts?: readonly number[];
  /** Addresses never dialled; default DEFAULT_BLOCK_LIST. */
  blockList?: AddressBlockList;
  /** Name resolution (all addresses of a host); default the system's (dns.lookup, all: true). */
  resolve?: Resolver;
  /** Largest answer body; default 10 MB. */
  maxBytes?: number;
  /** The whole fetch, redirects included; default 10 s. */
  timeoutMs?: number;
  /** Redirects followed, each checked like the first URL; default 3. */
  maxRedirects?: number;
}

export interface FetchedResource {
  contentType: string;
  body: Buffer;
}

/** Rejects with a FetchRefusedError when the signal fires first. */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const expire = () => reject(new FetchRefusedError('timed out'));
    if (signal.aborted) return expire();
    signal.addEventListener('abort', expire, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', expire));
  });
}

type Checks = Required<Pick<FetchGuardOptions, 'allowedPorts' | 'blockList' | 'resolve'>>;

function checksOf(options: FetchGuardOptions): Checks {
  return {
    allowedPorts: options.allowedPorts ?? DEFAULT_ALLOWED_PORTS,
    blockList: options.blockList ?? DEFAULT_BLOCK_LIST,
    resolve: options.resolve ?? systemResolver,
  };
}

/** The address to dial for a URL, after every check; throws FetchRefusedError otherwise. */
async function checkedAddress(url: URL, options: Checks, signal: AbortSignal): Promise<LookupAddress> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`scheme ${url.protocol}`);
  if (url.username || url.password) throw new FetchRefusedError('credentials in the URL');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (!options.allowedPorts.includes(port)) throw new FetchRefusedError(`port ${port} is not allowed`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: LookupAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await beforeDeadline(options.resolve(host), signal);
    } catch (error) {
      throw error instanceof FetchRefusedError ? error : new FetchRefusedError(`${host} does not resolve`);
    }
  }
  if (!addresses.length) throw new FetchRefusedError(`${host} has no address`);
  const blocked = addresses.find(({ address }) => isBlockedAddress(address, options.blockList));
  if (blocked)
    throw new FetchRefusedError(
      blocked.address === host
        ? `blocked address ${host}`
        : `${host} resolves to the blocked address ${blocked.address}`,
    );
  return addresses[0];
}

/**
 * The checks alone, without connecting: the address `guardedFetch` would dial for this URL, or a FetchRefusedError.
 */
export async function checkUrl(rawUrl: string, options: FetchGuardOptions = {}): Promise<LookupAddress> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchRefusedError('not a URL');
  }
  return checkedAddress(url, checksOf(options), AbortSignal.timeout(options.timeoutMs ?? 10_000));
}

/** A lookup that answers the checked address whatever it is asked, in both of net.connect's calling forms. */
function pinnedLookup(pinned: LookupAddress) {
  return (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}

/**
 * GETs a caller-supplied URL through the guard (see the top of this file). Resolves with the body of a 200
 * answer; rejects with FetchRefusedError for every refusal and every failure.
 */
export async function guardedFetch(rawUrl: string, options: FetchGuardOptions = {}): Promise<FetchedResource> {
  const checks = checksOf(options);
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const signal = AbortSignal.timeout(timeoutMs);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchRefusedError('not a URL');
  }
  for (let hop = 0; hop <= maxRedirects; hop += 1) {
    const pinned = await checkedAddress(url, checks, signal);
    const agent = new Agent({
      connections: 1,
      pipelining: 0,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs, lookup: pinnedLookup(pinned) } as never,
    });
    try {
      const response = await request(url, {
        method: 'GET',
        dispatcher: agent,
        signal,
        headers: { accept: 'image/*, */*;q=0.5', 'user-agent': 'Switchyard-fetch' },
      });
      // Bodies given up on are destroyed; the abort they then report is expected.
      response.body.on('error', () => undefined);
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && location) {
        response.body.destroy();
        try {
          url = new URL(String(location), url);
        } catch {
          throw new FetchRefusedError('unreadable redirect');
        }
        continue;
      }
      if (response.statusCode !== 200) {
        response.body.destroy();
        throw new FetchRefusedError(`answered ${response.statusCode}`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        response.body.destroy();
        throw new FetchRefusedError(`declared ${declared} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          response.body.destroy();
          throw new FetchRefusedError(`larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return {
        contentType: String(response.headers['content-type'] ?? 'application/octet-stream'),
        body: Buffer.concat(chunks),
      };
    } catch (error) {
      if (error instanceof FetchRefusedError) throw error;
      const code = (error as { code?: string }).code;
      throw new FetchRefusedError(
        signal.aborted ? 'timed out' : `failed: ${code ?? (error as Error)?.name ?? 'error'}`,
      );
    } finally {
      void agent.destroy().catch(() => undefined);
    }
  }
  throw new FetchRefusedError(`more than ${maxRedirects} redirects`);
}
