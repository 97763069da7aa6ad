import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';

/**
 * What the request policy (request-policy.ts) decided of a request it let through: what the reservation must add
 * to the gateway's own measure of the request, and what the call is billed for on top of its tokens.
 */
export interface PolicyVerdict {
  /**
   * Input the request names but does not carry (a URL document the provider fetches, a PDF whose pages the
   * provider renders, a stored item): the call's input is then bounded at the model's context length.
   */
  inputAtContextLength: string | null;
  /** Input tokens the provider adds that the request's own measure leaves out (a client tool's own definition). */
  extraInputTokens: number;
  /** A priced provider-side search the catalog enabled: the call reserves perSearch × maxUses. */
  webSearch: { maxUses: number; perSearch: number } | null;
  /** The price of the image variant asked for (the catalog prices images by quality and size), or null. */
  imagePrice: number | null;
  /** Fields the gateway writes into the request before it goes on (an image variant's defaults). */
  writes: Record<string, string>;
}

export const emptyVerdict = (): PolicyVerdict => ({
  inputAtContextLength: null,
  extraInputTokens: 0,
  webSearch: null,
  imagePrice: null,
  writes: {},
});

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A refusal naming the field: 400 invalid_request_error with `param` on the OpenAI face; on Anthropic's face
 * (which has no param) the message starts with the field's path.
 */
export function refused(param: string, message: string): GatewayException {
  return new GatewayException(GatewayErrorCode.INVALID_REQUEST, `${param}: ${message}`, { param });
}

/** The explanation every refusal of paid provider-side work ends with. */
export const NOT_BOUNDED =
  'the provider would do work on the caller’s behalf at a cost the gateway cannot bound or price before it is forwarded';
