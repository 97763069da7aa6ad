import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type {
  HandleCheckResponse,
  SpaceAppDetailResponse,
  SpaceAppResponse,
  SpaceHandleResponse,
  SpaceProfileResponse,
} from '@switchyard/shared-dto';
import {
  SpaceEditDto,
  SpaceGenerateDto,
  SpaceHandleCheckQueryDto,
  SpaceHandleSetDto,
  SpacePublishDto,
  SpaceRemixDto,
  SpaceRenameDto,
} from '@switchyard/shared-dto/validation';
import type { Request } from 'express';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import { Owns } from '../../common/auth/ownership.guard';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { SpacesService } from './spaces.service';

/** Spaces (docs/spaces.md#the-api, docs/decisions.md#resource-shapes). `{slug}` names one of the caller's apps. */
@ApiTags('spaces')
@Controller('api/v1/spaces')
export class SpacesController {
  constructor(private readonly spaces: SpacesService) {}

  @Put('handle')
  @Access()
  @ApiOperation({ summary: "Set the caller's handle (their apps and profile live under it)" })
  @ApiConflictResponse({ description: 'HANDLE_TAKEN: another account holds, or once held, this handle' })
  async setHandle(
    @CurrentUser() user: SessionPrincipal,
    @Body() body: SpaceHandleSetDto,
  ): Promise<Envelope<SpaceHandleResponse>> {
    return envelope(await this.spaces.setHandle(user.userId, body.handle), 'Handle saved');
  }

  @Get('handle/check')
  @Access({ public: true })
  @ApiOperation({ summary: 'Whether a handle can be claimed' })
  async checkHandle(@Query() query: SpaceHandleCheckQueryDto): Promise<Envelope<HandleCheckResponse>> {
    return envelope(await this.spaces.checkHandle(query.handle));
  }

  @Get('me/apps')
  @Access()
  @ApiOperation({ summary: "The caller's apps, unpublished ones included, newest first" })
  async listMine(@CurrentUser() user: SessionPrincipal): Promise<Envelope<SpaceAppResponse[]>> {
    return envelope(await this.spaces.listMine(user.userId));
  }

  @Get('me/apps/:slug')
  @Access()
  @Owns(SpacesService, 'slug')
  @ApiOperation({ summary: "One of the caller's apps with its page (for the sandboxed preview) and its versions" })
  async getMine(
    @CurrentUser() user: SessionPrincipal,
    @Param('slug') slug: string,
  ): Promise<Envelope<SpaceAppDetailResponse>> {
    return envelope(await this.spaces.getMine(user.userId, slug));
  }

  @Post('generate')
  @HttpCode(202)
  @Access()
  @ApiOperation({ summary: 'Have a model write an app from a prompt; answers at once with the app `generating`' })
  @ApiAcceptedResponse({ description: 'The app, status generating; poll it until ready or failed' })
  async generate(
    @CurrentUser() user: SessionPrincipal,
    @Body() body: SpaceGenerateDto,
  ): Promise<Envelope<SpaceAppResponse>> {
    return envelope(await this.spaces.generate(user.userId, body), 'A model is writing your app');
  }

  @Post('remix')
  @HttpCode(201)
  @Access()
  @ApiOperation({
    summary:
      "Remix a published app into the caller's space: a new app whose history starts with the original's page, crediting it",
  })
  @ApiNotFoundResponse({ description: 'SPACE_REMIX_NOT_FOUND: no published app by that handle and slug' })
  async remix(@CurrentUser() user: SessionPrincipal, @Body() body: SpaceRemixDto): Promise<Envelope<SpaceAppResponse>> {
    return envelope(await this.spaces.remix(user.userId, body.handle, body.slug), 'Remixed into your space');
  }

  @Put(':slug/edit')
  @HttpCode(202)
  @Access()
  @Owns(SpacesService, 'slug')
  @ApiOperation({ summary: 'Have the model revise the current page; answers at once with the app `generating`' })
  @ApiConflictResponse({ description: 'SPACE_APP_BUSY (a job runs) or SPACE_APP_NOT_READY (no page yet)' })
  async edit(
    @CurrentUser() user: SessionPrincipal,
    @Param('slug') slug: string,
    @Body() body: SpaceEditDto,
  ): Promise<Envelope<SpaceAppResponse>> {
    return envelope(await this.spaces.edit(user.userId, slug, body.prompt), 'The model is revising your app');
  }

  @Put(':slug/title')
  @Access()
  @Owns(SpacesService, 'slug')
  @ApiOperation({ summary: 'Rename an app (its address stays); pages the model writes later keep this title' })
  async rename(
    @CurrentUser() user: SessionPrincipal,
    @Param('slug') slug: string,
    @Body() body: SpaceRenameDto,
  ): Promise<Envelope<SpaceAppResponse>> {
    return envelope(await this.spaces.rename(user.userId, slug, body.title), 'Renamed');
  }

  @Put(':slug/publish')
  @Access()
  @Owns(SpacesService, 'slug')
  @ApiOperation({ summary: 'Publish an app (its URL answers and the profile lists it) or unpublish it' })
  async publish(
    @CurrentUser() user: SessionPrincipal,
    @Param('slug') slug: string,
    @Body() body: SpacePublishDto,
  ): Promise<Envelope<SpaceAppResponse>> {
    return envelope(
      await this.spaces.publish(user.userId, slug, body.published),
      body.published ? 'Published' : 'Unpublished',
    );
  }

  @Post(':slug/undo')
  @HttpCode(200)
  @Access()
  @Owns(SpacesService, 'slug')
  @ApiOperation({ summary: 'Undo the last edit: serve the page it revised again (every version is kept)' })
  @ApiConflictResponse({ description: 'SPACE_NOTHING_TO_UNDO, or SPACE_APP_BUSY while a job runs' })
  async undo(@CurrentUser() user: SessionPrincipal, @Param('slug') slug: string): Promise<Envelope<SpaceAppResponse>> {
    return envelope(await this.spaces.undo(user.userId, slug), 'Edit undone');
  }

  @Delete(':slug')
  @Access()
  @Owns(SpacesService, 'slug')
  @ApiOperation({ summary: 'Delete an app with all its versions (a job still running for it is abandoned)' })
  async delete(
    @CurrentUser() user: SessionPrincipal,
    @Param('slug') slug: string,
  ): Promise<Envelope<{ slug: string }>> {
    return envelope(await this.spaces.delete(user.userId, slug), 'App deleted');
  }

  @Get(':handle')
  @Access({ public: true })
  @ApiOperation({
    summary: "A handle's public profile with its published apps (isOwner: the viewer is signed in as its owner)",
  })
  @ApiNotFoundResponse({ description: 'SPACE_PROFILE_NOT_FOUND' })
  async profile(@Param('handle') handle: string, @Req() req: Request): Promise<Envelope<SpaceProfileResponse>> {
    return envelope(await this.spaces.profile(handle, req.principal?.userId ?? null));
  }
}
