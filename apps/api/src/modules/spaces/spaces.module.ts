import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts';
import { ClientsModule } from '../clients';
import { ProxyModule } from '../proxy';
import { spacesEntities } from './entities';
import { SpaceJobsRunner } from './space-jobs.runner';
import { SpacePageWriter } from './space-page.writer';
import { SpacesGatewayClient } from './spaces-gateway.client';
import { SpacesController } from './spaces.controller';
import { SpacesRepository } from './spaces.repository';
import { SpacesService } from './spaces.service';

/**
 * Spaces: AI-written web apps under a user's handle, hosted sandboxed on their own origin (docs/spaces.md; the
 * listener is spaces-host.ts, started by createApp). Pages are written by jobs that call models through the
 * gateway on the owner's budget (SpacesGatewayClient: an in-process call of the gateway's pipeline).
 */
@Module({
  imports: [TypeOrmModule.forFeature(spacesEntities), AccountsModule, ClientsModule, ProxyModule],
  controllers: [SpacesController],
  providers: [SpacesRepository, SpacesGatewayClient, SpacePageWriter, SpaceJobsRunner, SpacesService],
  exports: [SpacesService],
})
export class SpacesModule {}
