import { MODEL_PRICING_FIELDS } from '@switchyard/shared-dto';
import {
  buildCatalog,
  type Catalog,
  type CatalogModel,
  DEMO_CATALOG,
  readCatalogFile,
  servedBy,
  unpricedMethods,
} from '../modules/proxy';

/** The catalog the service would load: MODELS_CONFIG's, or the demo catalog without it. */
export function loadCatalog(env: Record<string, string | undefined> = process.env): Catalog {
  return env.MODELS_CONFIG ? readCatalogFile(env.MODELS_CONFIG, env) : buildCatalog(DEMO_CATALOG, 'demo');
}

/** Where a model's (or a deployment's) prices came from. */
function originOf(model: CatalogModel): string {
  const { source, fromConfig, catalogModel } = model.pricingOrigin;
  return model.free
    ? 'free (config)'
    : source === 'catalog'
      ? `catalog ${catalogModel}${fromConfig.length ? `, ${fromConfig.join(', ')} from the config` : ''}`
      : (source ?? 'no price');
}

/** The effective prices and the missing ones of a model as one deployment serves it, as indented lines. */
function priceLines(model: CatalogModel): string[] {
  const prices = MODEL_PRICING_FIELDS.filter((field) => model.pricing[field] !== undefined).map(
    (field) => `${field} ${model.pricing[field]}`,
  );
  const lines = prices.length ? [`    ${prices.join('  ')}`] : [];
  const unpriced = unpricedMethods(model);
  if (unpriced.length)
    lines.push(
      `    NO PRICE for ${unpriced.join(', ')}: those calls are refused; give it a pricing or free: true in MODELS_CONFIG (docs/pricing.md)`,
    );
  return lines;
}

/** One model's effective prices and where they came from, as lines; then its other deployments' (docs/routing.md). */
function describe(model: CatalogModel): string[] {
  const lines = [
    `${model.id}  ${model.provider.id} (${model.provider.type}) ${model.upstreamModel}  ${originOf(model)}`,
  ];
  lines.push(...priceLines(model));
  for (const deployment of model.deployments.slice(1)) {
    const served = servedBy(model, deployment);
    lines.push(
      `  also ${deployment.provider.id} (${deployment.provider.type}) ${deployment.upstreamModel}  ${originOf(served)}`,
    );
    lines.push(...priceLines(served));
  }
  return lines;
}

/** Whether a model, at any of its deployments, has no price for one of its methods. */
function unpriced(model: CatalogModel): boolean {
  return model.deployments.some((deployment) => unpricedMethods(servedBy(model, deployment)).length > 0);
}

/**
 * `npm run admin -- prices [MODEL]`: every model's (or one's) effective prices, in currency units per million
 * tokens unless named otherwise, and where they came from (docs/pricing.md), for each deployment. Returns 1 when a
 * model (at any deployment) has no price for one of its methods (its calls would be refused), 2 for an unknown
 * model, else 0.
 */
export function pricesCommand(catalog: Catalog, modelId: string | undefined, print: (line: string) => void): number {
  const models = modelId
    ? [catalog.models.get(modelId)].filter((model): model is CatalogModel => Boolean(model))
    : [...catalog.models.values()];
  if (modelId && !models.length) {
    print(`no model ${modelId} in ${catalog.source}; the models are ${[...catalog.models.keys()].join(', ')}`);
    return 2;
  }
  for (const model of models) for (const line of describe(model)) print(line);
  return models.some(unpriced) ? 1 : 0;
}
