import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { CatalogModel, ProviderType } from '../catalog/catalog.types';
import { PROVIDER_TYPES } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { Cancel } from '../upstream/cancel';
import type { Json } from '../wire/frame';
import type { ProviderAdapter } from './provider-adapter';

/**
 * The adapter of each provider kind of the catalog: each adapter registers itself as the module starts, and the
 * start fails if a kind the catalog accepts has none.
 */
@Injectable()
export class ProviderAdapters implements OnApplicationBootstrap {
  private readonly byKind = new Map<ProviderType, ProviderAdapter>();

  register(adapter: ProviderAdapter): void {
    if (this.byKind.has(adapter.kind)) throw new Error(`two adapters for the provider kind ${adapter.kind}`);
    this.byKind.set(adapter.kind, adapter);
  }

  onApplicationBootstrap(): void {
    const missing = PROVIDER_TYPES.filter((kind) => !this.byKind.has(kind));
    if (missing.length) throw new Error(`no adapter registered for the provider kinds ${missing.join(', ')}`);
  }

  of(kind: ProviderType): ProviderAdapter {
    return this.byKind.get(kind)!;
  }

  /** Whether a model's provider takes requests in `format` as they come. */
  takes(model: CatalogModel, format: string): boolean {
    return this.byKind.get(model.provider.type)?.formats?.includes(format) ?? false;
  }

  countTokens(
    model: CatalogModel,
    format: string,
    json: Json,
    headers: IncomingHttpHeaders,
    signal: Cancel,
  ): Promise<number> {
    const adapter = this.byKind.get(model.provider.type);
    if (!adapter?.countTokens || !adapter.formats?.includes(format))
      throw new GatewayException(
        GatewayErrorCode.UNSUPPORTED_METHOD,
        `The model ${model.id} cannot count this request`,
      );
    return adapter.countTokens(model, format, json, headers, signal);
  }
}
