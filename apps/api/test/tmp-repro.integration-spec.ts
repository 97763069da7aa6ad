import { startTestApp, uniqueEmail } from './support/test-app';

it('repro', async () => {
  const app = await startTestApp();
  try {
    const reg = await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('r'), password: 'repro password 1' } });
    const token = reg.body.data.token;
    const a = await app.http('/api/v1/oauth2/consents', { token, headers: { accept: 'image/*;q=0', cookie: 'aaaaaaaaaaaaaaaaaaaa' } });
    console.log('consents', a.status, JSON.stringify(a.body).slice(0, 300));
    await app.http('/api/v1/spaces/handle', { method: 'PUT', token, body: { handle: 'ann' } });
    const b = await app.http('/api/v1/spaces/ann/edit', { method: 'PUT', token, rawBody: '\uFEFF{}', headers: { 'x-forwarded-for': '::1' } });
    console.log('edit', b.status, JSON.stringify(b.body).slice(0, 300));
    const c = await app.http('/api/v1/spaces/ann/edit', { method: 'PUT', token, body: {} });
    console.log('edit2', c.status, JSON.stringify(c.body).slice(0, 300));
  } finally {
    await app.close();
  }
});
