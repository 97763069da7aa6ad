import { Body, Controller, Get, Header, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AUTHORIZATION_PARAM_NAMES, type TokenResponse, type UserInfoResponse } from '@switchyard/shared-dto';
import type { Request, Response } from 'express';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import { RequireClientIdHeader } from '../../common/auth/client-id-header.guard';
import type { Principal } from '../../common/auth/principal';
import { RequireAnyScope } from '../../common/auth/scope.guard';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import { AccountsService } from '../accounts';
import { renderAuthorizeErrorPage } from './authorize-error-page';
import { AuthorizationPageError, AuthorizationRedirectError, AuthorizeService } from './authorize.service';
import { userClaims } from './id-token';
import type { PublicJwk } from './jose';
import { OAuthService, RegisteredClient } from './oauth.service';
import { SigningKeysService } from './signing-keys.service';

const REGISTRATIONS_PER_IP_PER_HOUR = 20;

/** The OAuth protocol (docs/oauth.md#endpoints, docs/decisions.md#oauth-standards). Errors use RFC 6749's shape. */
@ApiTags('oauth2')
@Controller()
export class OAuthController {
  constructor(
    private readonly authorization: AuthorizeService,
    private readonly oauth: OAuthService,
    private readonly accounts: AccountsService,
    private readonly limiter: RateLimiterService,
    private readonly signingKeys: SigningKeysService,
  ) {}

  @Get('oauth2/authorize')
  @Access({ public: true })
  @ApiOperation({
    summary: 'Start an authorization (code + PKCE S256): sign-in and consent in the dashboard, then back to the app',
  })
  async authorize(@Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    const query = Object.fromEntries(
      Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const principal = req.principal?.kind === 'session' ? req.principal : null;
    try {
      const checked = await this.authorization.check(query);
      const search = new URLSearchParams(query).toString();
      if (!principal) return res.redirect(302, `/signin?next=${encodeURIComponent(`/oauth2/authorize?${search}`)}`);
      const outcome = await this.authorization.authorize(principal.userId, checked);
      if (outcome.kind === 'redirect') return res.redirect(302, outcome.to);
      // The consent page gets the parameters it understands; others (nonce, resource…) are ignored, as RFC 6749
      // section 3.1 says unknown request parameters must be.
      const known = Object.fromEntries(
        AUTHORIZATION_PARAM_NAMES.filter((name) => query[name] !== undefined).map((name) => [name, query[name]]),
      );
      res.redirect(302, `/consent?${new URLSearchParams(known).toString()}`);
    } catch (error) {
      if (error instanceof AuthorizationRedirectError) {
        // Any user may register an app with any https redirect URI (and anyone a dynamic one), so a signed-out
        // browser sent back with an error would make this origin an open redirector: only apps an admin trusted
        // get their errors then; every other app gets them once the user has signed in here (docs/oauth.md).
        if (!principal && !error.client.trusted) return errorPage(res, error.message);
        return res.redirect(302, error.redirectTo);
      }
      if (error instanceof AuthorizationPageError) return errorPage(res, error.message);
      throw error;
    }
  }

  @Post('oauth2/token')
  @HttpCode(200)
  @Access({ public: true })
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary: 'Exchange a code (with its PKCE verifier) or a refresh token for tokens; JSON or form body',
  })
  token(
    @Body() body: Record<string, unknown> | undefined,
    @Headers('authorization') authorization?: string,
  ): Promise<TokenResponse> {
    return this.oauth.token(body, authorization);
  }

  @Post('oauth2/revoke')
  @HttpCode(200)
  @Access({ public: true })
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Revoke a token (RFC 7009; `token` in the query or the form body). A refresh token ends its whole grant.',
  })
  async revoke(
    @Body() body: Record<string, unknown> | undefined,
    @Query() query: Record<string, unknown>,
    @Headers('authorization') authorization?: string,
  ): Promise<Record<string, never>> {
    await this.oauth.revoke(body, query, authorization);
    return {};
  }

  @Post('oauth2/introspect')
  @HttpCode(200)
  @Access({ public: true })
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Introspect a token of your confidential client (RFC 7662)' })
  introspect(
    @Body() body: Record<string, unknown> | undefined,
    @Headers('authorization') authorization?: string,
  ): Promise<Record<string, unknown>> {
    return this.oauth.introspect(body, authorization);
  }

  @Post('oauth2/register')
  @HttpCode(201)
  @Access({ public: true })
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Dynamic client registration of a public PKCE client (RFC 7591), for agent hosts such as MCP clients',
  })
  async register(@Req() req: Request, @Body() body: Record<string, unknown> | undefined): Promise<RegisteredClient> {
    await this.limiter.consume({
      bucket: 'oauth-register-ip',
      subject: req.ip ?? 'unknown',
      max: REGISTRATIONS_PER_IP_PER_HOUR,
      windowSeconds: 3600,
    });
    return this.oauth.register(body);
  }

  @Get('oauth2/userinfo')
  @Access({ oauth: true })
  @RequireAnyScope('profile:read', 'openid')
  @RequireClientIdHeader({ optional: true })
  @ApiOperation({
    summary: 'The user an access token acts for (scope profile:read, or openid with the claims of profile and email)',
  })
  async userinfo(@CurrentUser() principal: Principal): Promise<UserInfoResponse> {
    return userClaims(
      await this.accounts.me(principal.userId),
      principal.kind === 'oauth' ? principal.scopes : ['profile:read'],
    );
  }

  @Get('.well-known/oauth-authorization-server')
  @Access({ public: true })
  @ApiOperation({ summary: 'Authorization server metadata (RFC 8414)' })
  metadata(): Record<string, unknown> {
    return this.oauth.metadata();
  }

  @Get('.well-known/openid-configuration')
  @Access({ public: true })
  @ApiOperation({ summary: 'OpenID Connect Discovery 1.0: the same metadata, served (not redirected)' })
  openidConfiguration(): Record<string, unknown> {
    return this.oauth.metadata();
  }

  @Get('oauth2/jwks')
  @Access({ public: true })
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({ summary: 'The public keys that verify ID tokens (RFC 7517 JWK Set); private keys are never served' })
  jwks(): Promise<{ keys: PublicJwk[] }> {
    return this.signingKeys.jwks();
  }
}

/** An authorization request that must not be redirected: said to the user, never to the app. */
function errorPage(res: Response, message: string): void {
  res.status(400).type('html').send(renderAuthorizeErrorPage(message));
}
