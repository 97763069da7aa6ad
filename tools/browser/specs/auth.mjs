// Accounts and sessions through the dashboard's forms (docs/decisions.md#accounts-and-sessions).
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';

export const name = 'auth';

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const user = {
  name: `Browser Tester ${unique}`,
  email: `browser-${unique}@example.com`,
  password: `correct horse ${unique}`,
};

async function signIn(page, email, password) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function expectOverview(page) {
  await expectPath(page, '/');
  await expectVisible(page.getByRole('heading', { name: `Welcome, ${user.name}` }));
  await expectVisible(page.getByRole('banner').getByText(user.email), { what: 'the email in the header' });
}

export const tests = [
  {
    name: 'registering a new account lands on the overview, and signing out returns to sign-in',
    async run({ newPage }) {
      const page = await newPage();
      await page.goto('/register');
      await page.getByLabel('Name').fill(user.name);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await expectOverview(page);
      await expectVisible(page.getByRole('main').getByText(user.email), { what: 'the email on the overview' });

      // The session lives in the HttpOnly cookie only; the bearer token is not kept in the page.
      const stored = await page.evaluate(() => localStorage.length + sessionStorage.length);
      expectEqual(stored, 0, 'the number of web storage entries');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await expectPath(page, '/signin');
      await expectVisible(page.getByRole('button', { name: 'Sign in' }));

      // Signed out for real: the overview now sends us back to sign in.
      await page.goto('/');
      await expectPath(page, '/signin');
    },
  },
  {
    name: 'signing in with the same credentials lands on the overview',
    async run({ newPage }) {
      const page = await newPage();
      await page.goto('/signin');
      await signIn(page, user.email, user.password);
      await expectOverview(page);
    },
  },
  {
    name: 'a wrong password shows an error and stays on sign-in',
    async run({ newPage }) {
      const page = await newPage();
      await page.goto('/signin');
      await signIn(page, user.email, `${user.password}-wrong`);
      await expectVisible(page.getByRole('alert'), { what: 'the error alert' });
      await expectPath(page, '/signin');
    },
  },
  {
    name: 'registering with a short password shows the error under the Password field',
    async run({ newPage }) {
      const page = await newPage();
      await page.goto('/register');
      await page.getByLabel('Email').fill(`short-${unique}@example.com`);
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      const password = page.getByLabel('Password');
      await page
        .waitForFunction(
          () => document.querySelector('input[name="password"]')?.getAttribute('aria-invalid') === 'true',
          undefined,
          { timeout: 10_000 },
        )
        .catch(() => {
          throw new Error('expected the Password field to be marked invalid');
        });
      const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
      const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
      if (!errorId) throw new Error('expected the Password field to point at its error messages');
      await expectVisible(page.locator(`[id="${errorId}"]`), { what: 'the password error messages' });
      await expectPath(page, '/register');
    },
  },
  {
    name: 'registering a taken email shows an error',
    async run({ newPage }) {
      const page = await newPage();
      await page.goto('/register');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await expectVisible(page.getByRole('alert'), { what: 'the error alert' });
      await expectPath(page, '/register');
    },
  },
  {
    name: 'a signed-out visit to /keys goes through sign-in and back to /keys',
    async run({ newPage }) {
      const page = await newPage();
      await page.goto('/keys');
      await expectPath(page, '/signin?next=%2Fkeys');
      await signIn(page, user.email, user.password);
      await expectPath(page, '/keys');
      await expectVisible(page.getByRole('heading', { name: 'API keys', level: 1 }));
      await expectText(page.getByRole('main'), 'No API keys yet.');

      // Signed in, the sign-in page is pointless: it sends us to the overview.
      await page.goto('/signin');
      await expectOverview(page);
    },
  },
];
