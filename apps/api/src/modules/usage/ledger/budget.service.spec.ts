import { slowPool, ticks } from '../../../../test/support/slow-pool';
import { MetricsService } from '../../../common/metrics/metrics';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import { loadConfig } from '../../../config/config';
import { BudgetService } from './budget.service';
import { LedgerRepository } from './ledger.repository';

function budgetOn(db: ReturnType<typeof slowPool>): BudgetService {
  const config = loadConfig({});
  return new BudgetService(new LedgerRepository(db.dataSource), new MetricsService(), new InvalidationBus(new RedisConnection(config), config), config);
}

const held = (id: string) => ({
  id,
  amountMicros: 100,
  request: { id, requestId: null, userId: 'u', apiKeyId: null, oauthClientId: null, worstMicros: 100, minimumMicros: 1, inputEstimateMicros: 0 },
});

describe('BudgetService settlement batches', () => {
  it('writes the settlements queued when a batch starts; latecomers wait for the next interval, not the next round trip', async () => {
    const db = slowPool();
    const budget = budgetOn(db);
    const settled = ['r1', 'r2', 'r3'].map((id) => budget.settle(held(id), 10, 'success'));
    const first = budget.flushSettlements();
    await ticks();
    expect(db.writes).toEqual([['r1', 'r2', 'r3']]);
    settled.push(budget.settle(held('r4'), 10, 'success'), budget.settle(held('r5'), 10, 'success'));
    db.answerNext();
    await first;
    await ticks();
    expect(db.writes).toHaveLength(1);
    // The interval (20 ms) started by the first latecomer writes them.
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(db.writes).toEqual([['r1', 'r2', 'r3'], ['r4', 'r5']]);
    db.answerNext();
    await Promise.all(settled);
  });
});
