import {
  type Balance,
  createSwitchyard,
  type Switchyard,
  type SwitchyardOptions,
  type SwitchyardState,
  type SwitchyardUser,
} from '@switchyard/sdk';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';

/** How often a shown balance is read again (the interface asks for 5 to 10 minutes). */
const BALANCE_REFRESH_MS = 5 * 60_000;

export interface SwitchyardContextValue {
  client: Switchyard;
  /** `loading` until a sign-in that came back to this page is finished. */
  status: SwitchyardState['status'] | 'loading';
  user: SwitchyardUser | null;
  /** The user's budget and this app's caps; null while signed out or not read yet. */
  balance: Balance | null;
  /** The last error of a sign-in, sign-out or balance read. */
  error: unknown;
  refreshBalance: () => Promise<void>;
  signIn: (mode?: 'popup' | 'redirect') => Promise<void>;
  signOut: () => Promise<void>;
  topUp: () => Promise<void>;
  raiseCap: () => Promise<void>;
}

const SwitchyardContext = createContext<SwitchyardContextValue | null>(null);

/** A sign-in answer is used once per client, however often React runs the effect (StrictMode runs it twice). */
const redirects = new WeakMap<Switchyard, Promise<unknown>>();
function handleRedirectOnce(client: Switchyard): Promise<unknown> {
  let handled = redirects.get(client);
  if (!handled) redirects.set(client, (handled = client.handleRedirect()));
  return handled;
}

export type SwitchyardProviderProps = ({ client: Switchyard } | { options: SwitchyardOptions }) & {
  children?: ReactNode;
  /** Finish a sign-in whose answer is in this page's address (default true). */
  handleRedirect?: boolean;
};

/** Gives its children the client, the sign-in state and the balance (`useSwitchyard()`). */
export function SwitchyardProvider(props: SwitchyardProviderProps) {
  const given = 'client' in props ? props.client : null;
  const options = 'options' in props ? props.options : null;
  // Options make one client for the provider's life.
  const [client] = useState(() => given ?? createSwitchyard(options!));
  const [state, setState] = useState<SwitchyardState>(() => client.state);
  const [finishing, setFinishing] = useState(props.handleRedirect !== false);
  const [balance, setBalance] = useState<Balance | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => client.subscribe(setState), [client]);
  useEffect(() => {
    if (!finishing) return;
    handleRedirectOnce(client)
      .catch(setError)
      .finally(() => setFinishing(false));
  }, [client, finishing]);

  const refreshBalance = useCallback(async () => {
    try {
      setBalance(await client.balance());
    } catch (thrown) {
      setError(thrown);
    }
  }, [client]);

  const signedIn = state.status === 'signed-in';
  useEffect(() => {
    if (!signedIn) return;
    const read = () => void client.balance().then(setBalance, setError);
    read();
    const timer = setInterval(read, BALANCE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [signedIn, client]);

  const value = useMemo<SwitchyardContextValue>(() => {
    const attempt = (run: () => Promise<unknown>) => async () => {
      setError(null);
      try {
        const result = await run();
        if (result && typeof result === 'object' && 'available' in result) setBalance(result as Balance);
      } catch (thrown) {
        setError(thrown);
        throw thrown;
      }
    };
    return {
      client,
      status: finishing ? 'loading' : state.status,
      user: state.user,
      // A balance read before a sign-out is not shown after it.
      balance: state.status === 'signed-in' ? balance : null,
      error,
      refreshBalance,
      signIn: (mode = 'popup') => attempt(() => client.signIn({ mode }))(),
      signOut: attempt(() => client.signOut()),
      topUp: attempt(() => client.topUp()),
      raiseCap: attempt(() => client.raiseCap()),
    };
  }, [client, finishing, state, balance, error, refreshBalance]);

  return <SwitchyardContext.Provider value={value}>{props.children}</SwitchyardContext.Provider>;
}

/** The client, `status`, `user`, `balance` and the actions, inside a `<SwitchyardProvider>`. */
export function useSwitchyard(): SwitchyardContextValue {
  const value = useContext(SwitchyardContext);
  if (!value) throw new Error('useSwitchyard() needs a <SwitchyardProvider> above it');
  return value;
}
