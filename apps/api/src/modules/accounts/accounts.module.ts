import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '../mail';
import { UsageModule } from '../usage';
import { AccountCredentials } from './account-credentials';
import { AccountMailController } from './account-mail.controller';
import { AccountMailService } from './account-mail.service';
import { AccountTokensRepository } from './account-tokens.repository';
import { AccountDeletion } from './account-deletion';
import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { AppTokenBearerStrategy } from './app-token-bearer.strategy';
import { AppTokensService } from './app-tokens.service';
import { accountsEntities } from './entities';
import { SessionAuthGuard } from './session-auth.guard';
import { SessionBearerStrategy } from './session-bearer.strategy';

@Module({
  imports: [PassportModule, UsageModule, MailModule, TypeOrmModule.forFeature(accountsEntities)],
  controllers: [AccountsController, AccountMailController],
  providers: [
    AccountCredentials,
    AccountMailService,
    AccountTokensRepository,
    AccountDeletion,
    AccountsRepository,
    AccountsService,
    SessionBearerStrategy,
    AppTokensService,
    AppTokenBearerStrategy,
    { provide: APP_GUARD, useClass: SessionAuthGuard },
  ],
  exports: [AccountsService, AppTokensService, AccountDeletion, AccountCredentials],
})
export class AccountsModule {}
