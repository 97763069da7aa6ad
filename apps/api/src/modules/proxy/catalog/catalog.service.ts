import { unwatchFile, watchFile } from 'node:fs';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { DeploymentStatus, ModelEntry, ModelEntryPricing, ModelMethod } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { buildCatalog, CatalogError, readCatalogFile, unpricedMethods } from './catalog-loader';
import type { Catalog, CatalogModel } from './catalog.types';
import { DEMO_CATALOG } from './demo-catalog';
import { servedBy } from './deployments';

export interface ModelFilter {
  type?: string;
  capability?: string;
  method?: string;
}

/**
 * The live catalog. Loaded at start (a bad file stops start-up); the file is then watched and re-read on change
 * (docs/decisions.md#model-catalog). A change swaps the whole catalog at once: calls in flight keep the model they
 * resolved, new calls see the new catalog, and a bad edit is logged and ignored, keeping the last good one.
 */
@Injectable()
export class CatalogService implements OnModuleInit, OnApplicationShutdown {
  private catalog: Catalog;
  private readonly logger = new Logger('Catalog');
  /** Re-reads the catalog when a catalog price changes (a dated change, a time-of-day tariff). */
  private priceChange: NodeJS.Timeout | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.catalog = this.load();
    this.loaded(this.catalog);
  }

  onModuleInit(): void {
    const path = this.config.modelsConfig;
    if (!path) return;
    watchFile(path, { interval: 1000, persistent: false }, (current, previous) => {
      if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size) this.reload();
    });
  }

  onApplicationShutdown(): void {
    if (this.config.modelsConfig) unwatchFile(this.config.modelsConfig);
    clearTimeout(this.priceChange);
  }

  /** Re-reads MODELS_CONFIG; returns false (and keeps the current catalog) when the file is bad. */
  reload(): boolean {
    try {
      const next = this.load();
      this.catalog = next;
      this.logger.log(`catalog reloaded: ${next.models.size} models from ${next.source}`);
      this.loaded(next);
      return true;
    } catch (error) {
      const lines = error instanceof CatalogError ? error.problems : [(error as Error).message];
      for (const line of lines) this.logger.error(`catalog not reloaded: ${line}`);
      return false;
    }
  }

  get current(): Catalog {
    return this.catalog;
  }

  find(id: string): CatalogModel | undefined {
    return this.catalog.models.get(id);
  }

  list(filter: ModelFilter = {}): CatalogModel[] {
    return [...this.catalog.models.values()].filter(
      (model) =>
        (!filter.type || model.type === filter.type) &&
        (!filter.capability || model.capabilities.includes(filter.capability)) &&
        (!filter.method || model.methods.includes(filter.method as ModelMethod)),
    );
  }

  /** The model's entry in GET /v1/models; `health` says each deployment's breaker (by its key), when known. */
  toEntry(model: CatalogModel, health?: (key: string) => DeploymentStatus): ModelEntry {
    return {
      id: model.id,
      object: 'model',
      created: this.catalog.loadedAt,
      owned_by: model.ownedBy,
      type: model.type,
      methods: model.methods,
      capabilities: model.capabilities,
      ...(model.contextLength ? { context_length: model.contextLength } : {}),
      ...(model.maxOutputTokens ? { max_output_tokens: model.maxOutputTokens } : {}),
      pricing: entryPricing(model),
      routing: model.routing,
      deployments: model.deployments.map((d) => ({
        provider: d.provider.id,
        status: health?.(d.key) ?? 'closed',
        weight: d.weight,
      })),
    };
  }

  /** Warns of each model the gateway will refuse for want of a price, and schedules the next catalog price change. */
  private loaded(catalog: Catalog): void {
    for (const model of catalog.models.values()) {
      const unpriced = unpricedMethods(model);
      if (unpriced.length)
        this.logger.warn(
          `${model.id} has no price for ${unpriced.join(', ')} in MODELS_CONFIG or the price catalog: those calls are refused; ` +
            'give it a pricing (or free: true) in MODELS_CONFIG (docs/pricing.md)',
        );
      // Another deployment without a price takes none of those calls (docs/routing.md): said once per deployment.
      for (const deployment of model.deployments.slice(1)) {
        const missing = unpricedMethods(servedBy(model, deployment)).filter((method) => !unpriced.includes(method));
        if (missing.length)
          this.logger.warn(
            `${model.id}'s deployment ${deployment.key} has no price for ${missing.join(', ')}: it takes none of those calls; ` +
              'give it a pricing in MODELS_CONFIG (docs/routing.md)',
          );
      }
    }
    clearTimeout(this.priceChange);
    this.priceChange = undefined;
    if (catalog.pricesChangeAt === null) return;
    // A timer waits at most about 24 days; a later change is scheduled again then.
    const wait = Math.min(Math.max(0, catalog.pricesChangeAt - Date.now()) + 1000, 2 ** 31 - 1);
    this.priceChange = setTimeout(() => this.reload(), wait);
    this.priceChange.unref();
  }

  private load(): Catalog {
    return this.config.modelsConfig ? readCatalogFile(this.config.modelsConfig) : buildCatalog(DEMO_CATALOG, 'demo');
  }
}

/** A model's effective prices and where they came from, for GET /v1/models. */
export function entryPricing(model: CatalogModel): ModelEntryPricing {
  const { source, fromConfig, catalogModel } = model.pricingOrigin;
  if (model.free) return { source: 'config', free: true };
  return {
    ...model.pricing,
    ...(source ? { source } : {}),
    ...(source === 'catalog' && fromConfig.length ? { fromConfig } : {}),
    ...(catalogModel ? { catalogModel } : {}),
  };
}
