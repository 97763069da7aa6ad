import { unwatchFile, watchFile } from 'node:fs';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ModelEntry, ModelMethod } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { buildCatalog, CatalogError, readCatalogFile } from './catalog-loader';
import type { Catalog, CatalogModel } from './catalog.types';
import { DEMO_CATALOG } from './demo-catalog';

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

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.catalog = this.load();
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
  }

  /** Re-reads MODELS_CONFIG; returns false (and keeps the current catalog) when the file is bad. */
  reload(): boolean {
    try {
      const next = this.load();
      this.catalog = next;
      this.logger.log(`catalog reloaded: ${next.models.size} models from ${next.source}`);
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

  toEntry(model: CatalogModel): ModelEntry {
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
      pricing: model.pricing,
    };
  }

  private load(): Catalog {
    return this.config.modelsConfig ? readCatalogFile(this.config.modelsConfig) : buildCatalog(DEMO_CATALOG, 'demo');
  }
}
