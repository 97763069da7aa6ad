import { Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type {
  EarningsConnectResponse,
  EarningsMoveResponse,
  EarningsPayoutResponse,
  EarningsPayoutsResponse,
  EarningsResponse,
} from '@switchyard/shared-dto';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { EarningsService } from '../usage';
import { PayoutsService } from './payouts.service';

/** The signed-in app maker's earnings (docs/earnings.md): their own only, by their session. */
@ApiTags('earnings')
@Controller('api/v1/earnings')
export class EarningsController {
  constructor(
    private readonly earnings: EarningsService,
    private readonly payouts: PayoutsService,
  ) {}

  @Get()
  @Access()
  @ApiOperation({ summary: 'Your apps’ earnings: pending and available totals, per app, per UTC day (90 days)' })
  async get(@CurrentUser() user: SessionPrincipal): Promise<Envelope<EarningsResponse>> {
    return envelope(await this.earnings.earnings(user.userId));
  }

  @Get('export.csv')
  @Access()
  @ApiOperation({ summary: 'The per-day table as CSV' })
  async csv(@CurrentUser() user: SessionPrincipal, @Res() res: Response): Promise<void> {
    res
      .status(200)
      .type('text/csv')
      .setHeader('content-disposition', 'attachment; filename="earnings.csv"')
      .send(await this.earnings.csv(user.userId));
  }

  @Post('move')
  @HttpCode(200)
  @Access()
  @ApiOperation({ summary: 'Moves every available earning into your own budget now; answers how much' })
  async move(@CurrentUser() user: SessionPrincipal): Promise<Envelope<EarningsMoveResponse>> {
    return envelope({ moved: await this.earnings.moveToBudget(user.userId) });
  }

  @Post('connect')
  @HttpCode(200)
  @Access()
  @ApiOperation({
    summary: 'Links a payout account: answers Stripe’s hosted onboarding link (the sandbox’s without Stripe)',
  })
  async connect(@CurrentUser() user: SessionPrincipal): Promise<Envelope<EarningsConnectResponse>> {
    return envelope({ url: await this.payouts.connect(user.userId) });
  }

  @Get('payouts')
  @Access()
  @ApiOperation({ summary: 'Whether a payout account is linked, and your payouts, newest first' })
  async listPayouts(@CurrentUser() user: SessionPrincipal): Promise<Envelope<EarningsPayoutsResponse>> {
    return envelope(await this.payouts.list(user.userId));
  }

  @Post('payouts')
  @HttpCode(200)
  @Access()
  @ApiOperation({
    summary: 'Pays out every available earning as one Stripe transfer (whole cents; below a cent goes to your budget)',
  })
  async payout(@CurrentUser() user: SessionPrincipal): Promise<Envelope<EarningsPayoutResponse>> {
    return envelope(await this.payouts.payout(user.userId));
  }
}
