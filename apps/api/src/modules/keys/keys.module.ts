import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts';
import { UsageModule } from '../usage';
import { keysEntities } from './entities';
import { KeysController } from './keys.controller';
import { KeysRepository } from './keys.repository';
import { KeysService } from './keys.service';

@Module({
  imports: [TypeOrmModule.forFeature(keysEntities), AccountsModule, UsageModule],
  controllers: [KeysController],
  providers: [KeysRepository, KeysService],
  exports: [KeysService],
})
export class KeysModule {}
