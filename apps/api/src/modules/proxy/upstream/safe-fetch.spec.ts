import { isForbiddenAddress, safeFetch, SafeFetchError } from './safe-fetch';

describe('the guarded fetcher', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1'])(
    'refuses %s',
    (address) => expect(isForbiddenAddress(address)).toBe(true),
  );

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111'])('allows %s', (address) => expect(isForbiddenAddress(address)).toBe(false));

  it('refuses a URL whose name resolves to a private address, before connecting', async () => {
    await expect(safeFetch('http://internal.example/x.png', { resolve: async () => [{ address: '10.0.0.5', family: 4 }] })).rejects.toBeInstanceOf(SafeFetchError);
    await expect(safeFetch('http://127.0.0.1:1/x.png')).rejects.toBeInstanceOf(SafeFetchError);
    await expect(safeFetch('http://[::1]:1/x.png')).rejects.toBeInstanceOf(SafeFetchError);
    await expect(safeFetch('file:///etc/passwd')).rejects.toBeInstanceOf(SafeFetchError);
  });
});
