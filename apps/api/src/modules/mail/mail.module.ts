import { Module } from '@nestjs/common';
import { MailService } from './mail.service';

/** The service's outgoing mail: one transport (SMTP, or a folder under DATA_DIR), used by accounts and notifications. */
@Module({ providers: [MailService], exports: [MailService] })
export class MailModule {}
