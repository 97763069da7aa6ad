import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts';
import { DemoModule } from '../demo';
import { KeysModule } from '../keys';
import { UsageModule } from '../usage';
import { CallBilling } from './billing/call-billing';
import { CatalogService } from './catalog/catalog.service';
import { ApiKeyStrategy } from './credentials/api-key.strategy';
import { CredentialRegistry } from './credentials/credential-registry';
import { DashboardSessionStrategy } from './credentials/dashboard-session.strategy';
import { GatewayService } from './gateway.service';
import { TokenCounter } from './billing/token-counter';
import { FACES } from './gateway-faces';
import { GatewayPipeline } from './pipeline/gateway-pipeline';
import { AnthropicAdapter } from './providers/anthropic/anthropic.adapter';
import { DemoAdapter } from './providers/demo/demo.adapter';
import { GeminiAdapter } from './providers/gemini/gemini.adapter';
import { OpenAiAdapter } from './providers/openai/openai.adapter';
import { ProviderAdapters } from './providers/provider-adapters';
import { AnswerRelay } from './relay/relay';
import { RoutingService } from './routing/routing.service';
import { UpstreamClient } from './upstream/upstream-client';
import { VideoJobsRepository } from './videos/video-jobs.repository';

/**
 * Every provider kind's adapter: each registers itself in ProviderAdapters for the catalog kind it serves. A new
 * kind of provider is its folder (providers/<kind>/) and one line here.
 */
const PROVIDER_ADAPTERS = [OpenAiAdapter, AnthropicAdapter, GeminiAdapter, DemoAdapter];

/**
 * The model gateway. Its routes are not Nest controllers: the front door (front-door.ts, installed by
 * apps/api/src/app.ts) hands /v1 calls to GatewayService.serve ahead of Express, which runs them through their
 * face (faces.ts) and the call pipeline (docs/architecture.md). Other credential kinds plug in through CredentialRegistry; other modules
 * make calls in-process through GatewayService.callInProcess.
 */
@Module({
  imports: [AccountsModule, KeysModule, UsageModule, DemoModule],
  providers: [
    CatalogService,
    CredentialRegistry,
    ApiKeyStrategy,
    DashboardSessionStrategy,
    GatewayService,
    GatewayPipeline,
    CallBilling,
    AnswerRelay,
    ProviderAdapters,
    ...PROVIDER_ADAPTERS,
    ...FACES.map(({ service }) => service),
    TokenCounter,
    UpstreamClient,
    VideoJobsRepository,
    RoutingService,
  ],
  exports: [CatalogService, CredentialRegistry, GatewayService],
})
export class ProxyModule {}
