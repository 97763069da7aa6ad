import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SponsorPoolResponse, SponsorWithdrawResponse } from '@switchyard/shared-dto';
import { SponsorPoolUpdateDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import { Owns } from '../../common/auth/ownership.guard';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { ClientsService } from '../clients';
import { SponsorService } from '../usage';

/**
 * Sponsored credits (docs/earnings.md): the pool an app's maker funds to pay for their users' calls. Owner only
 * (another user's app answers 404); `{id}` is the numeric id or the public clientId.
 */
@ApiTags('oauth2-clients')
@Controller('api/v1/oauth2/clients/:id/sponsor')
export class SponsorController {
  constructor(
    private readonly clients: ClientsService,
    private readonly sponsor: SponsorService,
  ) {}

  @Get()
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({ summary: "The app's sponsor pool: funded, left, drawn, allowance per user, end (owner only)" })
  async get(@Param('id') id: string): Promise<Envelope<SponsorPoolResponse>> {
    return envelope(await this.sponsor.get(await this.clientIdOf(id)));
  }

  @Put()
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({
    summary: "Fund the app's sponsor pool from your balance, and set its allowance per new user and its end",
  })
  async update(
    @CurrentUser() user: SessionPrincipal,
    @Param('id') id: string,
    @Body() body: SponsorPoolUpdateDto,
  ): Promise<Envelope<SponsorPoolResponse>> {
    return envelope(await this.sponsor.update(user.userId, await this.clientIdOf(id), body), 'Sponsor pool saved');
  }

  @Post('withdraw')
  @HttpCode(200)
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({ summary: 'Take what is left of the pool back into your balance; calls stop drawing on it' })
  async withdraw(@Param('id') id: string): Promise<Envelope<SponsorWithdrawResponse>> {
    return envelope(await this.sponsor.withdraw(await this.clientIdOf(id)), 'Sponsor pool withdrawn');
  }

  private async clientIdOf(ref: string): Promise<string> {
    return (await this.clients.get(ref)).clientId;
  }
}
