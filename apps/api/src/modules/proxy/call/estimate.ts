import type { Metered } from './usage';

export type OutputField = 'max_tokens' | 'max_completion_tokens' | 'max_output_tokens';

/** The output-token bound of a generating call: what the reservation assumes and what the upstream is told. */
export interface OutputBound {
  /** Tokens per choice. */
  tokens: number;
  /** Choices generated (`n`, or `best_of` for completions): the worst case is tokens × choices. */
  choices: number;
  /** The fields the gateway writes `tokens` into (each the caller gave, or the model's default one). */
  fields: OutputField[];
  /** The caller's own limit in those fields, when every one was given and none is above `tokens`. */
  callerLimit: number | null;
}

export interface Estimate {
  /** The most the call can cost. */
  worstMicros: number;
  /** The least it needs: its input (and one output token). Below this the call is refused. */
  minimumMicros: number;
  /** The prompt's upper bound in tokens. */
  inputTokens: number;
  /** What the input bound holds: each of its tokens at the highest input-side price that could apply. */
  inputWorstMicros: number;
  /**
   * What the input probably is (tokens, or images, seconds, characters), and its cost: billed, at least, once the
   * provider accepted a call whose usage never came.
   */
  inputEstimate: Metered;
  inputEstimateMicros: number;
  /** For token-priced generation: the output bound. */
  output?: OutputBound;
}
