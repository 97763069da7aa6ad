import type { RouteMethod } from './actions';
import type { CatalogModel } from './catalog.types';

/** Whether a kind of call costs anything at all (retrieving a video does not: its creation was charged). */
export function isBillable(action: RouteMethod): boolean {
  return (
    action !== 'video_retrieve' &&
    action !== 'video_content' &&
    action !== 'list_models' &&
    action !== 'get_model' &&
    action !== 'count_tokens'
  );
}

/**
 * Whether a model charges anything for this kind of call (a priced call must never be estimated at 0). A billable
 * call of a model without a price for it is refused unless the model is `free` (docs/pricing.md).
 */
export function isPriced(action: RouteMethod, model: CatalogModel): boolean {
  const p = model.pricing;
  const positive = (...values: (number | undefined)[]) => values.some((value) => (value ?? 0) > 0);
  if (positive(p.perRequest) && isBillable(action)) return true;
  const tokens = positive(
    p.inputPerMTok,
    p.outputPerMTok,
    p.cacheReadPerMTok,
    p.cacheWritePerMTok,
    p.cacheWrite1hPerMTok,
    p.inputAbovePerMTok,
    p.outputAbovePerMTok,
  );
  switch (action) {
    case 'chat_completions':
    case 'completions':
    case 'responses':
    case 'embeddings':
      return tokens;
    case 'image_generation':
    case 'image_edit':
    case 'image_variation':
      return positive(p.perImage);
    case 'audio_speech':
      return positive(p.perMChars);
    case 'audio_transcription':
      return positive(p.perSecond) || tokens;
    case 'video_generation':
    case 'video_remix':
      return positive(p.perSecond);
    default:
      return false;
  }
}
