import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { SPACE_SANDBOX } from '@switchyard/shared-dto';
import type { Response } from 'express';
import { Access } from '../../common/auth/access.decorator';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { SpacesService } from './spaces.service';

const NOT_FOUND_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>' +
  '<body><h1>No published app here</h1><p>It may be unpublished, deleted, or still being written.</p></body></html>';

/**
 * Hosted space apps are untrusted code (decisions.md section 9). Each published app is served at
 * `/s/{handle}/{slug}` with `Content-Security-Policy: sandbox allow-scripts allow-forms allow-popups` (never
 * allow-same-origin), so the page runs in an opaque origin: it cannot read this host's cookies, storage or
 * tokens, and its requests here are cross-origin (no CORS for it on /api, where cookie writes also need the
 * CSRF header it cannot read). It may be framed only by the dashboard (the global frame-ancestors 'none' is
 * narrowed to it, for the live previews), never by other sites. No cookie is read or set here.
 */
@ApiTags('spaces')
@Controller('s')
export class SpacesHostingController {
  private readonly frameAncestors: string;

  constructor(
    private readonly spaces: SpacesService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.frameAncestors = `'self' ${new URL(config.publicUrl).origin}`;
  }

  @Get(':handle/:slug')
  @Access({ public: true })
  @ApiProduces('text/html')
  @ApiOperation({ summary: 'A published app, served sandboxed (an opaque origin) at its stable public URL' })
  async page(@Param('handle') handle: string, @Param('slug') slug: string, @Res() res: Response): Promise<void> {
    const page = await this.spaces.hostedPage(handle, slug);
    res.setHeader('Cache-Control', 'no-cache');
    if (page.kind === 'moved') {
      res.redirect(301, page.location);
      return;
    }
    if (page.kind === 'none') {
      res.status(404).type('html').send(NOT_FOUND_PAGE);
      return;
    }
    res.removeHeader('X-Frame-Options');
    res.setHeader('Content-Security-Policy', `sandbox ${SPACE_SANDBOX}; frame-ancestors ${this.frameAncestors}`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(200).type('html').send(page.html);
  }
}
