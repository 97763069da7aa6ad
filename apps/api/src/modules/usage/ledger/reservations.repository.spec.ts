import type { DataSource } from 'typeorm';
import { ReservationsRepository } from './reservations.repository';

/** A data source whose pool answers each query with the next of `answers` (an error is thrown). */
function poolAnswering(answers: (Error | Record<string, unknown>[])[]) {
  const names: string[] = [];
  const query = async ({ name }: { name: string }) => {
    names.push(name);
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no answer left');
    if (answer instanceof Error) throw answer;
    return { rows: answer };
  };
  const dataSource = { driver: { master: { query } } } as unknown as DataSource;
  return { repository: new ReservationsRepository(dataSource), names };
}

const failure = (code: string) => Object.assign(new Error(code === '40P01' ? 'deadlock detected' : 'failed'), { code });
const held = [{ remaining: '900', amount: '100', tripped: null, balance: '1000', headroom: '800' }];
const input = {
  id: '00000000-0000-4000-8000-000000000001',
  requestId: null,
  userId: '00000000-0000-4000-8000-000000000002',
  apiKeyId: null,
  oauthClientId: null,
  worstMicros: 100,
  minimumMicros: 1,
  inputEstimateMicros: 1,
  ttlSeconds: 60,
};

describe('ReservationsRepository.reserve', () => {
  it('asks again when PostgreSQL failed the reservation to break a deadlock (or a serialization conflict)', async () => {
    const { repository, names } = poolAnswering([failure('40P01'), failure('40001'), held]);
    expect(await repository.reserve(input)).toEqual({
      amountMicros: 100,
      remainingMicros: 900,
      balanceMicros: 1000,
      headroomMicros: 800,
      tripped: null,
    });
    expect(names).toEqual(['sy_reserve', 'sy_reserve', 'sy_reserve']);
  });

  it('gives up after three deadlocks, and never retries any other error', async () => {
    const deadlocked = poolAnswering([failure('40P01'), failure('40P01'), failure('40P01'), held]);
    await expect(deadlocked.repository.reserve(input)).rejects.toThrow('deadlock detected');
    expect(deadlocked.names).toHaveLength(3);
    const broken = poolAnswering([failure('23505'), held]);
    await expect(broken.repository.reserve(input)).rejects.toMatchObject({ code: '23505' });
    expect(broken.names).toHaveLength(1);
  });
});
