import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from './entities/api-key.entity';
import { KeysController } from './keys.controller';
import { KeysRepository } from './keys.repository';
import { KeysService } from './keys.service';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  controllers: [KeysController],
  providers: [KeysRepository, KeysService],
  exports: [KeysService],
})
export class KeysModule {}
