import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { GiftCardIssueResponse, GiftCardRedeemResponse } from '@switchyard/shared-dto';
import { GiftCardIssueDto, GiftCardRedeemDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { clientAddress } from '../../common/http/client-address';
import { Envelope, envelope } from '../../common/http/envelope';
import { GiftcardsService } from './giftcards.service';

@ApiTags('gift cards')
@Controller('api/v1')
export class GiftcardsController {
  constructor(private readonly giftcards: GiftcardsService) {}

  @Post('admin/giftcards')
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary: 'Issue gift cards (amount, count, optional expiresAt); the codes are shown in this answer only',
  })
  async issue(
    @CurrentUser() admin: SessionPrincipal,
    @Body() body: GiftCardIssueDto,
  ): Promise<Envelope<GiftCardIssueResponse>> {
    return envelope(await this.giftcards.issue(admin.userId, body), 'Copy the codes now: they are not shown again');
  }

  @Post('giftcard/redeem')
  @HttpCode(200)
  @Access()
  @ApiOperation({ summary: 'Redeem a gift card code once; rate limited per account and per address' })
  @ApiNotFoundResponse({ description: 'GIFTCARD_NOT_FOUND: no card has this code' })
  @ApiConflictResponse({ description: 'GIFTCARD_ALREADY_REDEEMED' })
  @ApiUnprocessableEntityResponse({ description: 'GIFTCARD_EXPIRED' })
  @ApiTooManyRequestsResponse({ description: 'RATE_LIMITED, with Retry-After' })
  async redeem(
    @CurrentUser() user: SessionPrincipal,
    @Body() body: GiftCardRedeemDto,
    @Req() req: Request,
  ): Promise<Envelope<GiftCardRedeemResponse>> {
    const result = await this.giftcards.redeem(user.userId, clientAddress(req), body.code);
    return envelope(result, result.message);
  }
}
