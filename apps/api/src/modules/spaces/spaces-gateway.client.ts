import { Injectable } from '@nestjs/common';
import { AppException } from '../../common/errors/app.exception';
import { type Caller, COST_HEADER, GatewayService } from '../proxy';
import type { ChatMessage } from './prompts';

/** How spaces calls appear in usage records and the activity list. */
export const SPACES_CREDENTIAL_NAME = 'Spaces';

export type ChatOutcome =
  | { ok: true; text: string; finishReason: string | null; cost: number; requestId: string }
  | { ok: false; status: number; code: string; message: string };

/**
 * Spaces' way into the gateway: an in-process call of the gateway's pipeline (GatewayService.callInProcess) for
 * the app's owner. So a generation is a gateway call like any other, on the owner's budget: the catalog, rate
 * limit, reservation, settlement, usage record (named "Spaces"), budget_exhausted and the drain at shutdown all
 * apply unchanged, and none of that logic is repeated here.
 */
@Injectable()
export class SpacesGatewayClient {
  constructor(private readonly gateway: GatewayService) {}

  /** One non-streaming chat completion for `userId`. */
  async chat(
    userId: string,
    model: string,
    messages: ChatMessage[],
    requestId: string,
    signal: AbortSignal,
  ): Promise<ChatOutcome> {
    const caller: Caller = {
      kind: 'internal',
      userId,
      apiKeyId: null,
      oauthClientId: null,
      credentialName: SPACES_CREDENTIAL_NAME,
      scopes: null,
      // GATEWAY_RPM applies to a user's spaces calls together, as to one key.
      rateLimitRpm: null,
      rateLimitSubject: `spaces:${userId}`,
    };
    let answer;
    try {
      answer = await this.gateway.callInProcess(caller, 'chat_completions', { model, messages }, requestId, signal);
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      return { ok: false, status: error.status, code: error.code.toLowerCase(), message: error.message };
    }
    // A model's answer, read defensively: the fields read here may be missing or of any type.
    let body: { choices?: ({ message?: { content?: unknown } | null; finish_reason?: unknown } | null)[] } = {};
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      // not JSON: an empty page, refused by the page check
    }
    const choice = body.choices?.[0];
    return {
      ok: true,
      text: typeof choice?.message?.content === 'string' ? choice.message.content : '',
      finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
      cost: Number(answer.headers[COST_HEADER]) || 0,
      requestId,
    };
  }
}
