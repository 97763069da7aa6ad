import type { Reservation } from '../../usage';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Caller } from '../credentials/caller';
import { fromOpenAiChat } from '../metering/token-usage';
import { emptyVerdict } from '../policy/verdict';
import { Cancel } from '../upstream/cancel';
import type { AnswerWriter } from './answer-writer';
import { Call, OPENAI_FORMAT } from './call';
import type { Estimate } from './estimate';
import type { GatewayRoute } from './route';

const model = (id: string) => ({ id }) as CatalogModel;
function newCall(json: Record<string, unknown> | null = { model: 'm', max_tokens: 50 }): Call {
  return new Call(
    {
      requestId: 'req',
      route: { action: 'chat_completions', name: 'messages' } as GatewayRoute,
      params: {},
      caller: {} as Caller,
      requestHeaders: {},
      signal: new Cancel(),
    },
    new Date(),
    model('m'),
    {
      format: OPENAI_FORMAT,
      json,
      raw: null,
      form: null,
      stream: false,
      writer: {} as AnswerWriter,
      policy: emptyVerdict(),
      policyFor: (other, call) => ({ ...emptyVerdict(), extraInputTokens: other.id.length + (call.stream ? 1 : 0) }),
    },
  );
}

describe('Call: its state changes only through named operations', () => {
  it('records as the route’s name, and asks the face’s policy for another model', () => {
    const call = newCall();
    expect(call.calledAs).toBe('messages');
    expect(call.policyFor(model('abc')).extraInputTokens).toBe(3);
  });

  it('hands its reservation over exactly once', () => {
    const call = newCall();
    const reservation = { id: 'r', amountMicros: 10 } as unknown as Reservation;
    call.hold(reservation);
    expect(call.reservation).toBe(reservation);
    expect(call.release()).toBe(reservation);
    expect(call.release()).toBeNull();
    expect(call.reservation).toBeNull();
  });

  it('writes the output bound into its request, noting whether the caller had given one', () => {
    const call = newCall();
    call.boundOutput(['max_tokens'], 20);
    expect(call.json).toMatchObject({ max_tokens: 20 });
    expect(call.outputBound).toEqual({ max_tokens: 20 });
    expect(call.outputBoundReplaces).toBe(true);
    const other = newCall({ model: 'm' });
    other.boundOutput(['max_completion_tokens'], 30);
    expect(other.outputBoundReplaces).toBe(false);
  });

  it('keeps what was worked out from its request (a route) until the gateway changes the request', () => {
    const call = newCall();
    const deployment = {};
    const route = { worked: 'out' };
    expect(call.keptFor(deployment)).toBeUndefined();
    call.keepFor(deployment, route);
    expect(call.keptFor(deployment)).toBe(route);
    expect(call.keptFor({})).toBeUndefined();
    call.boundOutput(['max_tokens'], 20);
    expect(call.keptFor(deployment)).toBeUndefined();
    call.keepFor(deployment, route);
    call.requestChanged();
    expect(call.keptFor(deployment)).toBeUndefined();
  });

  it('merges the usage the provider reports, count by count, and keeps it final once final', () => {
    const call = newCall();
    expect(call.noteUsage({ completion_tokens: 3 }, fromOpenAiChat, false)).toBe(false);
    expect(call.usageKnown).toBe(false);
    expect(call.noteUsage({ prompt_tokens: 10, completion_tokens: 5 }, fromOpenAiChat, true)).toBe(true);
    call.noteUsage({ prompt_tokens: 10, completion_tokens: 2 }, fromOpenAiChat, false);
    expect(call.metered).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    expect(call.usageFinal).toBe(true);
  });

  it('switches to a fallback with its policy and estimate, and keeps the first byte’s time', () => {
    const call = newCall();
    const estimate = { worstMicros: 5 } as Estimate;
    call.switchTo(model('fallback'), { ...emptyVerdict(), extraInputTokens: 7 }, estimate);
    expect(call.model.id).toBe('fallback');
    expect(call.policy.extraInputTokens).toBe(7);
    expect(call.estimate).toBe(estimate);
    call.firstByte();
    const first = call.firstByteAt;
    call.firstByte();
    expect(call.firstByteAt).toBe(first);
    expect(call.accepted).toBe(false);
    call.accept();
    expect(call.accepted).toBe(true);
  });
});
