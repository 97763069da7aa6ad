import { LedgerService, ReconciliationService, ReservationService, UsageRecorder } from '../../src/modules/usage';
import type { TestApp } from './test-app';
import { uniqueEmail } from './test-app';

export const micros = (cost: number) => Math.round(cost * 1e6);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the money suites do with the apps they boot (money-attacks-*.e2e-spec.ts, hard-caps.e2e-spec.ts): users
 * with a credit and a key, waiting for every settlement to be written, each user's books, reconciliation, and a
 * client that hangs up mid-stream. `apps[0]` is the one whose database is read.
 */
export function moneySuite(apps: () => TestApp[]) {
  const first = () => apps()[0];

  async function newUser(creditMicros: number) {
    const registered = await first().http('/api/v1/auth/register', {
      body: { email: uniqueEmail('money'), password: 'money password' },
    });
    const session = registered.body.data.token as string;
    const userId = registered.body.data.user.id as string;
    if (creditMicros > 0)
      await first().app.get(LedgerService).credit(userId, creditMicros, 'admin_adjustment', 'test', `test:${userId}`);
    const created = (await first().http('/api/v1/keys', { token: session, body: { name: 'money key' } })).body.data;
    return { session, userId, key: created.key as string, keyId: created.id as string };
  }

  /** Every instance's queued settlements and usage records written. */
  async function flushed() {
    for (const running of apps()) {
      const reservations = running.app.get(ReservationService);
      for (let i = 0; i < 200 && reservations.unwrittenSettlements > 0; i += 1) await sleep(25);
      await reservations.flushSettlements();
      await running.app.get(UsageRecorder).flush();
    }
  }

  /** The user's balance, ledger and records once every call has settled and nothing is held. */
  async function money(userId: string) {
    await flushed();
    const db = first().database.dataSource;
    const read = async () =>
      (
        await db.query(
          'SELECT credits_micros::bigint AS credits, debits_micros::bigint AS debits, reserved_micros::bigint AS reserved FROM balances WHERE user_id = $1',
          [userId],
        )
      )[0];
    let balance = await read();
    for (let i = 0; i < 100 && Number(balance?.reserved ?? 0) > 0; i += 1) {
      await sleep(50);
      balance = await read();
    }
    const [records] = await db.query(
      'SELECT count(*)::int AS calls, COALESCE(sum(cost_micros), 0)::bigint AS cost FROM usage_records WHERE user_id = $1',
      [userId],
    );
    const [ledger] = await db.query(
      `SELECT COALESCE(-sum(amount_micros), 0)::bigint AS debits FROM ledger_entries WHERE user_id = $1 AND kind = 'usage'`,
      [userId],
    );
    const [lost] = await db.query(
      'SELECT count(*)::int AS calls, COALESCE(sum(lost_micros), 0)::bigint AS micros FROM operator_losses WHERE user_id = $1',
      [userId],
    );
    return {
      credits: Number(balance?.credits ?? 0),
      debits: Number(balance?.debits ?? 0),
      reserved: Number(balance?.reserved ?? 0),
      ledgerDebits: Number(ledger.debits),
      records: records.calls as number,
      recordCost: Number(records.cost),
      lostCalls: lost.calls as number,
      lostMicros: Number(lost.micros),
    };
  }

  async function noDrift(userId: string | null = null) {
    await flushed();
    const report = await first().app.get(ReconciliationService).reconcile(null, userId);
    expect(report.drifts).toEqual([]);
    return report;
  }

  /** The usage record of one call, once it is written (bounded wait: a hung-up call finishes on its own time). */
  async function recordOf(callId: string) {
    for (let i = 0; i < 200; i += 1) {
      await flushed();
      const [row] = await first().database.dataSource.query(
        `SELECT status, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
                cost_micros::bigint AS cost FROM usage_records WHERE call_id = $1`,
        [callId],
      );
      if (row)
        return {
          status: row.status as string,
          promptTokens: Number(row.prompt_tokens),
          completionTokens: Number(row.completion_tokens),
          cacheReadTokens: Number(row.cache_read_tokens),
          cacheWriteTokens: Number(row.cache_write_tokens),
          cacheWrite1hTokens: Number(row.cache_write_1h_tokens),
          cost: Number(row.cost),
        };
      await sleep(25);
    }
    throw new Error(`no usage record for call ${callId}`);
  }

  /**
   * Starts a stream, reads until `marker` appeared `times` times in what arrived, then hangs up. Resolves with the
   * call's id and the text read.
   */
  async function hangUpAfter(
    key: string,
    path: string,
    body: object,
    marker: string,
    times: number,
    headers: Record<string, string> = {},
    on: TestApp = first(),
  ): Promise<{ callId: string; text: string }> {
    const controller = new AbortController();
    const res = await fetch(`${on.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ stream: true, ...body }),
      signal: controller.signal,
    });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    const callId = res.headers.get('x-switchyard-call-id')!;
    const reader = res.body!.getReader();
    let text = '';
    while (text.split(marker).length - 1 < times) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    return { callId, text };
  }

  return { newUser, flushed, money, noDrift, recordOf, hangUpAfter };
}
