/** The model catalog (GET /v1/models): what each model is, what it can be called for, and its prices. */

export const MODEL_TYPES = ['text', 'image', 'audio', 'embedding', 'video'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export const MODEL_METHODS = [
  'chat_completions',
  'completions',
  'responses',
  'embeddings',
  'image_generation',
  'image_edit',
  'image_variation',
  'audio_speech',
  'audio_transcription',
  'video_generation',
] as const;
export type ModelMethod = (typeof MODEL_METHODS)[number];

export interface ModelPricing {
  inputPerMTok?: number;
  outputPerMTok?: number;
  perImage?: number;
  perSecond?: number;
  perMChars?: number;
}

export interface ModelEntry {
  id: string;
  object: 'model';
  owned_by: string;
  created?: number;
  type?: ModelType;
  methods?: ModelMethod[];
  capabilities?: string[];
  context_length?: number;
  max_output_tokens?: number;
  pricing?: ModelPricing;
}

export interface ModelListResponse {
  object: 'list';
  data: ModelEntry[];
}
