import { Body, Controller, Delete, Get, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ApiKeyCreatedResponse, ApiKeyResponse } from '@switchyard/shared-dto';
import { KeyCreateDto, KeyLimitsUpdateDto, KeyUpdateDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { KeysService } from './keys.service';

@ApiTags('keys')
@Controller('api/v1/keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Post()
  @Access()
  @ApiOperation({
    summary: 'Create an API key, optionally with its limits and an expiry; the key is shown in this answer only',
  })
  async create(
    @CurrentUser() user: SessionPrincipal,
    @Body() body: KeyCreateDto,
  ): Promise<Envelope<ApiKeyCreatedResponse>> {
    return envelope(await this.keys.create(user.userId, body), 'Copy the key now: it is not shown again');
  }

  @Get()
  @Access()
  @ApiOperation({ summary: "The caller's API keys, masked, with each key's spend this month and all time" })
  async list(@CurrentUser() user: SessionPrincipal): Promise<Envelope<ApiKeyResponse[]>> {
    return envelope(await this.keys.list(user.userId));
  }

  @Put(':id/limits')
  @Access()
  @ApiOperation({
    summary:
      "Set or clear a key's spend limits (total, daily, weekly, monthly, per request; currency units, null clears)",
  })
  @ApiNotFoundResponse({ description: 'KEY_NOT_FOUND (also for another user’s key)' })
  async setLimits(
    @CurrentUser() user: SessionPrincipal,
    @Param('id') id: string,
    @Body() body: KeyLimitsUpdateDto,
  ): Promise<Envelope<ApiKeyResponse>> {
    return envelope(await this.keys.setLimits(user.userId, id, body), 'Limits saved');
  }

  @Patch(':id')
  @Access()
  @ApiOperation({ summary: 'Rename an API key' })
  @ApiNotFoundResponse({ description: 'KEY_NOT_FOUND (also for another user’s key)' })
  async rename(
    @CurrentUser() user: SessionPrincipal,
    @Param('id') id: string,
    @Body() body: KeyUpdateDto,
  ): Promise<Envelope<ApiKeyResponse>> {
    return envelope(await this.keys.rename(user.userId, id, body.name), 'Key renamed');
  }

  @Delete(':id')
  @Access()
  @ApiOperation({ summary: 'Revoke an API key; it stops working at once on every instance' })
  @ApiNotFoundResponse({ description: 'KEY_NOT_FOUND (also for another user’s key)' })
  async revoke(@CurrentUser() user: SessionPrincipal, @Param('id') id: string): Promise<Envelope<ApiKeyResponse>> {
    return envelope(await this.keys.revoke(user.userId, id), 'Key revoked');
  }
}
