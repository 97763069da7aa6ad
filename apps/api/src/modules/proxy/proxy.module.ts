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
import { TokenCounter } from './messages/count-tokens';
import { GatewayPipeline } from './pipeline/gateway-pipeline';
import { DemoAdapter } from './providers/demo.adapter';
import { OpenAiAdapter } from './providers/openai/openai.adapter';
import { ProviderAdapters } from './providers/provider-adapters';
import { AnthropicAdapter, GeminiAdapter } from './providers/translated.adapter';
import { AnswerRelay } from './relay/relay';
import { RoutingService } from './routing/routing.service';
import { UpstreamClient } from './upstream/upstream-client';
import { VideoJobsRepository } from './video-jobs.repository';

/**
 * The model gateway. Its routes are not Nest controllers: the front door (front-door.ts, installed by
 * apps/api/src/app.ts) hands /v1 calls to GatewayService.serve ahead of Express, which runs them through the
 * call pipeline (docs/architecture.md). Other credential kinds plug in through CredentialRegistry; other modules
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
    OpenAiAdapter,
    AnthropicAdapter,
    GeminiAdapter,
    DemoAdapter,
    TokenCounter,
    UpstreamClient,
    VideoJobsRepository,
    RoutingService,
  ],
  exports: [CatalogService, CredentialRegistry, GatewayService],
})
export class ProxyModule {}
