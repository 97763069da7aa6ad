import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts';
import { UsageModule } from '../usage';
import { ConsentsController } from './consents.controller';
import { ConsentsRepository } from './consents.repository';
import { ConsentsService } from './consents.service';
import { consentsEntities } from './entities';

@Module({
  imports: [TypeOrmModule.forFeature(consentsEntities), AccountsModule, UsageModule],
  controllers: [ConsentsController],
  providers: [ConsentsRepository, ConsentsService],
  exports: [ConsentsService],
})
export class ConsentsModule {}
