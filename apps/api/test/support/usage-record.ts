import { randomUUID } from 'node:crypto';
import type { UsageRecordInput } from '../../src/modules/usage';

/** A successful chat call's usage record (10 + 20 tokens, 35 micros, 150 ms), changed by `overrides`. */
export function usageRecord(
  userId: string,
  startedAt: Date,
  overrides: Partial<UsageRecordInput> = {},
): UsageRecordInput {
  return {
    callId: randomUUID(),
    requestId: `req-${randomUUID()}`,
    userId,
    apiKeyId: null,
    oauthClientId: null,
    credentialName: null,
    method: 'chat_completions',
    model: 'demo-chat',
    provider: 'demo',
    stream: false,
    status: 'success',
    httpStatus: 200,
    errorCode: null,
    promptTokens: 10,
    completionTokens: 20,
    costMicros: 35,
    startedAt,
    endedAt: new Date(startedAt.getTime() + 150),
    ...overrides,
  };
}
