import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsageModule } from '../usage';
import { AccountCredentials } from './account-credentials';
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
  imports: [PassportModule, UsageModule, TypeOrmModule.forFeature(accountsEntities)],
  controllers: [AccountsController],
  providers: [
    AccountCredentials,
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
