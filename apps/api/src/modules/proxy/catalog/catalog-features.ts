import type { ImagePrices, ModelFeatures, ProviderType } from './catalog.types';
import { PROVIDER_KINDS } from './provider-kinds';

/**
 * The catalog's paid provider-side features (`features`) and per-variant image prices (`pricing.perImage` as a
 * table), validated (docs/models.example.yaml). Each reader returns its value, or undefined after telling
 * `problem` what is wrong and how to fix it (one line, naming the field).
 */
type Problem = (field: string, text: string) => void;

const MAX_PRICE = 1_000_000;
/** The most searches one call may reserve, whatever the catalog says (Anthropic's own limit is far below). */
const MAX_SEARCHES = 100;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const price = (value: unknown) => typeof value === 'number' && value >= 0 && value <= MAX_PRICE;

export const NO_FEATURES: ModelFeatures = { webSearch: null, documentUrls: false };

export function readFeatures(
  raw: unknown,
  at: string,
  provider: ProviderType,
  contextLength: number | null,
  problem: Problem,
): ModelFeatures | undefined {
  if (raw === undefined || raw === null) return NO_FEATURES;
  if (!isObject(raw))
    return void problem(`${at}.features`, 'must map feature names (webSearch, documentUrls) to settings');
  const features: ModelFeatures = { ...NO_FEATURES };
  for (const [name, value] of Object.entries(raw)) {
    const field = `${at}.features.${name}`;
    if (!PROVIDER_KINDS[provider].features)
      return void problem(
        field,
        "is a feature of Anthropic's Messages API: only models on an anthropic provider take it",
      );
    switch (name) {
      case 'webSearch': {
        if (!isObject(value) || !price(value.perSearch) || !Number.isInteger(value.maxUses))
          return void problem(field, 'must be { perSearch: <currency units per search>, maxUses: <1 to 100> }');
        const maxUses = value.maxUses as number;
        if (maxUses < 1 || maxUses > MAX_SEARCHES)
          return void problem(`${field}.maxUses`, `must be a whole number from 1 to ${MAX_SEARCHES}`);
        if (!((value.perSearch as number) > 0))
          return void problem(`${field}.perSearch`, 'must be above 0: a search the gateway cannot price is refused');
        features.webSearch = { perSearch: value.perSearch as number, maxUses };
        break;
      }
      case 'documentUrls':
        if (typeof value !== 'boolean') return void problem(field, 'must be true or false');
        if (value && !contextLength)
          return void problem(field, 'needs the model’s contextLength: a fetched document is bounded by it');
        features.documentUrls = value;
        break;
      default:
        return void problem(field, 'is not a feature; use webSearch or documentUrls');
    }
  }
  return features;
}

/** `pricing.perImage` given as a table, quality → size → price; null when it is a flat price (or absent). */
export function readImagePrices(raw: unknown, at: string, problem: Problem): ImagePrices | null | undefined {
  if (!isObject(raw)) return null;
  const fix =
    'must map each quality (low, medium, high, standard, hd, …) to sizes (1024x1024, …) and their price per image';
  const table: ImagePrices = {};
  for (const [quality, sizes] of Object.entries(raw)) {
    if (!/^[a-z0-9_-]{1,32}$/.test(quality)) return void problem(`${at}.pricing.perImage.${quality}`, fix);
    if (!isObject(sizes) || !Object.keys(sizes).length) return void problem(`${at}.pricing.perImage.${quality}`, fix);
    table[quality] = {};
    for (const [size, value] of Object.entries(sizes)) {
      if (!/^(\d{1,5}x\d{1,5}|auto)$/.test(size))
        return void problem(`${at}.pricing.perImage.${quality}.${size}`, 'must be a size such as 1024x1024 (or auto)');
      if (!price(value) || !((value as number) > 0))
        return void problem(`${at}.pricing.perImage.${quality}.${size}`, 'must be a price above 0 (currency units)');
      table[quality][size] = value as number;
    }
  }
  if (!Object.keys(table).length) return void problem(`${at}.pricing.perImage`, fix);
  return table;
}

/** The dearest variant: what `pricing.perImage` holds for a model priced by variant (listings, isPriced). */
export function dearestImagePrice(table: ImagePrices): number {
  return Math.max(...Object.values(table).flatMap((sizes) => Object.values(sizes)));
}
