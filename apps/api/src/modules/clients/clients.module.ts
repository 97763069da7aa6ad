import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConsentsModule } from '../consents';
import { UsageModule } from '../usage';
import { AdminClientsController, ClientsController } from './clients.controller';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';
import { clientsEntities } from './entities';

@Module({
  imports: [TypeOrmModule.forFeature(clientsEntities), ConsentsModule, UsageModule],
  controllers: [ClientsController, AdminClientsController],
  providers: [ClientsRepository, ClientsService],
  exports: [ClientsService],
})
export class ClientsModule {}
