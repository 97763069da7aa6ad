import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthorizationDecisionResponse, AuthorizationRequestInfo } from '@switchyard/shared-dto';
import { AuthorizationDecisionDto, AuthorizationParamsDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  AuthorizeService,
  CheckedAuthorization,
} from './authorize.service';
import { OAuthErrorCode, OAuthException } from './oauth.exception';

/**
 * The dashboard's consent page talks to these (signed-in users only; the decision is a cookie write, so the
 * CSRF header is required by the global guard). Both re-check the whole authorization request.
 */
@ApiTags('oauth2')
@Controller('api/v1/oauth2/authorize')
export class AuthorizeController {
  constructor(private readonly authorization: AuthorizeService) {}

  @Get('request')
  @Access()
  @ApiOperation({
    summary: 'What the consent page shows for an authorization request (its query, as /oauth2/authorize got it)',
  })
  async request(
    @CurrentUser() user: SessionPrincipal,
    @Query() query: AuthorizationParamsDto,
  ): Promise<Envelope<AuthorizationRequestInfo>> {
    return envelope(await this.authorization.describe(user.userId, await this.checked(query)));
  }

  @Post('decision')
  @HttpCode(200)
  @Access()
  @ApiOperation({
    summary: "The user's Allow or Deny (with optional spending caps): answers where the browser goes next",
  })
  async decide(
    @CurrentUser() user: SessionPrincipal,
    @Body() body: AuthorizationDecisionDto,
  ): Promise<Envelope<AuthorizationDecisionResponse>> {
    const { approve, limits, markupPercent, ...params } = body;
    try {
      const checked = await this.authorization.check(params);
      return envelope({
        redirectTo: await this.authorization.decide(user.userId, checked, approve, limits, markupPercent),
      });
    } catch (error) {
      // A request that went bad (e.g. a scope the app may no longer ask for) is answered to the app, as RFC 6749 says.
      if (error instanceof AuthorizationRedirectError) return envelope({ redirectTo: error.redirectTo });
      throw this.translated(error);
    }
  }

  private async checked(params: AuthorizationParamsDto): Promise<CheckedAuthorization> {
    try {
      return await this.authorization.check(params);
    } catch (error) {
      throw this.translated(error);
    }
  }

  private translated(error: unknown): unknown {
    if (error instanceof AuthorizationPageError || error instanceof AuthorizationRedirectError)
      return new OAuthException(OAuthErrorCode.AUTHORIZATION_REQUEST_INVALID, error.message);
    return error;
  }
}
