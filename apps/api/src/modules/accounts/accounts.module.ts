import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsageModule } from '../usage';
import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { SessionEntity } from './entities/session.entity';
import { UserHandleEntity } from './entities/user-handle.entity';
import { UserEntity } from './entities/user.entity';
import { AppTokenBearerStrategy } from './app-token-bearer.strategy';
import { AppTokensService } from './app-tokens.service';
import { SessionAuthGuard } from './session-auth.guard';
import { SessionBearerStrategy } from './session-bearer.strategy';

@Module({
  imports: [PassportModule, UsageModule, TypeOrmModule.forFeature([UserEntity, SessionEntity, UserHandleEntity])],
  controllers: [AccountsController],
  providers: [
    AccountsRepository,
    AccountsService,
    SessionBearerStrategy,
    { provide: APP_GUARD, useClass: SessionAuthGuard },
    AppTokensService,
    AppTokenBearerStrategy,
  ],
  exports: [AccountsService, AppTokensService],
})
export class AccountsModule {}
