import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ClientUsageResponse, OAuthClientResponse } from '@switchyard/shared-dto';
import {
  ClientUsageQueryDto,
  OAuthClientCreateDto,
  OAuthClientTrustDto,
  OAuthClientUpdateDto,
} from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import { Owns } from '../../common/auth/ownership.guard';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { ClientsService } from './clients.service';

/** `{id}` is the numeric id or the public clientId (docs/decisions.md#names-and-defaults). */
@ApiTags('oauth2-clients')
@Controller('api/v1/oauth2/clients')
export class ClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Post()
  @Access()
  @ApiOperation({ summary: 'Register an OAuth app; a generated secret is shown in this answer only' })
  async create(
    @CurrentUser() user: SessionPrincipal,
    @Body() body: OAuthClientCreateDto,
  ): Promise<Envelope<OAuthClientResponse>> {
    return envelope(
      await this.clients.create(user, body),
      body.generateSecret ? 'Copy the client secret now: it is not shown again' : 'App registered',
    );
  }

  @Get()
  @Access()
  @ApiOperation({ summary: "The caller's OAuth apps, with how many users authorized each" })
  async list(@CurrentUser() user: SessionPrincipal): Promise<Envelope<OAuthClientResponse[]>> {
    return envelope(await this.clients.list(user.userId));
  }

  @Get(':id/usage')
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({ summary: "An app's usage across its users (owner only; default: the last 30 days)" })
  async usage(@Param('id') id: string, @Query() query: ClientUsageQueryDto): Promise<Envelope<ClientUsageResponse>> {
    return envelope(await this.clients.usage(id, query));
  }

  @Get(':id')
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({ summary: 'One OAuth app (owner only)' })
  async get(@Param('id') id: string): Promise<Envelope<OAuthClientResponse>> {
    return envelope(await this.clients.get(id));
  }

  @Put(':id')
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({ summary: 'Update an OAuth app (owner only); fields left out keep their value' })
  async update(
    @CurrentUser() user: SessionPrincipal,
    @Param('id') id: string,
    @Body() body: OAuthClientUpdateDto,
  ): Promise<Envelope<OAuthClientResponse>> {
    return envelope(await this.clients.update(user, id, body), 'App updated');
  }

  @Post(':id/deactivate')
  @HttpCode(200)
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({ summary: 'Deactivate an OAuth app (soft delete): its tokens stop working at once' })
  async deactivate(@Param('id') id: string): Promise<Envelope<OAuthClientResponse>> {
    return envelope(await this.clients.deactivate(id), 'App deactivated');
  }

  @Post(':id/reactivate')
  @HttpCode(200)
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({
    summary: 'Reactivate a deactivated OAuth app (owner only): authorizations and its unexpired tokens work again',
  })
  async reactivate(@Param('id') id: string): Promise<Envelope<OAuthClientResponse>> {
    return envelope(await this.clients.reactivate(id), 'App reactivated');
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({
    summary: 'A new client secret for a confidential app (owner only), shown once; the old one stops working at once',
  })
  async rotateSecret(@Param('id') id: string): Promise<Envelope<OAuthClientResponse>> {
    return envelope(await this.clients.rotateSecret(id), 'Secret replaced');
  }

  @Delete(':id')
  @Access()
  @Owns(ClientsService, 'id')
  @ApiOperation({ summary: 'Delete an OAuth app with every authorization and token of it (owner only)' })
  async delete(@Param('id') id: string): Promise<Envelope<{ id: number; clientId: string }>> {
    return envelope(await this.clients.delete(id), 'App deleted');
  }
}

/** Admin only: which first-party apps skip the consent page (also `npm run admin -- clients trust CLIENT_ID`). */
@ApiTags('oauth2-clients')
@Controller('api/v1/admin/oauth2/clients')
export class AdminClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Put(':clientId/trusted')
  @Access({ roles: ['admin'] })
  @ApiOperation({
    summary: 'Mark an OAuth app as a trusted first-party app (its users are not asked for consent), or not',
  })
  async trust(
    @Param('clientId') clientId: string,
    @Body() body: OAuthClientTrustDto,
  ): Promise<Envelope<OAuthClientResponse>> {
    return envelope(
      await this.clients.setTrusted(clientId, body.trusted),
      body.trusted ? 'App trusted: its users skip the consent page' : 'App no longer trusted',
    );
  }
}
