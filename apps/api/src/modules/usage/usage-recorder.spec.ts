import { slowPool, ticks } from '../../../test/support/slow-pool';
import { MetricsService } from '../../common/metrics/metrics';
import { usageRecord } from '../../../test/support/usage-record';
import { UsageRecorder } from './usage-recorder';
import { UsageRepository } from './usage.repository';

const record = (n: number) => usageRecord('00000000-0000-4000-8000-000000000001', new Date(0), { callId: `req_${n}` });

describe('UsageRecorder batches', () => {
  it('writes what was queued when a flush starts; what arrives while it writes waits for the next batch', async () => {
    const db = slowPool();
    const recorder = new UsageRecorder(new UsageRepository(db.dataSource), new MetricsService());
    for (let n = 1; n <= 3; n += 1) recorder.record(record(n));
    const first = recorder.flush();
    await ticks();
    expect(db.writes).toEqual([['req_1', 'req_2', 'req_3']]);
    recorder.record(record(4));
    recorder.record(record(5));
    db.answerNext();
    await first;
    // Not another statement at once for the two latecomers (that made a batch per round trip under load).
    await ticks();
    expect(db.writes).toHaveLength(1);
    expect(recorder.pending).toBe(2);
    const second = recorder.flush();
    await ticks();
    db.answerNext();
    await second;
    expect(db.writes).toEqual([
      ['req_1', 'req_2', 'req_3'],
      ['req_4', 'req_5'],
    ]);
    expect(recorder.pending).toBe(0);
  });

  it('starts a flush when a full batch is queued, and writes at most 200 records per statement', async () => {
    const db = slowPool();
    const recorder = new UsageRecorder(new UsageRepository(db.dataSource), new MetricsService());
    for (let n = 1; n <= 199; n += 1) recorder.record(record(n));
    await ticks();
    expect(db.writes).toEqual([]);
    for (let n = 200; n <= 450; n += 1) recorder.record(record(n));
    await ticks();
    expect(db.writes.map((ids) => ids.length)).toEqual([200]);
    db.answerNext();
    await ticks();
    expect(db.writes.map((ids) => ids.length)).toEqual([200, 200]);
    db.answerNext();
    await ticks();
    expect(db.writes.map((ids) => ids.length)).toEqual([200, 200, 50]);
    db.answerNext();
    await ticks();
    expect(recorder.pending).toBe(0);
    expect(db.writes.flat()).toEqual(Array.from({ length: 450 }, (_, i) => `req_${i + 1}`));
  });
});
