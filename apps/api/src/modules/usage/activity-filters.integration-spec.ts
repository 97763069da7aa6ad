import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { usageRecord } from '../../../test/support/usage-record';
import { UsageRecorder, UsageRecordInput } from './usage-recorder';

const HOUR_MS = 3_600_000;

async function newUser(app: TestApp, name: string) {
  const registered = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail(name), password: `${name} password` },
  });
  const session = registered.body.data.token as string;
  const keyId = (await app.http('/api/v1/keys', { token: session, body: { name: `${name} key` } })).body.data
    .id as string;
  return { userId: registered.body.data.user.id as string, session, keyId };
}

interface Item {
  id: string;
  requestId: string;
  model: string;
  status: string;
  apiKeyId: string | null;
  appId: string | null;
  firstByteMs: number | null;
}

describe('the activity filters (GET /api/v1/usage/me/activity)', () => {
  let app: TestApp;
  let recorder: UsageRecorder;
  beforeAll(async () => {
    app = await startTestApp();
    recorder = app.app.get(UsageRecorder);
  });
  afterAll(() => app?.close());

  async function write(...records: UsageRecordInput[]) {
    for (const r of records) recorder.record(r);
    await recorder.flush();
  }

  async function activity(session: string, query: string): Promise<{ status: number; items: Item[]; next: string }> {
    const res = await app.http(`/api/v1/usage/me/activity?${query}`, { token: session });
    return { status: res.status, items: res.body.data?.items ?? [], next: res.body.data?.nextCursor ?? null };
  }

  // Now, an hour ago, a day ago and 40 days ago (another monthly partition), across a key, an app and models.
  async function history() {
    const owner = await newUser(app, 'activity');
    const now = Date.now();
    const at = (ago: number) => new Date(now - ago);
    const byKey = { apiKeyId: owner.keyId, credentialName: 'activity key' };
    const byApp = { oauthClientId: 'app_activity_test', credentialName: 'Activity app' };
    const records = [
      usageRecord(owner.userId, at(1000), { ...byKey, firstByteAt: now - 1000 + 42 }),
      usageRecord(owner.userId, at(HOUR_MS), { ...byApp, model: 'demo-embedding' }),
      usageRecord(owner.userId, at(24 * HOUR_MS), {
        ...byKey,
        status: 'upstream_error',
        httpStatus: 502,
        errorCode: 'upstream_error',
      }),
      usageRecord(owner.userId, at(40 * 24 * HOUR_MS), { ...byApp, status: 'rejected', httpStatus: 400 }),
    ];
    await write(...records);
    return { owner, records, now };
  }

  it('filters by key, app, model and status, and combines them', async () => {
    const { owner, records } = await history();
    const ids = (items: Item[]) => items.map((item) => item.requestId);
    const [recent, embedding, failed, old] = records.map((r) => r.requestId);
    expect(ids((await activity(owner.session, '')).items)).toEqual([recent, embedding, failed, old]);
    expect(ids((await activity(owner.session, `keyId=${owner.keyId}`)).items)).toEqual([recent, failed]);
    expect(ids((await activity(owner.session, 'appId=app_activity_test')).items)).toEqual([embedding, old]);
    expect(ids((await activity(owner.session, 'model=demo-embedding')).items)).toEqual([embedding]);
    expect(ids((await activity(owner.session, 'status=error')).items)).toEqual([failed, old]);
    expect(ids((await activity(owner.session, 'status=rejected')).items)).toEqual([old]);
    expect(ids((await activity(owner.session, 'status=success&appId=app_activity_test')).items)).toEqual([embedding]);
    const first = (await activity(owner.session, 'limit=1')).items[0];
    expect(first).toMatchObject({ apiKeyId: owner.keyId, appId: null, firstByteMs: 42 });
    expect((await activity(owner.session, 'appId=app_activity_test')).items[0]).toMatchObject({
      apiKeyId: null,
      appId: 'app_activity_test',
      firstByteMs: null,
    });
  });

  it('keeps to the window [from, to), across monthly partitions, and a bare date as to means that whole day', async () => {
    const { owner, records, now } = await history();
    const ids = (items: Item[]) => items.map((item) => item.requestId);
    const iso = (ms: number) => new Date(ms).toISOString();
    const last2Days = await activity(owner.session, `from=${iso(now - 2 * 24 * HOUR_MS)}`);
    expect(ids(last2Days.items)).toEqual(records.slice(0, 3).map((r) => r.requestId));
    const olderThan2Days = await activity(owner.session, `to=${iso(now - 2 * 24 * HOUR_MS)}`);
    expect(ids(olderThan2Days.items)).toEqual([records[3].requestId]);
    const oldDay = iso(now - 40 * 24 * HOUR_MS).slice(0, 10);
    expect(ids((await activity(owner.session, `from=${oldDay}&to=${oldDay}`)).items)).toEqual([records[3].requestId]);
    // The start is inclusive, the end exclusive.
    const exact = records[1].startedAt.toISOString();
    expect(ids((await activity(owner.session, `from=${exact}&to=${iso(now)}`)).items)).toEqual(
      records.slice(0, 2).map((r) => r.requestId),
    );
    expect((await activity(owner.session, `to=${exact}&from=${exact}`)).items).toEqual([]);
    // Paged with the same filters, the cursor goes on inside the window.
    const page1 = await activity(owner.session, `limit=1&status=error&from=${iso(now - 50 * 24 * HOUR_MS)}`);
    expect(ids(page1.items)).toEqual([records[2].requestId]);
    const page2 = await activity(
      owner.session,
      `limit=1&status=error&from=${iso(now - 50 * 24 * HOUR_MS)}&cursor=${page1.next}`,
    );
    expect(ids(page2.items)).toEqual([records[3].requestId]);
    expect(page2.next).toBeNull();
  });

  it("matches nothing with another user's key or app, and never shows another user's calls", async () => {
    const { owner } = await history();
    const other = await newUser(app, 'intruder');
    await write(usageRecord(other.userId, new Date(), { oauthClientId: 'app_activity_test' }));
    expect((await activity(other.session, `keyId=${owner.keyId}`)).items).toEqual([]);
    const otherApp = await activity(other.session, 'appId=app_activity_test');
    expect(otherApp.items).toHaveLength(1);
    const ownerAppCalls = (await activity(owner.session, 'appId=app_activity_test')).items;
    expect(ownerAppCalls).toHaveLength(2);
    expect(ownerAppCalls.map((i) => i.id)).not.toContain(otherApp.items[0].id);
  });

  it('records the time to first byte of a real call, within its latency, and of a stream too', async () => {
    const owner = await newUser(app, 'firstbyte');
    const key = (await app.http('/api/v1/keys', { token: owner.session, body: { name: 'first byte key' } })).body.data
      .key as string;
    const chat = { model: 'demo-chat', messages: [{ role: 'user', content: 'Hello first byte' }] };
    for (const stream of [false, true])
      expect((await app.http('/v1/chat/completions', { token: key, body: { ...chat, stream } })).status).toBe(200);
    await recorder.flush();
    const res = await app.http('/api/v1/usage/me/activity', { token: owner.session });
    const items = res.body.data.items as (Item & { latencyMs: number; stream: boolean })[];
    expect(items.map((item) => item.stream)).toEqual([true, false]);
    for (const item of items) {
      expect(typeof item.firstByteMs).toBe('number');
      expect(item.firstByteMs).toBeGreaterThanOrEqual(0);
      expect(item.firstByteMs).toBeLessThanOrEqual(item.latencyMs);
    }
  });

  it('refuses malformed filters with 400 and names the field', async () => {
    const { owner } = await history();
    for (const query of [
      'keyId=not-a-uuid',
      'keyId=1%27%20OR%201=1',
      'status=failed',
      'from=yesterday',
      'to=2026-13-40',
      `model=${'m'.repeat(201)}`,
      `appId=${'a'.repeat(201)}`,
      'limit=0',
      'limit=-5',
    ]) {
      const res = await app.http(`/api/v1/usage/me/activity?${query}`, { token: owner.session });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(JSON.stringify(res.body.error.details)).toContain(query.split('=')[0]);
    }
    // A well-formed key id that is no one's matches nothing.
    expect((await activity(owner.session, 'keyId=00000000-0000-4000-8000-000000000000')).items).toEqual([]);
  });
});
