import { Body, Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AppAllowanceResponse, ConsentResponse } from '@switchyard/shared-dto';
import { ConsentLimitsDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import { RequireClientIdHeader } from '../../common/auth/client-id-header.guard';
import type { Principal, SessionPrincipal } from '../../common/auth/principal';
import { RequireScopes } from '../../common/auth/scope.guard';
import { ConsentsErrorCode, ConsentsException } from './consents.exception';
import { Envelope, envelope } from '../../common/http/envelope';
import { ConsentsService } from './consents.service';

@ApiTags('consents')
@Controller('api/v1/oauth2/consents')
export class ConsentsController {
  constructor(private readonly consents: ConsentsService) {}

  @Get()
  @Access()
  @ApiOperation({
    summary: 'The apps the caller authorized: scopes, caps, spend this month, what each pays of their calls (sponsor)',
  })
  async list(@CurrentUser() user: SessionPrincipal): Promise<Envelope<ConsentResponse[]>> {
    return envelope(await this.consents.list(user.userId));
  }

  @Get('count')
  @Access()
  @ApiOperation({ summary: 'How many apps the caller authorized' })
  async count(@CurrentUser() user: SessionPrincipal): Promise<Envelope<number>> {
    return envelope(await this.consents.count(user.userId));
  }

  @Get('current')
  @Access({ oauth: true })
  @RequireScopes('api:access')
  @RequireClientIdHeader()
  @ApiOperation({
    summary: "For an app's token (scope api:access, the client-id header): what is left of the caps its user set on it",
  })
  @ApiNotFoundResponse({ description: 'CONSENT_NOT_FOUND (a dashboard session has no app)' })
  async current(@CurrentUser() principal: Principal): Promise<Envelope<AppAllowanceResponse>> {
    if (principal.kind !== 'oauth')
      throw new ConsentsException(ConsentsErrorCode.CONSENT_NOT_FOUND, 'Only an app’s token has a current app');
    return envelope(await this.consents.allowance(principal.userId, principal.clientId));
  }

  @Get(':clientId')
  @Access()
  @ApiOperation({
    summary: 'One app the caller authorized: its scopes, caps, spend this month, sponsor and redirect URIs',
  })
  @ApiNotFoundResponse({ description: 'CONSENT_NOT_FOUND' })
  async get(
    @CurrentUser() user: SessionPrincipal,
    @Param('clientId') clientId: string,
  ): Promise<Envelope<ConsentResponse>> {
    return envelope(await this.consents.get(user.userId, clientId));
  }

  @Put(':clientId/limits')
  @Access()
  @ApiOperation({
    summary:
      'Set or clear what an app may spend: a monthly cap and a per-request maximum (currency units, null clears)',
  })
  @ApiNotFoundResponse({ description: 'CONSENT_NOT_FOUND' })
  async setLimits(
    @CurrentUser() user: SessionPrincipal,
    @Param('clientId') clientId: string,
    @Body() body: ConsentLimitsDto,
  ): Promise<Envelope<ConsentResponse>> {
    return envelope(await this.consents.setLimits(user.userId, clientId, body), 'Caps saved');
  }

  @Delete(':clientId')
  @Access()
  @ApiOperation({ summary: "Revoke an app's access: the consent and every token of it stop at once" })
  @ApiNotFoundResponse({ description: 'CONSENT_NOT_FOUND' })
  async revoke(
    @CurrentUser() user: SessionPrincipal,
    @Param('clientId') clientId: string,
  ): Promise<Envelope<{ clientId: string }>> {
    return envelope(await this.consents.revoke(user.userId, clientId), 'Access revoked');
  }
}
