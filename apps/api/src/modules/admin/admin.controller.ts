import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type {
  AdminGiftCardPage,
  AdminMoneyResponse,
  AdminUsageResponse,
  AdminUser,
  AdminUserPage,
  AuditPage,
  BalanceAdjustmentResponse,
} from '@switchyard/shared-dto';
import {
  AccountStatusChangeDto,
  AdminGiftCardQueryDto,
  AdminMoneyQueryDto,
  AdminUsageQueryDto,
  AdminUserQueryDto,
  AuditQueryDto,
  BalanceAdjustmentDto,
} from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { AuditLogService } from '../audit';
import { GiftcardsService } from '../giftcards';
import { OperatorMoneyService } from '../usage';
import { AdminService } from './admin.service';

const id = new ParseUUIDPipe({ version: undefined });

/** The operator's console (docs/operations.md): admins only, every action in the audit log. */
@ApiTags('admin')
@Controller('api/v1/admin')
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly giftcards: GiftcardsService,
    private readonly audit: AuditLogService,
    private readonly operatorMoney: OperatorMoneyService,
  ) {}

  @Get('users')
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary: 'Accounts, newest first, with balance, spend and status; q searches email, name, handle or id',
  })
  async users(@Query() query: AdminUserQueryDto): Promise<Envelope<AdminUserPage>> {
    return envelope(await this.admin.users(query));
  }

  @Get('users/:id')
  @Access({ roles: ['admin'] })
  @ApiOperation({ summary: 'One account with its balance, spend and status' })
  @ApiNotFoundResponse({ description: 'USER_NOT_FOUND' })
  async user(@Param('id', id) userId: string): Promise<Envelope<AdminUser>> {
    return envelope(await this.admin.user(userId));
  }

  @Post('users/:id/adjustments')
  @HttpCode(200)
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary:
      'Credit (positive) or debit (negative) the balance through the ledger, with a reason; once per idempotencyKey; audited',
  })
  @ApiConflictResponse({ description: 'ADJUSTMENT_EXCEEDS_BALANCE, ADJUSTMENT_KEY_REUSED, ACCOUNT_DELETED' })
  async adjust(
    @CurrentUser() principal: SessionPrincipal,
    @Param('id', id) userId: string,
    @Body() body: BalanceAdjustmentDto,
  ): Promise<Envelope<BalanceAdjustmentResponse>> {
    const result = await this.admin.adjust(principal.userId, userId, body);
    return envelope(result, result.applied ? 'Balance adjusted' : 'Already adjusted with this idempotency key');
  }

  @Post('users/:id/disable')
  @HttpCode(200)
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary:
      'Disable the account: its sessions end, and sign-in, its API keys and its apps’ tokens are refused at once on every instance; audited',
  })
  async disable(
    @CurrentUser() principal: SessionPrincipal,
    @Param('id', id) userId: string,
    @Body() body: AccountStatusChangeDto,
  ): Promise<Envelope<AdminUser>> {
    return envelope(await this.admin.setDisabled(principal.userId, userId, true, body), 'Account disabled');
  }

  @Post('users/:id/enable')
  @HttpCode(200)
  @Access({ roles: ['admin'] })
  @ApiOperation({ summary: 'Enable a disabled account again (its keys and apps work again); audited' })
  async enable(
    @CurrentUser() principal: SessionPrincipal,
    @Param('id', id) userId: string,
    @Body() body: AccountStatusChangeDto,
  ): Promise<Envelope<AdminUser>> {
    return envelope(await this.admin.setDisabled(principal.userId, userId, false, body), 'Account enabled');
  }

  @Get('usage')
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary: 'Every account’s calls per UTC day, model, user, or day and model; default the last 30 days',
  })
  async usage(@Query() query: AdminUsageQueryDto): Promise<Envelope<AdminUsageResponse>> {
    return envelope(await this.admin.usage(query));
  }

  @Get('money')
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary: 'The operator’s money per UTC day: fees earned on app markups, and losses (calls charged short, refunds)',
  })
  async money(@Query() query: AdminMoneyQueryDto): Promise<Envelope<AdminMoneyResponse>> {
    return envelope(await this.operatorMoney.money(query.days ?? 30));
  }

  @Get('giftcards')
  @Access({ roles: ['admin'] })
  @ApiOperation({ summary: 'Issued gift cards, newest first: status, who issued and who redeemed each, when' })
  async giftCards(@Query() query: AdminGiftCardQueryDto): Promise<Envelope<AdminGiftCardPage>> {
    return envelope(await this.giftcards.list(query.status ?? null, query.limit ?? 25, query.cursor ?? null));
  }

  @Get('audit')
  @Access({ roles: ['admin'] })
  @ApiOperation({ summary: 'The append-only log of admin actions, newest first: who, what, when' })
  async auditLog(@Query() query: AuditQueryDto): Promise<Envelope<AuditPage>> {
    return envelope(await this.audit.list(query.limit ?? 25, query.cursor ?? null, query.userId ?? null));
  }
}
