import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type {
  ActivityPage,
  AnalyticsResponse,
  DailySpendPage,
  LedgerPage,
  UsageSummaryResponse,
} from '@switchyard/shared-dto';
import {
  UsageActivityQueryDto,
  UsageAnalyticsQueryDto,
  UsageDailySpendQueryDto,
  UsageLedgerQueryDto,
} from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import { RequireClientIdHeader } from '../../common/auth/client-id-header.guard';
import type { Principal, SessionPrincipal } from '../../common/auth/principal';
import { RequireScopes } from '../../common/auth/scope.guard';
import { Envelope, envelope } from '../../common/http/envelope';
import { LedgerService } from './ledger/ledger.service';
import { UsageService } from './usage.service';

@ApiTags('usage')
@Controller('api/v1/usage/me')
export class UsageController {
  constructor(
    private readonly ledgerService: LedgerService,
    private readonly usage: UsageService,
  ) {}

  @Get('summary')
  @Access({ oauth: true })
  @RequireScopes('api:access')
  @RequireClientIdHeader()
  @ApiOperation({
    summary:
      'Budget: totalCost (debits), maxBudget (credits), remainingBudget (their difference). Apps: scope api:access and the client-id header',
  })
  async summary(@CurrentUser() user: Principal): Promise<Envelope<UsageSummaryResponse>> {
    return envelope(await this.ledgerService.summary(user.userId));
  }

  @Get('activity')
  @Access()
  @ApiOperation({ summary: 'Gateway calls, newest first, with what each reserved, charged and released' })
  async activity(
    @CurrentUser() user: SessionPrincipal,
    @Query() query: UsageActivityQueryDto,
  ): Promise<Envelope<ActivityPage>> {
    return envelope(await this.usage.activity(user.userId, query));
  }

  @Get('ledger')
  @Access()
  @ApiOperation({
    summary:
      'Every credit (payments, gift cards, sign-up) and debit (calls), newest first, or one side (side=credit|debit); nextCursor pages on',
  })
  async ledger(
    @CurrentUser() user: SessionPrincipal,
    @Query() query: UsageLedgerQueryDto,
  ): Promise<Envelope<LedgerPage>> {
    return envelope(
      await this.ledgerService.history(user.userId, query.limit ?? 50, query.cursor ?? null, query.side ?? null),
    );
  }

  @Get('daily-spend')
  @Access()
  @ApiOperation({
    summary:
      'What calls were charged per UTC day (from the ledger), newest first, limit days a page; nextCursor pages on',
  })
  async dailySpend(
    @CurrentUser() user: SessionPrincipal,
    @Query() query: UsageDailySpendQueryDto,
  ): Promise<Envelope<DailySpendPage>> {
    return envelope(await this.ledgerService.dailySpend(user.userId, query.limit ?? 30, query.cursor ?? null));
  }

  @Get('analytics')
  @Access()
  @ApiOperation({
    summary: 'Requests, tokens and cost by day, model, key or app between from and to (default: the last 30 days)',
  })
  async analytics(
    @CurrentUser() user: SessionPrincipal,
    @Query() query: UsageAnalyticsQueryDto,
  ): Promise<Envelope<AnalyticsResponse>> {
    return envelope(await this.usage.analytics(user.userId, query));
  }
}
