import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BLOCKED_RANGES,
  blockListOf,
  checkUrl,
  FETCH_REFUSED_MESSAGE,
  FetchRefusedError,
  guardedFetch,
  isBlockedAddress,
  Resolver,
} from './fetch-guard';

/** An offline resolver: the names of the table, and a failure for anything else (never the real DNS). */
const NAMES: Record<string, Array<{ address: string; family: number }>> = {
  localhost: [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ],
  'localhost.': [{ address: '127.0.0.1', family: 4 }],
  'internal.example': [{ address: '10.0.0.5', family: 4 }],
  'metadata.example': [{ address: '169.254.169.254', family: 4 }],
  // One public and one private address: every address is checked, not just the first.
  'mixed.example': [
    { address: '93.184.216.34', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ],
  'v6private.example': [{ address: 'fd12:3456::1', family: 6 }],
  'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'scoped.example': [{ address: 'fe80::1%eth0', family: 6 }],
  'cgnat.example': [{ address: '100.100.100.100', family: 4 }],
  'empty.example': [],
  'public.example': [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ],
};
const resolve: Resolver = async (host) => {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

const REFUSED = [
  // IPv4 loopback in every spelling the URL parser accepts.
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://0177.0.0.1/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://127.1/',
  'http://127.0.0.1./',
  'http://%31%32%37.0.0.1/',
  'http://\uFF11\uFF12\uFF17.0.0.1/',
  // IPv6 loopback and IPv4 inside IPv6.
  'http://[::1]/',
  'http://[0000:0000:0000:0000:0000:0000:0000:0001]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[0:0:0:0:0:ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:8.8.8.8]/',
  'http://[::127.0.0.1]/',
  'http://[::ffff:0:7f00:1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://[64:ff9b::8.8.8.8]/',
  'http://[64:ff9b:1::a00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[2002:a00:1::1]/',
  'http://[2002:a9fe:a9fe::]/',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  // Site-local, unique local, link-local (also with a zone), multicast, unspecified.
  'http://[fec0::1]/',
  'http://[fd00::1]/',
  'http://[fc00::1]/',
  'http://[fe80::1]/',
  'http://[fe80::1%25eth0]/',
  'http://[ff02::1]/',
  'http://[::]/',
  'http://[100::1]/',
  'http://[2001:db8::1]/',
  // IPv4 private, shared, link-local, documentation, benchmarking, multicast, reserved, broadcast, this network.
  'http://0.0.0.0/',
  'http://0/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://172.31.255.255/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://192.0.0.8/',
  'http://192.0.2.1/',
  'http://198.51.100.1/',
  'http://203.0.113.1/',
  'http://198.18.0.1/',
  'http://224.0.0.1/',
  'http://239.255.255.250/',
  'http://240.0.0.1/',
  'http://255.255.255.255/',
  // Names resolving to blocked addresses (through the offline resolver), and names that do not resolve.
  'http://localhost/',
  'http://LOCALHOST./',
  'http://internal.example/',
  'http://metadata.example/',
  'http://mixed.example/',
  'http://v6private.example/',
  'http://mapped.example/',
  'http://scoped.example/',
  'http://cgnat.example/',
  'http://empty.example/',
  'http://nxdomain.example/',
  // Ports other than 80 and 443, other schemes, credentials, not URLs.
  'http://8.8.8.8:8080/',
  'http://8.8.8.8:22/',
  'https://8.8.8.8:444/',
  'http://public.example:6379/',
  'ftp://8.8.8.8/',
  'file:///etc/passwd',
  'gopher://8.8.8.8:70/',
  'data:image/png;base64,AAAA',
  'http://user:secret@8.8.8.8/',
  'not a url',
];

const ALLOWED: Array<[string, string]> = [
  ['http://8.8.8.8/', '8.8.8.8'],
  ['http://8.8.8.8:80/', '8.8.8.8'],
  ['https://1.1.1.1:443/x.png', '1.1.1.1'],
  ['https://93.184.216.34/image.png', '93.184.216.34'],
  ['http://[2606:4700::1111]/', '2606:4700::1111'],
  // 6to4 carrying a public address (8.8.8.8).
  ['http://[2002:808:808::1]/', '2002:808:808::1'],
  ['http://public.example/cat.png', '93.184.216.34'],
  ['HTTPS://PUBLIC.EXAMPLE/cat.png', '93.184.216.34'],
];

describe('the fetch guard', () => {
  it(`refuses ${REFUSED.length} forms of loopback, private, reserved, IPv4-in-IPv6, resolving and malformed targets, all with one message`, async () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(40);
    const outcomes = await Promise.all(
      REFUSED.map((url) =>
        checkUrl(url, { resolve }).then(
          (address) => ({ url, address }),
          (error: unknown) => ({ url, error }),
        ),
      ),
    );
    const accepted = outcomes.filter((outcome) => 'address' in outcome);
    expect(accepted).toEqual([]);
    for (const outcome of outcomes) {
      expect((outcome as { error: unknown }).error).toBeInstanceOf(FetchRefusedError);
      expect((outcome as { error: Error }).error.message).toBe(FETCH_REFUSED_MESSAGE);
    }
  });

  it.each(ALLOWED)('allows the public target %s and dials the address it checked', async (url, address) => {
    await expect(checkUrl(url, { resolve })).resolves.toMatchObject({ address });
  });

  it('allows another port only when FETCH_ALLOWED_PORTS lists it', async () => {
    await expect(checkUrl('https://public.example:8443/', { resolve })).rejects.toBeInstanceOf(FetchRefusedError);
    await expect(
      checkUrl('https://public.example:8443/', { resolve, allowedPorts: [443, 8443] }),
    ).resolves.toMatchObject({ address: '93.184.216.34' });
    await expect(checkUrl('http://public.example/', { resolve, allowedPorts: [8443] })).rejects.toBeInstanceOf(
      FetchRefusedError,
    );
  });

  it('checks resolved addresses in every textual form, zones included', () => {
    for (const address of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      'fe80::1%eth0',
      'FD00::1',
      '::',
      '',
      'nonsense',
      '2001::1',
    ])
      expect([address, isBlockedAddress(address)]).toEqual([address, true]);
    for (const address of ['8.8.8.8', '2606:4700::1111', '2a00:1450:4001:81c::200e'])
      expect([address, isBlockedAddress(address)]).toEqual([address, false]);
  });
});

describe('fetching through the fetch guard (a local server, loopback allowed for the test only)', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const withoutLoopback = blockListOf(
    BLOCKED_RANGES.filter((range) => range.why !== 'loopback' && range.network !== '0.0.0.0'),
  );
  // Names only the offline resolver knows: a fetch that reaches the server went to the checked address.
  let lookups: string[] = [];
  const localResolve: Resolver = async (host) => {
    lookups.push(host);
    if (host === 'images.test') return [{ address: '127.0.0.1', family: 4 }];
    return resolve(host);
  };
  const allowed = () => ({ resolve: localResolve, blockList: withoutLoopback, allowedPorts: [port], timeoutMs: 2_000 });

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/cat.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('png-bytes'));
      if (path === '/big.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(2048));
      if (path === '/to-cat') return res.writeHead(302, { location: `http://images.test:${port}/cat.png` }).end();
      if (path === '/to-metadata')
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (path === '/to-private-name')
        return res.writeHead(301, { location: `http://internal.example:${port}/cat.png` }).end();
      if (path === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (path === '/hang') return; // never answers
      res.writeHead(404).end('nothing here');
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  beforeEach(() => (lookups = []));

  it('fetches an allowed URL from the address it checked, resolving the name once', async () => {
    const fetched = await guardedFetch(`http://images.test:${port}/cat.png`, allowed());
    expect(fetched).toEqual({ contentType: 'image/png', body: Buffer.from('png-bytes') });
    expect(lookups).toEqual(['images.test']);
  });

  it('follows a redirect through the same checks', async () => {
    const fetched = await guardedFetch(`http://127.0.0.1:${port}/to-cat`, allowed());
    expect(fetched.body.toString()).toBe('png-bytes');
  });

  it('refuses, with one message, a redirect to a blocked target, too many redirects, an error status, a body too large and a silent server', async () => {
    const attempts = [
      guardedFetch(`http://127.0.0.1:${port}/to-metadata`, allowed()),
      guardedFetch(`http://127.0.0.1:${port}/to-private-name`, allowed()),
      guardedFetch(`http://127.0.0.1:${port}/to-file`, allowed()),
      guardedFetch(`http://127.0.0.1:${port}/loop`, allowed()),
      guardedFetch(`http://127.0.0.1:${port}/missing.png`, allowed()),
      guardedFetch(`http://127.0.0.1:${port}/big.png`, { ...allowed(), maxBytes: 1024 }),
      guardedFetch(`http://127.0.0.1:${port}/hang`, { ...allowed(), timeoutMs: 300 }),
    ];
    const errors = await Promise.all(
      attempts.map((attempt) =>
        attempt.then(
          () => null,
          (error: unknown) => error,
        ),
      ),
    );
    for (const error of errors) {
      expect(error).toBeInstanceOf(FetchRefusedError);
      expect((error as Error).message).toBe(FETCH_REFUSED_MESSAGE);
    }
    // The reasons differ, for the operator's debug log only.
    expect(new Set(errors.map((error) => (error as FetchRefusedError).reason)).size).toBe(errors.length);
  });

  it('answers a closed port and an open one alike, so a caller cannot scan ports', async () => {
    const closed = await guardedFetch('http://127.0.0.1:1/x.png', { ...allowed(), allowedPorts: [1] }).catch(
      (error: Error) => error.message,
    );
    const open = await guardedFetch(`http://127.0.0.1:${port}/missing.png`, allowed()).catch(
      (error: Error) => error.message,
    );
    expect(closed).toBe(open);
  });

  it('blocks loopback by default: the local server is never dialled', async () => {
    const before = connections;
    await expect(guardedFetch(`http://127.0.0.1:${port}/cat.png`, { allowedPorts: [port] })).rejects.toBeInstanceOf(
      FetchRefusedError,
    );
    await expect(
      guardedFetch(`http://images.test:${port}/cat.png`, { resolve: localResolve, allowedPorts: [port] }),
    ).rejects.toBeInstanceOf(FetchRefusedError);
    expect(connections).toBe(before);
  });
});
