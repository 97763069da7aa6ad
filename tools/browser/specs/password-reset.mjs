// Forgot password, by mail (issue 33), at desktop and phone width: "Forgot password?" on the sign-in form, the
// request (the same answer for any address), the mail's single-use link (read from DATA_DIR/mail, where mail goes
// without SMTP_URL), a new password chosen on the reset page (the token taken out of the address bar), sign-in
// with it; the link refused a second time; the verification link from the registration mail; the alerts on Settings.
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { mailTo } from '../mail.mjs';
import { DEVICES, noHorizontalScroll, screenshot } from '../devices.mjs';

export const name = 'password reset';

async function register(baseUrl, user) {
  const res = await fetch(`${baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
    signal: AbortSignal.timeout(10_000),
  });
  expectEqual(res.status, 201, 'registering through the API');
}

export const tests = DEVICES.map((device) => ({
  name: `forgot password at ${device.label} width: the link by mail, a new password, signed in with it`,
  async run({ newPage, baseUrl, dataDir }) {
    const { label, ...options } = device;
    const unique = `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const user = { email: `reset-${unique}@example.com`, password: `old password ${unique}` };
    await register(baseUrl, user);
    const page = await newPage(options);

    await page.goto('/signin');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expectPath(page, '/forgot-password');
    await expectVisible(page.getByRole('heading', { name: 'Forgot your password?' }));
    await page.getByLabel('Email').fill(user.email.toUpperCase());
    await noHorizontalScroll(page, `/forgot-password at ${device.viewport.width} px`);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await expectText(page.getByRole('status'), 'a link to reset its password is on its way');
    await screenshot(page, `forgot-password-${label}.png`);

    const mail = await mailTo(dataDir, user.email, 'password_reset');
    expectEqual(mail.subject, 'Reset your Switchyard password', 'the subject');
    const link = new URL(mail.link);
    expectEqual(link.pathname, '/reset-password', 'the link’s page');
    await page.goto(link.pathname + link.hash);
    await expectVisible(page.getByRole('heading', { name: 'Choose a new password' }));
    expectEqual(new URL(page.url()).hash, '', 'the token taken out of the address bar');
    const form = page.getByRole('form', { name: 'Choose a new password' });
    await form.getByLabel('New password', { exact: true }).fill(`new password ${unique}`);
    await form.getByLabel('New password again').fill('something else');
    await form.getByRole('button', { name: 'Set the new password' }).click();
    await expectText(form, 'The two passwords are not the same.');
    await form.getByLabel('New password again').fill(`new password ${unique}`);
    await noHorizontalScroll(page, `/reset-password at ${device.viewport.width} px`);
    await screenshot(page, `reset-password-${label}.png`);
    await form.getByRole('button', { name: 'Set the new password' }).click();
    await expectText(page.getByRole('status'), 'Your password is changed');
    await page.getByRole('link', { name: 'Sign in with it' }).click();
    await expectPath(page, '/signin');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(`new password ${unique}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectPath(page, '/');

    // The link works once.
    const again = await newPage(options);
    await again.goto(link.pathname + link.hash);
    await again.getByLabel('New password', { exact: true }).fill(`third password ${unique}`);
    await again.getByLabel('New password again').fill(`third password ${unique}`);
    await again.getByRole('button', { name: 'Set the new password' }).click();
    await expectText(again.getByRole('main'), 'was used already');
    await expectVisible(again.getByRole('link', { name: 'Ask for a new link' }));

    // The registration's verification mail verifies the address; Settings says so.
    const verify = new URL((await mailTo(dataDir, user.email, 'verify_email')).link);
    await page.goto(verify.pathname + verify.hash);
    await expectText(page.getByRole('status'), `${user.email} is verified`);
    await page.goto('/settings');
    const email = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Email', exact: true }) });
    await expectText(email, 'Verified');

    // The budget alerts' thresholds: checked in the page, saved, kept.
    const alerts = page.getByRole('form', { name: 'Alerts' });
    await expectVisible(alerts.getByLabel('Mail me when my balance falls below'));
    await alerts.getByLabel('Mail me when a key or an app reaches this % of a limit').fill('150');
    await alerts.getByRole('button', { name: 'Save alerts' }).click();
    await expectText(alerts, 'Enter a whole number from 1 to 100');
    await alerts.getByLabel('Mail me when my balance falls below').fill('2.5');
    await alerts.getByLabel('Mail me when a key or an app reaches this % of a limit').fill('');
    await alerts.getByRole('button', { name: 'Save alerts' }).click();
    await expectText(alerts, 'Your alerts are saved.');
    await page.reload();
    expectEqual(
      await page.getByRole('form', { name: 'Alerts' }).getByLabel('Mail me when my balance falls below').inputValue(),
      '2.5',
      'the low-balance threshold after a reload',
    );
    await noHorizontalScroll(page, `/settings at ${device.viewport.width} px`);
  },
}));
