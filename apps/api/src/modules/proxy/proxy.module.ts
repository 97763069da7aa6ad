import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { UsageModule } from '../usage/usage.module';
import { CatalogService } from './catalog/catalog.service';
import { ApiKeyStrategy } from './credentials/api-key.strategy';
import { CredentialRegistry } from './credentials/credential-registry';
import { GatewayService } from './gateway.service';
import { VideoJobsRepository } from './video-jobs.repository';

/**
 * The model gateway. Its routes are not Nest controllers: the front door (front-door.ts, installed by
 * apps/api/src/app.ts) hands /v1 calls to GatewayService.serve ahead of Express. Other credential kinds plug in through CredentialRegistry.
 */
@Module({
  imports: [KeysModule, UsageModule],
  providers: [CatalogService, CredentialRegistry, ApiKeyStrategy, GatewayService, VideoJobsRepository],
  exports: [CatalogService, CredentialRegistry, GatewayService],
})
export class ProxyModule {}
