import { createSwitchyard, memoryStorage } from '@switchyard/sdk';
import { renderToStaticMarkup } from 'react-dom/server';
import { BalanceBadge, formatMoney, SignInButton, SwitchyardProvider, TopUpButton, useSwitchyard } from './index.js';

function client(signedIn: boolean) {
  const storage = memoryStorage();
  if (signedIn)
    storage.setItem(
      'switchyard:app-1:tokens',
      JSON.stringify({
        accessToken: 'a',
        refreshToken: 'r',
        expiresAt: Date.now() + 60_000,
        scope: '',
        user: { id: 'u1', name: 'Ann' },
      }),
    );
  return createSwitchyard({
    baseUrl: 'https://sy.example',
    clientId: 'app-1',
    redirectUri: 'https://app.example/',
    storage,
  });
}

function Who() {
  const { status, user } = useSwitchyard();
  return (
    <p>
      {status}:{user?.name ?? 'nobody'}
    </p>
  );
}

const render = (signedIn: boolean, children: React.ReactNode, handleRedirect = false) =>
  renderToStaticMarkup(
    <SwitchyardProvider client={client(signedIn)} handleRedirect={handleRedirect}>
      {children}
    </SwitchyardProvider>,
  );

describe('the React components', () => {
  it('signed out: a real button to sign in, themed by CSS variables; no balance, no top-up', () => {
    const html = render(false, [
      <SignInButton key="b" />,
      <BalanceBadge key="c" />,
      <TopUpButton key="t" />,
      <Who key="w" />,
    ]);
    expect(html).toContain('<button type="button"');
    expect(html).toContain('Sign in with Switchyard');
    expect(html).toContain('var(--sy-accent, #4338ca)');
    expect(html).toContain('var(--sy-radius, 8px)');
    expect(html).not.toContain('role="status"');
    expect(html).not.toContain('Add funds');
    expect(html).toContain('<p>signed-out:nobody</p>');
  });

  it('signed in: the user, a sign-out button and the top-up buttons for the account and the app', () => {
    const html = render(true, [
      <SignInButton key="b" signOutLabel="Leave" />,
      <TopUpButton key="t" />,
      <TopUpButton key="a" limit="app" />,
      <Who key="w" />,
    ]);
    expect(html).toContain('Leave');
    expect(html).toContain('Add funds');
    expect(html).toContain('Raise this app’s cap');
    expect(html).toContain('<p>signed-in:Ann</p>');
  });

  it('is busy (disabled) while a sign-in that came back to the page is finished', () => {
    const html = render(false, <SignInButton />, true);
    expect(html).toMatch(/<button[^>]*disabled=""/);
    expect(
      renderToStaticMarkup(
        <SwitchyardProvider client={client(false)}>
          <Who />
        </SwitchyardProvider>,
      ),
    ).toContain('loading');
  });

  it('says money as it is: under a cent with its digits, never $0.00 for something', () => {
    expect(formatMoney(4.98)).toBe('$4.98');
    expect(formatMoney(0.000214)).toBe('$0.00021');
    expect(formatMoney(0)).toBe('$0.00');
  });

  it('refuses useSwitchyard() outside the provider', () => {
    expect(() => renderToStaticMarkup(<Who />)).toThrow('SwitchyardProvider');
  });
});
