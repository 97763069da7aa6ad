/**
 * What the catalog knows of each kind of provider (a provider's `type` in the models file), beside its adapter
 * (providers/<kind>/, which registers itself for the kind): a new kind of provider is its folder and its line here.
 */
export interface ProviderKind {
  /** An example of its base URL, named when a models file gives a bad one (null: it has none). */
  exampleUrl: string | null;
  /** It needs an API key. */
  needsKey: boolean;
  /** It serves chat completions only (its adapter translates them into the provider's own API). */
  chatOnly: boolean;
  /** Its provider in the bundled price catalog (@pydantic/genai-prices), or null. */
  priceCatalog: string | null;
  /** Its server is looked up in the price catalog by its base URL first (an OpenAI-compatible Groq, Together…). */
  priceByUrl: boolean;
  /** It takes the priced provider-side features a catalog entry may enable (`features`: web search, URL documents). */
  features: boolean;
  /** Who owns its models, when the entry does not say (null: the provider's id). */
  ownedBy: string | null;
}

export const PROVIDER_KINDS = {
  openai: {
    exampleUrl: 'https://api.openai.com/v1',
    needsKey: false,
    chatOnly: false,
    priceCatalog: 'openai',
    priceByUrl: true,
    features: false,
    ownedBy: null,
  },
  anthropic: {
    exampleUrl: 'https://api.anthropic.com/v1',
    needsKey: true,
    chatOnly: true,
    priceCatalog: 'anthropic',
    priceByUrl: false,
    features: true,
    ownedBy: null,
  },
  gemini: {
    exampleUrl: 'https://generativelanguage.googleapis.com/v1beta',
    needsKey: true,
    chatOnly: true,
    priceCatalog: 'google',
    priceByUrl: false,
    features: false,
    ownedBy: null,
  },
  demo: {
    exampleUrl: null,
    needsKey: false,
    chatOnly: false,
    priceCatalog: null,
    priceByUrl: false,
    features: false,
    ownedBy: 'switchyard-demo',
  },
} as const satisfies Record<string, ProviderKind>;
