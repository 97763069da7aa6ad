import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts';
import { MailModule } from '../mail';
import { UsageModule } from '../usage';
import { NotificationsController } from './notifications.controller';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';

/** Receipts for every credit and the budget alerts, by mail (docs/mail.md). */
@Module({
  imports: [AccountsModule, UsageModule, MailModule],
  controllers: [NotificationsController],
  providers: [NotificationsRepository, NotificationsService],
  exports: [NotificationsService],
})
export class NotificationsModule {}
