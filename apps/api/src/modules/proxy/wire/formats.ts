/**
 * The wire formats a call's request may travel in besides OpenAI's (call/call.ts OPENAI_FORMAT): a face that speaks
 * one hands the request on as it came when the model's provider takes that format (providers/<kind>/ says which it
 * takes), and translates it into OpenAI's otherwise.
 */

/** Anthropic's Messages API: the Anthropic face's format, taken as it comes by the Anthropic provider. */
export const ANTHROPIC_MESSAGES = 'anthropic-messages';
