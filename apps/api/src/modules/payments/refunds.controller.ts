import { Body, Controller, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { PaymentRefundResponse } from '@switchyard/shared-dto';
import { PaymentRefundDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { RefundsService } from './refunds.service';

/** The operator's refunds of card top-ups (docs/payments.md, "Refunds and disputes"), beside the admin console's routes. */
@ApiTags('admin')
@Controller('api/v1/admin')
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  @Post('users/:id/payments/:paymentId/refund')
  @HttpCode(200)
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary:
      'Refund a user’s card top-up (at Stripe, or the sandbox): the amount (default: what is left) leaves their balance, at most what it has free; the rest is the operator’s loss',
  })
  @ApiNotFoundResponse({ description: 'PAYMENT_NOT_FOUND (also a payment of another user)' })
  @ApiConflictResponse({ description: 'PAYMENT_NOT_REFUNDABLE: never paid, or more than is left of it' })
  async refund(
    @CurrentUser() principal: SessionPrincipal,
    @Param('id', new ParseUUIDPipe({ version: undefined })) userId: string,
    @Param('paymentId') paymentId: string,
    @Body() body: PaymentRefundDto,
  ): Promise<Envelope<PaymentRefundResponse>> {
    return envelope(await this.refunds.refund(principal.userId, userId, paymentId, body.amount));
  }
}
