import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts';
import { AuditModule } from '../audit';
import { UsageModule } from '../usage';
import { giftcardsEntities } from './entities';
import { GiftcardsController } from './giftcards.controller';
import { GiftcardsRepository } from './giftcards.repository';
import { GiftcardsService } from './giftcards.service';

/** Gift cards: issued by admins (HTTP or `npm run admin`), redeemed once into the ledger. */
@Module({
  imports: [TypeOrmModule.forFeature(giftcardsEntities), UsageModule, AuditModule, AccountsModule],
  controllers: [GiftcardsController],
  providers: [GiftcardsRepository, GiftcardsService],
  exports: [GiftcardsService],
})
export class GiftcardsModule {}
