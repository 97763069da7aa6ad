// Where Switchyard is, and this app's client id: what an app maker puts in their config. So that the example runs
// with nothing to set up, it asks the server that serves it (/config.json) where Switchyard is, and registers
// itself there on its first visit (RFC 7591 dynamic registration) unless a client id is given.

export interface Setup {
  switchyardUrl: string;
  clientId: string;
  redirectUri: string;
}

interface Registration {
  clientId: string;
  registeredAt: number;
}

/** A registration that never got a token is forgotten by the server after 24 hours; ask again before that. */
const REGISTRATION_LIFETIME_MS = 20 * 3600_000;

async function switchyardUrl(): Promise<string> {
  const given = new URLSearchParams(location.search).get('switchyard');
  if (given) return given.replace(/\/+$/, '');
  try {
    const res = await fetch('/config.json');
    if (res.ok) return ((await res.json()) as { switchyardUrl: string }).switchyardUrl.replace(/\/+$/, '');
  } catch {
    // The Vite dev server has no /config.json.
  }
  return (import.meta.env.VITE_SWITCHYARD_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
}

const storageKey = (url: string) => `example-chat:client:${url}`;

/** Remembers that the registration got its first token: it will not be forgotten by the server any more. */
export function markRegistrationUsed(url: string): void {
  const saved = JSON.parse(localStorage.getItem(storageKey(url)) ?? 'null') as Registration | null;
  if (saved) localStorage.setItem(storageKey(url), JSON.stringify({ ...saved, registeredAt: Number.MAX_SAFE_INTEGER }));
}

export function forgetRegistration(url: string): void {
  localStorage.removeItem(storageKey(url));
}

export async function loadSetup(): Promise<Setup> {
  const url = await switchyardUrl();
  const redirectUri = `${location.origin}/`;
  const given = new URLSearchParams(location.search).get('client_id') ?? localStorage.getItem('example-chat:client-id');
  if (given) return { switchyardUrl: url, clientId: given, redirectUri };
  const saved = JSON.parse(localStorage.getItem(storageKey(url)) ?? 'null') as Registration | null;
  if (saved && Date.now() - saved.registeredAt < REGISTRATION_LIFETIME_MS)
    return { switchyardUrl: url, clientId: saved.clientId, redirectUri };
  const res = await fetch(`${url}/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Example Chat',
      redirect_uris: [redirectUri],
      scope: 'openid profile api:access',
      token_endpoint_auth_method: 'none',
    }),
  });
  const body = (await res.json()) as { client_id?: string; error_description?: string };
  if (!res.ok || !body.client_id)
    throw new Error(
      `Registering this app at ${url} failed: ${body.error_description ?? res.status}. Register it on the OAuth apps page with the redirect URI ${redirectUri} and open this page with ?client_id=…`,
    );
  localStorage.setItem(storageKey(url), JSON.stringify({ clientId: body.client_id, registeredAt: Date.now() }));
  return { switchyardUrl: url, clientId: body.client_id, redirectUri };
}
