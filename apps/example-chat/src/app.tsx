import { BalanceBadge, SignInButton, SwitchyardProvider, useSwitchyard } from '@switchyard/react';
import { useEffect, useState } from 'react';

import { Chat } from './chat';
import { loadSetup, markRegistrationUsed, type Setup } from './setup';

/** The example: where Switchyard is and which app this is, then the provider around the page. */
export function App() {
  const [setup, setSetup] = useState<Setup | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    loadSetup().then(setSetup, (error: Error) => setProblem(error.message));
  }, []);

  if (problem)
    return (
      <main className="page">
        <p role="alert">{problem}</p>
      </main>
    );
  if (!setup)
    return (
      <main className="page">
        <p role="status">Getting ready…</p>
      </main>
    );
  return (
    <SwitchyardProvider
      options={{ baseUrl: setup.switchyardUrl, clientId: setup.clientId, redirectUri: setup.redirectUri }}
    >
      <Page setup={setup} />
    </SwitchyardProvider>
  );
}

function Page({ setup }: { setup: Setup }) {
  const { status, user } = useSwitchyard();
  useEffect(() => {
    if (status === 'signed-in') markRegistrationUsed(setup.switchyardUrl);
  }, [status, setup.switchyardUrl]);
  return (
    <main className="page">
      <header className="top">
        <h1>Example Chat</h1>
        <div className="account">
          {status === 'signed-in' ? <span className="who">{user?.name ?? user?.handle ?? 'Signed in'}</span> : null}
          <BalanceBadge className="balance" aria-label="What you can spend here" />
          <SignInButton />
        </div>
      </header>
      {status === 'signed-in' ? (
        <Chat />
      ) : status === 'loading' ? (
        <p role="status">Signing you in…</p>
      ) : (
        <section className="intro">
          <p>
            A chat that runs on <strong>your</strong> Switchyard budget: sign in, allow this app (and cap what it may
            spend), and talk to any model your Switchyard offers.
          </p>
          <p className="muted">
            Switchyard at <code>{setup.switchyardUrl}</code>, this app is <code>{setup.clientId}</code>.
          </p>
        </section>
      )}
    </main>
  );
}
