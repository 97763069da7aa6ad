import {
  AuthorizationError,
  BudgetExhaustedError,
  errorFromBody,
  NotSignedInError,
  SwitchyardError,
  toSwitchyardError,
} from './errors.js';
import { jwtClaims, randomString, s256 } from './pkce.js';
import { browser, openPopup, POPUP_NAME, popupMessage, waitForPopup } from './popup.js';
import { pendingStorage, resolveStorage } from './storage.js';
import type {
  AppCaps,
  Balance,
  ClientOptions,
  Pending,
  SwitchyardOptions,
  SwitchyardState,
  SwitchyardStatus,
  SwitchyardUser,
  Tokens,
} from './types.js';

export type { AppCaps, Balance, ClientOptions, SwitchyardOptions, SwitchyardState, SwitchyardStatus, SwitchyardUser };

const CLIENT_ID_HEADER = 'X-Service-OAuth-Client-Id';
/** Sent where an SDK insists on a key; the SDK's fetch puts the user's token in its place. */
const PLACEHOLDER_KEY = 'switchyard-oauth';
const EXPIRY_MARGIN_MS = 30_000;

export type Switchyard = ReturnType<typeof createSwitchyard>;

/**
 * A Switchyard client for one app: sign-in with PKCE (popup or redirect), tokens kept and rotated, calls with
 * the user's token, the budget and the app's caps, and popups to add funds or raise a cap (docs/sdk.md).
 */
export function createSwitchyard(options: SwitchyardOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const baseOrigin = new URL(base).origin;
  const dashboard = (options.dashboardUrl ?? base).replace(/\/+$/, '');
  const dashboardOrigin = new URL(dashboard).origin;
  const clientId = options.clientId;
  const scopes = options.scopes ?? ['openid', 'profile', 'api:access'];
  const storage = resolveStorage(options.storage ?? (browser() ? 'session' : 'memory'));
  const pendingStore = pendingStorage(storage);
  const tokenKey = `switchyard:${clientId}:tokens`;
  const pendingKey = `switchyard:${clientId}:pending`;
  const listeners = new Set<(state: SwitchyardState) => void>();
  let refreshing: Promise<Tokens> | null = null;

  const doFetch = (input: string, init?: RequestInit) => (options.fetch ?? globalThis.fetch)(input, init);
  const redirectUri = () => {
    if (options.redirectUri) return options.redirectUri;
    const window = browser();
    if (!window) throw new SwitchyardError('redirectUri is required outside a browser');
    return window.location.origin + window.location.pathname;
  };

  const read = <T>(store: typeof storage, key: string): T | null => {
    try {
      return JSON.parse(store.getItem(key) ?? 'null') as T | null;
    } catch {
      return null;
    }
  };
  const load = () => read<Tokens>(storage, tokenKey);
  const state = (): SwitchyardState => {
    const tokens = load();
    return { status: tokens ? 'signed-in' : 'signed-out', user: tokens?.user ?? null };
  };
  const emit = () => {
    const current = state();
    for (const listener of listeners) listener(current);
  };
  const clear = () => {
    storage.removeItem(tokenKey);
    emit();
  };

  /** The token endpoint with the interface's JSON body; a refusal is an error with the server's code. */
  async function tokenRequest(body: Record<string, string>, previous: Tokens | null, nonce?: string): Promise<Tokens> {
    const res = await doFetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, clientId }),
    });
    const json = (await res.json().catch(() => ({}))) as Record<string, string | number | undefined>;
    if (!res.ok || typeof json.access_token !== 'string')
      throw new SwitchyardError(
        String(json.error_description ?? `The token endpoint answered ${res.status}`),
        res.status,
        String(json.error ?? 'token_error'),
      );
    let user = previous?.user ?? null;
    if (typeof json.id_token === 'string') {
      const claims = jwtClaims(json.id_token);
      if (claims.aud !== clientId || (nonce && claims.nonce !== nonce))
        throw new AuthorizationError('The ID token is not for this sign-in', undefined, 'invalid_id_token');
      user = {
        id: String(claims.sub),
        ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
        ...(typeof claims.preferred_username === 'string' ? { handle: claims.preferred_username } : {}),
        ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
      };
    }
    const tokens: Tokens = {
      accessToken: json.access_token,
      refreshToken: String(json.refresh_token ?? previous?.refreshToken ?? ''),
      expiresAt: Date.now() + Number(json.expires_in ?? 3600) * 1000,
      scope: String(json.scope ?? ''),
      user,
    };
    storage.setItem(tokenKey, JSON.stringify(tokens));
    return tokens;
  }

  /**
   * Refreshes once for everyone waiting (the refresh token rotates: two refreshes of it would fork the chain).
   * When another tab of a shared storage refreshed already, its tokens are taken instead. A refusal signs out.
   */
  function refreshOnce(stale: Tokens): Promise<Tokens> {
    const stored = load();
    if (stored && stored.refreshToken !== stale.refreshToken) return Promise.resolve(stored);
    refreshing ??= tokenRequest({ grantType: 'refresh_token', refreshToken: stale.refreshToken }, stale)
      .catch((error: unknown) => {
        if (error instanceof SwitchyardError && error.status !== undefined && error.status < 500) {
          clear();
          throw new NotSignedInError('The sign-in ended (the refresh was refused): call signIn()', error.status);
        }
        throw error;
      })
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  /** A popup's sign-in waits in this page's memory only: the page in the popup can never exchange its code. */
  let popupPending: Pending | null = null;

  /**
   * The authorization request to send the user to; its PKCE verifier, state and nonce are kept for the answer
   * (in the tab's sessionStorage, so that they survive the redirect).
   */
  async function createAuthorizationUrl(extra: Record<string, string> = {}): Promise<string> {
    const pending: Pending = {
      state: randomString(),
      verifier: randomString(),
      nonce: randomString(),
      redirectUri: redirectUri(),
    };
    if (extra.display === 'popup') popupPending = pending;
    else pendingStore.setItem(pendingKey, JSON.stringify(pending));
    const url = new URL(`${base}/oauth2/authorize`);
    const params: Record<string, string> = {
      client_id: clientId,
      response_type: 'code',
      redirect_uri: pending.redirectUri,
      scope: scopes.join(' '),
      state: pending.state,
      code_challenge: await s256(pending.verifier),
      code_challenge_method: 'S256',
      ...(scopes.includes('openid') ? { nonce: pending.nonce } : {}),
      ...extra,
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** The answer at the redirect URI: state checked (RFC 6749 10.12), then the code exchanged with PKCE. */
  async function complete(callback: URL, pending: Pending | null): Promise<SwitchyardUser | null> {
    const returned = callback.searchParams.get('state');
    if (!pending || returned !== pending.state)
      throw new AuthorizationError(
        'The sign-in answer does not match this sign-in (state)',
        undefined,
        'state_mismatch',
      );
    const iss = callback.searchParams.get('iss');
    if (iss !== null && iss.replace(/\/+$/, '') !== base)
      throw new AuthorizationError(`The answer came from another server (${iss})`, undefined, 'issuer_mismatch');
    const error = callback.searchParams.get('error');
    if (error) throw new AuthorizationError(callback.searchParams.get('error_description') ?? error, undefined, error);
    const tokens = await tokenRequest(
      {
        grantType: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        codeVerifier: pending.verifier,
        redirectUri: pending.redirectUri,
      },
      null,
      pending.nonce,
    );
    emit();
    return tokens.user;
  }

  const isCallback = (url: URL) =>
    url.searchParams.has('state') && (url.searchParams.has('code') || url.searchParams.has('error'));

  /**
   * A fetch to the Switchyard server with the user's token and the client-id header: a 401 refreshes once and
   * tries again; without a sign-in, or when the refresh is refused, NotSignedInError. `raw` answers any status
   * as a Response (what SDKs want); otherwise a budget refusal throws BudgetExhaustedError.
   */
  async function authorized(input: string | URL | Request, init: RequestInit = {}, raw = false): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : String(input), `${base}/`);
    // The user's token goes to this server only.
    if (url.origin !== baseOrigin) throw new SwitchyardError(`Refusing to send the user's token to ${url.origin}`);
    const request = input instanceof Request ? input : null;
    let tokens = load();
    if (!tokens) throw new NotSignedInError();
    if (tokens.expiresAt - EXPIRY_MARGIN_MS < Date.now()) tokens = await refreshOnce(tokens);
    const send = (current: Tokens) => {
      const headers = new Headers(init.headers ?? request?.headers);
      headers.delete('x-api-key');
      headers.set('authorization', `Bearer ${current.accessToken}`);
      headers.set(CLIENT_ID_HEADER, clientId);
      return doFetch(url.toString(), {
        method: request?.method,
        body: request?.body,
        ...init,
        headers,
        ...(request?.body || init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
      });
    };
    let res = await send(tokens);
    if (res.status === 401) {
      tokens = await refreshOnce(tokens);
      res = await send(tokens);
      if (res.status === 401) {
        clear();
        if (!raw) throw new NotSignedInError('The server refused the sign-in: call signIn()', 401);
      }
    }
    if (!raw && !res.ok) {
      const typed = errorFromBody(await res.clone().text(), res.status);
      if (typed) throw typed;
    }
    return res;
  }

  const json = async <T>(path: string): Promise<T> => {
    const res = await authorized(path);
    const body = (await res.json()) as { data: T; message?: string };
    if (!res.ok) throw new SwitchyardError(body.message ?? `${path} answered ${res.status}`, res.status);
    return body.data;
  };

  /** Opens a dashboard page for this app in a popup; resolves with the balance once the page says it is done. */
  async function dashboardPopup(path: string, kind: 'billing' | 'caps'): Promise<Balance> {
    const popup = openPopup();
    const url = new URL(dashboard + path);
    url.searchParams.set('popup', '1');
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('redirect_uri', redirectUri());
    popup.location.href = url.toString();
    await waitForPopup(popup, (event) =>
      event.origin === dashboardOrigin ? popupMessage(event.data, kind) : undefined,
    );
    return client.balance();
  }

  const client = {
    clientId,
    baseUrl: base,
    /** Signed in or out, and who. */
    get state(): SwitchyardState {
      return state();
    },
    /** Called with the state on every sign-in and sign-out; returns the unsubscribe function. */
    subscribe(listener: (state: SwitchyardState) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    createAuthorizationUrl,

    /**
     * Signs the user in: `popup` (default) resolves with the user once they allowed the app; `redirect` leaves
     * this page for the authorization (call `handleRedirect()` when the user is back). Call it from a click.
     */
    async signIn({ mode = 'popup' }: { mode?: 'popup' | 'redirect' } = {}): Promise<SwitchyardUser | null> {
      if (mode === 'redirect') {
        browser()?.location.assign(await createAuthorizationUrl());
        return new Promise<never>(() => undefined);
      }
      const popup = openPopup();
      try {
        popup.location.href = await createAuthorizationUrl({ display: 'popup' });
        const expected = redirectUri();
        const answer = await waitForPopup(
          popup,
          (event) => {
            const message = popupMessage(event.data, 'authorize');
            const fromHere = event.origin === browser()?.location.origin || event.origin === dashboardOrigin;
            return fromHere && message?.url?.startsWith(expected) ? message.url : undefined;
          },
          () => {
            try {
              // Same-origin once the popup is back at the redirect URI.
              const href = popup.location.href;
              return href.startsWith(expected) && isCallback(new URL(href)) ? href : undefined;
            } catch {
              return undefined;
            }
          },
        );
        popup.close();
        const pending = popupPending;
        popupPending = null;
        return await complete(new URL(answer), pending);
      } catch (error) {
        popup.close();
        throw error;
      }
    },

    /**
     * On the page at the redirect URI: finishes a sign-in whose answer is in `url` (default: this page's), and
     * returns the user; null when `url` is not an answer. In the sign-in popup it hands the answer to the opener
     * and closes itself.
     */
    async handleRedirect(url?: string): Promise<SwitchyardUser | null> {
      const window = browser();
      if (!url && !window) throw new SwitchyardError('handleRedirect needs the callback URL outside a browser');
      const callback = new URL(url ?? window!.location.href);
      if (!isCallback(callback)) return null;
      if (window && window.name === POPUP_NAME && window.opener) {
        window.opener.postMessage(
          { source: 'switchyard', kind: 'authorize', url: callback.toString() },
          window.location.origin,
        );
        window.close();
        return null;
      }
      const pending = read<Pending>(pendingStore, pendingKey);
      pendingStore.removeItem(pendingKey);
      const user = await complete(callback, pending);
      if (!url && window) window.history.replaceState(window.history.state, '', redirectUri());
      return user;
    },

    /** Ends the sign-in: both tokens revoked at the server (RFC 7009), then forgotten here. */
    async signOut(): Promise<void> {
      const tokens = load();
      clear();
      if (!tokens) return;
      await Promise.all(
        [tokens.refreshToken, tokens.accessToken].map((token) =>
          doFetch(`${base}/oauth2/revoke`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ token, client_id: clientId }).toString(),
          }).catch(() => undefined),
        ),
      );
    },

    /** fetch with the user's token; a budget refusal throws BudgetExhaustedError. */
    fetch: (input: string | URL | Request, init?: RequestInit) => authorized(input, init),

    /** For `new OpenAI(…)` and `createOpenAICompatible(…)`: the gateway at /v1 through the user's token. */
    openaiOptions(): ClientOptions {
      const headers = { [CLIENT_ID_HEADER]: clientId };
      return {
        baseURL: `${base}/v1`,
        apiKey: PLACEHOLDER_KEY,
        defaultHeaders: headers,
        headers,
        name: 'switchyard',
        fetch: (input: string | URL | Request, init?: RequestInit) => authorized(input, init, true),
        // The key in this object is a placeholder: the user's own short-lived token is added by `fetch`.
        dangerouslyAllowBrowser: true,
      };
    },

    /** For `new Anthropic(…)`: Anthropic's Messages API at /v1/messages through the user's token. */
    anthropicOptions(): ClientOptions {
      return { ...client.openaiOptions(), baseURL: base };
    },

    /** The user's remaining budget and what is left of this app's caps. */
    async balance(): Promise<Balance> {
      const [summary, app] = await Promise.all([
        json<{ remainingBudget: number; totalCost: number; maxBudget: number }>('/api/v1/usage/me/summary'),
        json<{ limits: AppCaps; remaining: AppCaps }>('/api/v1/oauth2/consents/current'),
      ]);
      const { total, daily, weekly, monthly } = app.remaining;
      const caps = [total, daily, weekly, monthly].filter((value): value is number => value !== null);
      return {
        remainingBudget: summary.remainingBudget,
        totalCost: summary.totalCost,
        maxBudget: summary.maxBudget,
        app: { limits: app.limits, remaining: app.remaining },
        available: Math.min(summary.remainingBudget, ...caps),
      };
    },

    /** Opens the dashboard's billing page in a popup; resolves with the new balance when the user added funds. */
    topUp: () => dashboardPopup('/billing', 'billing'),

    /** Opens this app's caps on the dashboard in a popup; resolves with the new balance once they are saved. */
    raiseCap: () => dashboardPopup(`/authorized-apps/${encodeURIComponent(clientId)}`, 'caps'),

    /**
     * Runs `call`; when the budget or one of the app's caps refuses it, opens the popup that fixes that (top-up or
     * caps) and, once the user is back with more room, runs `call` again (at most `attempts` more times).
     */
    async withBudgetRetry<T>(call: () => Promise<T>, { attempts = 1 }: { attempts?: number } = {}): Promise<T> {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await call();
        } catch (thrown) {
          const error = toSwitchyardError(thrown);
          if (!(error instanceof BudgetExhaustedError) || attempt >= attempts) throw error;
          await (error.kind === 'account' ? client.topUp() : client.raiseCap());
        }
      }
    },
  };
  return client;
}
