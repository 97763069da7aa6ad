import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { SignedOutResponse } from '@switchyard/shared-dto';
import { EmailVerifyDto, PasswordResetConfirmDto, PasswordResetRequestDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { clientAddress } from '../../common/http/client-address';
import { Envelope, envelope } from '../../common/http/envelope';
import { AccountMailService } from './account-mail.service';

/** The password reset and the address verification, by mail (docs/mail.md). */
@ApiTags('accounts')
@Controller('api/v1/auth')
export class AccountMailController {
  constructor(private readonly mail: AccountMailService) {}

  @Post('password-reset')
  @HttpCode(202)
  @Access({ public: true })
  @ApiOperation({
    summary:
      'Mail a single-use link to reset the password; the answer is the same whether or not an account has the address',
  })
  @ApiAcceptedResponse({
    description: 'Always the same answer, at once; the mail follows if an account has the address',
  })
  @ApiTooManyRequestsResponse({ description: 'RATE_LIMITED: per client address, and per address asked for' })
  async requestPasswordReset(@Body() body: PasswordResetRequestDto, @Req() req: Request): Promise<Envelope<null>> {
    await this.mail.requestPasswordReset(body.email, clientAddress(req));
    return envelope(null, 'If an account uses this address, a link to reset its password is on its way');
  }

  @Post('password-reset/confirm')
  @HttpCode(200)
  @Access({ public: true })
  @ApiOperation({
    summary:
      'Set a new password with a reset link’s token (once, before it expires); every session is signed out, and with revokeCredentials every key and app authorization',
  })
  @ApiBadRequestResponse({ description: 'RESET_LINK_INVALID: unknown, used or expired; VALIDATION_FAILED' })
  async confirmPasswordReset(
    @Body() body: PasswordResetConfirmDto,
    @Req() req: Request,
  ): Promise<Envelope<SignedOutResponse>> {
    return envelope(
      await this.mail.confirmPasswordReset(body, clientAddress(req)),
      'Password changed: sign in with it',
    );
  }

  @Post('verify-email')
  @HttpCode(200)
  @Access({ public: true })
  @ApiOperation({ summary: 'Verify the account’s address with the link’s token (it may be opened in another browser)' })
  @ApiBadRequestResponse({ description: 'VERIFY_LINK_INVALID: unknown, used or expired, or the address changed' })
  async verifyEmail(@Body() body: EmailVerifyDto, @Req() req: Request): Promise<Envelope<{ email: string }>> {
    return envelope(await this.mail.verifyEmail(body.token, clientAddress(req)), 'Address verified');
  }

  @Post('verify-email/send')
  @HttpCode(202)
  @Access()
  @ApiOperation({ summary: 'Mail the signed-in user a new verification link (nothing when verified already)' })
  @ApiTooManyRequestsResponse({ description: 'RATE_LIMITED: per address' })
  async sendVerification(@CurrentUser() principal: SessionPrincipal): Promise<Envelope<{ sent: boolean }>> {
    const sent = await this.mail.sendVerification(principal.userId);
    return envelope({ sent }, sent ? 'A verification link is on its way' : 'Your address is verified already');
  }
}
