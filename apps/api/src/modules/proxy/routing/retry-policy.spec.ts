import { modelWith } from '../../../../test/support/deployments';
import { AppException } from '../../../common/errors/app.exception';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { tryCandidates } from './attempt-loop';
import type { Candidate } from './balancer';
import { CallAttempts } from './retry-policy';
import type { RoutedAttempt } from './router';

const model = modelWith(['p1', 'p2', 'p3', 'p4', 'p5'].map((provider) => ({ provider })));
const candidates: Candidate[] = model.deployments.map((deployment) => ({ deployment, probe: false }));
const failed = () => new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider failed (status 503)');
const steady = { firstByteSent: false, aborted: false };

/** Runs the loop with each provider answering as `answers` says (an error thrown, or its id returned). */
async function loop(
  answers: Record<string, unknown>,
  options: { budget?: number; list?: Candidate[]; taken?: string[] } = {},
) {
  const sent: string[] = [];
  const ended: [string, unknown][] = [];
  const attempts = new CallAttempts(options.budget);
  const result = await tryCandidates(options.list ?? candidates, attempts, {
    begin: async (candidate) =>
      options.taken?.includes(candidate.deployment.provider.id)
        ? null
        : ({ candidate, attempt: { key: candidate.deployment.key } } as RoutedAttempt),
    send: async (candidate) => {
      const id = candidate.deployment.provider.id;
      sent.push(id);
      const answer = answers[id] ?? id;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    end: async (routed, error) => void ended.push([routed.candidate.deployment.provider.id, error]),
    state: () => steady,
  });
  return { result, sent, ended, attempts };
}

describe('retries', () => {
  it('retries a provider’s failure on the next deployment, within the budget of two retries', async () => {
    const two = await loop({ p1: failed(), p2: failed() });
    expect(two.sent).toEqual(['p1', 'p2', 'p3']);
    expect(two.result).toMatchObject({ answered: true, value: 'p3' });
    expect(two.ended.map(([id, error]) => [id, error === null])).toEqual([
      ['p1', false],
      ['p2', false],
      ['p3', true],
    ]);
    const spent = await loop({ p1: failed(), p2: failed(), p3: failed() });
    expect(spent.sent).toEqual(['p1', 'p2', 'p3']);
    expect(spent.result).toMatchObject({ answered: false, retry: false });
    expect(spent.attempts.attempts).toBe(3);
    expect((await loop({ p1: failed() }, { budget: 0 })).sent).toEqual(['p1']);
  });

  it('never retries the caller’s own error', async () => {
    const refused = new AppException('INVALID_REQUEST', 400, 'messages is required');
    const { sent, result } = await loop({ p1: refused });
    expect(sent).toEqual(['p1']);
    expect(result).toEqual({ answered: false, error: refused, retry: false });
  });

  it('never tries the same deployment twice in one call, even when it is listed again', async () => {
    const again = [...candidates.slice(0, 2), candidates[0], candidates[1]];
    const { sent, result } = await loop({ p1: failed(), p2: failed() }, { list: again, budget: 5 });
    expect(sent).toEqual(['p1', 'p2']);
    expect(result).toMatchObject({ answered: false, retry: true }); // the call may go on to a fallback model
    // A later list (a fallback model's) with the same deployment skips it too.
    const attempts = new CallAttempts();
    attempts.begin(candidates[0]);
    expect(attempts.next(candidates)?.deployment.provider.id).toBe('p2');
  });

  it('skips a candidate whose probe another call took, without spending an attempt', async () => {
    const { sent, attempts } = await loop({}, { taken: ['p1', 'p2'] });
    expect(sent).toEqual(['p3']);
    expect(attempts.attempts).toBe(1);
    expect((await loop({}, { taken: ['p1', 'p2', 'p3', 'p4', 'p5'] })).result).toEqual({
      answered: false,
      error: null,
      retry: true,
    });
  });

  it('retries only before the first byte reached the caller, and never for a caller who left', () => {
    const attempts = new CallAttempts();
    attempts.begin(candidates[0]);
    expect(attempts.mayRetry(failed(), steady)).toBe(true);
    expect(attempts.mayRetry(failed(), { firstByteSent: true, aborted: false })).toBe(false);
    expect(attempts.mayRetry(failed(), { firstByteSent: false, aborted: true })).toBe(false);
    expect(attempts.mayRetry(new GatewayException(GatewayErrorCode.UPSTREAM_RATE_LIMITED, '429'), steady)).toBe(true);
    expect(attempts.mayRetry(new GatewayException(GatewayErrorCode.UPSTREAM_TIMEOUT, 'slow'), steady)).toBe(true);
    expect(attempts.mayRetry(new TypeError('bug'), steady)).toBe(false);
  });
});
