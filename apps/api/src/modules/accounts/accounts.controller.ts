import { Body, Controller, Get, HttpCode, Inject, Patch, Post, Req, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { CookieOptions, Request, Response } from 'express';
import {
  CSRF_COOKIE,
  SESSION_COOKIE,
  type AuthSessionResponse,
  type SignedOutResponse,
  type UserResponse,
} from '@switchyard/shared-dto';
import {
  AccountDeleteDto,
  AccountUpdateDto,
  AuthLoginDto,
  AuthRegisterDto,
  PasswordChangeDto,
  SignOutEverywhereDto,
} from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { clientAddress } from '../../common/http/client-address';
import { Envelope, envelope } from '../../common/http/envelope';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { AccountsService, ClientInfo, IssuedSession } from './accounts.service';

@ApiTags('accounts')
@Controller('api/v1/auth')
export class AccountsController {
  constructor(
    private readonly accounts: AccountsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('register')
  @Access({ public: true })
  @ApiOperation({ summary: 'Create an account; starts a session (cookie and bearer token)' })
  @ApiConflictResponse({ description: 'EMAIL_TAKEN' })
  @ApiTooManyRequestsResponse({ description: 'RATE_LIMITED, with Retry-After' })
  async register(
    @Body() body: AuthRegisterDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Envelope<AuthSessionResponse>> {
    return envelope(this.setCookies(res, await this.accounts.register(body, clientInfo(req))));
  }

  @Post('login')
  @HttpCode(200)
  @Access({ public: true })
  @ApiOperation({ summary: 'Sign in; starts a session (cookie and bearer token)' })
  @ApiTooManyRequestsResponse({ description: 'RATE_LIMITED, with Retry-After' })
  async login(
    @Body() body: AuthLoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Envelope<AuthSessionResponse>> {
    return envelope(this.setCookies(res, await this.accounts.login(body, clientInfo(req))));
  }

  @Post('logout')
  @HttpCode(200)
  @Access()
  @ApiOperation({ summary: 'End the current session' })
  async logout(
    @CurrentUser() principal: SessionPrincipal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Envelope<null>> {
    await this.accounts.logout(principal);
    this.clearCookies(res);
    return envelope(null, 'Signed out');
  }

  @Patch('me')
  @Access()
  @ApiOperation({ summary: "Change the signed-in user's name" })
  async rename(
    @CurrentUser() principal: SessionPrincipal,
    @Body() body: AccountUpdateDto,
  ): Promise<Envelope<UserResponse>> {
    return envelope(await this.accounts.rename(principal.userId, body.name), 'Name saved');
  }

  @Post('password')
  @HttpCode(200)
  @Access()
  @ApiOperation({
    summary:
      'Change the password (needs the current one); every other session is signed out, and with revokeCredentials every API key and app authorization is revoked',
  })
  @ApiForbiddenResponse({ description: 'PASSWORD_INCORRECT' })
  @ApiTooManyRequestsResponse({ description: 'RATE_LIMITED after too many wrong passwords, with Retry-After' })
  async changePassword(
    @CurrentUser() principal: SessionPrincipal,
    @Body() body: PasswordChangeDto,
  ): Promise<Envelope<SignedOutResponse>> {
    const ended = await this.accounts.changePassword(principal, body);
    return envelope(ended, 'Password changed; your other sessions are signed out');
  }

  @Post('logout-everywhere')
  @HttpCode(200)
  @Access()
  @ApiOperation({
    summary:
      'Sign out every session of the account, this one too; with revokeCredentials every API key and app authorization is revoked too',
  })
  async logoutEverywhere(
    @CurrentUser() principal: SessionPrincipal,
    @Body() body: SignOutEverywhereDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Envelope<SignedOutResponse>> {
    const ended = await this.accounts.signOutEverywhere(principal, body?.revokeCredentials === true);
    this.clearCookies(res);
    return envelope(ended, 'Signed out everywhere');
  }

  @Post('delete-account')
  @HttpCode(200)
  @Access()
  @ApiOperation({
    summary:
      'Delete the account (confirmed by its password): it cannot sign in, its keys, sessions and apps’ tokens stop at once; the ledger stays',
  })
  @ApiForbiddenResponse({ description: 'PASSWORD_INCORRECT' })
  async deleteAccount(
    @CurrentUser() principal: SessionPrincipal,
    @Body() body: AccountDeleteDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Envelope<null>> {
    await this.accounts.deleteAccount(principal, body);
    this.clearCookies(res);
    return envelope(null, 'Account deleted');
  }

  @Get('me')
  @Access()
  @ApiOperation({ summary: 'The signed-in user' })
  async me(@CurrentUser() principal: SessionPrincipal): Promise<Envelope<UserResponse>> {
    return envelope(await this.accounts.me(principal.userId));
  }

  private setCookies(res: Response, session: IssuedSession): AuthSessionResponse {
    const maxAge = new Date(session.expiresAt).getTime() - Date.now();
    res.cookie(SESSION_COOKIE, session.token, { ...this.cookieOptions(true), maxAge });
    res.cookie(CSRF_COOKIE, session.csrfToken, { ...this.cookieOptions(false), maxAge });
    const { csrfToken: _csrf, ...response } = session;
    return response;
  }

  private clearCookies(res: Response): void {
    res.clearCookie(SESSION_COOKIE, this.cookieOptions(true));
    res.clearCookie(CSRF_COOKIE, this.cookieOptions(false));
  }

  private cookieOptions(httpOnly: boolean): CookieOptions {
    return { httpOnly, sameSite: 'lax', secure: this.config.publicUrl.startsWith('https:'), path: '/' };
  }
}

function clientInfo(req: Request): ClientInfo {
  return { ip: clientAddress(req), userAgent: req.header('user-agent') };
}
