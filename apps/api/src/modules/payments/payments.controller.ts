import { Body, Controller, Get, Header, Headers, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiExcludeEndpoint,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { CheckoutSessionResponse, PaymentVerifyResponse } from '@switchyard/shared-dto';
import { PaymentCheckoutCreateDto, PaymentVerifyQueryDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { requestOrigin } from '../../common/http/same-origin';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { PaymentsService } from './payments.service';
import { SANDBOX_PAGE_CSP } from './sandbox-page';

/** Where Stripe posts events; the body parsers keep this path's raw bytes for the signature check. */
export const PAYMENT_WEBHOOK_PATH = '/api/v1/payment/webhook';

@ApiTags('payments')
@Controller('api/v1/payment')
export class PaymentsController {
  constructor(
    private readonly payments: PaymentsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('create-checkout-session')
  @Access()
  @ApiOperation({
    summary: 'Start a card top-up: a Checkout Session (amount 0.50 to 10,000); go to checkoutUrl to pay',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'The same key (per user) answers the same session',
  })
  async create(
    @CurrentUser() user: SessionPrincipal,
    @Body() body: PaymentCheckoutCreateDto,
    @Req() req: Request,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<Envelope<CheckoutSessionResponse>> {
    return envelope(
      await this.payments.createCheckoutSession(user.userId, body.amount, this.originOf(req), idempotencyKey),
    );
  }

  @Post('verify-and-capture')
  @HttpCode(200)
  @Access()
  @ApiOperation({ summary: 'After the checkout redirect: credits a paid session once; status paid, unpaid or expired' })
  @ApiQuery({ name: 'session_id', required: true, description: 'The Checkout Session id from the success URL (cs_…)' })
  @ApiNotFoundResponse({ description: 'PAYMENT_NOT_FOUND (also for another user’s session)' })
  async verify(
    @CurrentUser() user: SessionPrincipal,
    @Query() query: PaymentVerifyQueryDto,
  ): Promise<Envelope<PaymentVerifyResponse>> {
    return envelope(await this.payments.verifyAndCapture(user.userId, query.session_id));
  }

  @Post('webhook')
  @HttpCode(200)
  @Access({ public: true })
  @ApiOperation({
    summary:
      'Stripe webhook (Stripe-Signature checked on the raw body): checkout.session.completed and async_payment_succeeded credit once; charge.refunded and charge.dispute.created/closed (lost) debit once per Stripe id',
  })
  @ApiBadRequestResponse({ description: 'PAYMENT_WEBHOOK_SIGNATURE_INVALID' })
  async webhook(
    @Req() req: Request,
    @Headers('stripe-signature') signature?: string,
  ): Promise<Envelope<{ received: true }>> {
    return envelope(await this.payments.handleWebhook(req.body, signature));
  }

  @Get('sandbox/:sessionId')
  @Access({ public: true })
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @Header('Content-Security-Policy', SANDBOX_PAGE_CSP)
  sandboxPage(@Param('sessionId') sessionId: string, @Req() req: Request): Promise<string> {
    return this.payments.sandboxPage(sessionId, this.originOf(req));
  }

  @Post('sandbox/:sessionId/pay')
  @Access({ public: true })
  @ApiExcludeEndpoint()
  async sandboxPay(@Param('sessionId') sessionId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    res.redirect(303, await this.payments.sandboxPay(sessionId, this.originOf(req)));
  }

  /** The dashboard origin the user is on, if it is one of the service's own; PUBLIC_URL's otherwise. */
  private originOf(req: Request): string {
    return requestOrigin(req, this.config.publicUrl);
  }
}
