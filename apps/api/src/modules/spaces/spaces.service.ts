import { Inject, Injectable } from '@nestjs/common';
import {
  SPACE_HOSTING_PREFIX,
  SPACE_RESERVED_HANDLES,
  type HandleCheckResponse,
  type SpaceAppDetailResponse,
  type SpaceAppResponse,
  type SpaceHandleResponse,
  type SpaceProfileResponse,
} from '@switchyard/shared-dto';
import type { SpaceGenerateDto } from '@switchyard/shared-dto/validation';
import type { OwnedResources } from '../../common/auth/ownership.guard';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { AccountDeletion, AccountsService } from '../accounts';
import { CatalogService } from '../proxy';
import type { SpaceAppEntity } from './entities/space-app.entity';
import { slugFromPrompt } from './page-check';

/** An app's title until the model's page names it, when its owner gave none. */
const NEW_APP_TITLE = 'New app';
import { SpaceJobsRunner } from './space-jobs.runner';
import { SpacesErrorCode, SpacesException } from './spaces.exception';
import { SpacesRepository } from './spaces.repository';

/** Also in the space_app_counts trigger (migration 1763800014000), which holds it under concurrency. */
const MAX_APPS_PER_USER = 100;
/**
 * Jobs one user may have queued or running at once, so one user cannot fill every instance's runner. Each job
 * holds one of this many slots, unique per user (spaces.repository.ts), so the limit holds under concurrency.
 */
const MAX_JOBS_PER_USER = 3;

/** What the hosting route serves for `/s/{handle}/{slug}`. */
export type HostedPage = { kind: 'page'; html: string } | { kind: 'moved'; location: string } | { kind: 'none' };

/**
 * Spaces (docs/spaces.md): handles, apps written by models through the gateway as jobs, their kept versions,
 * publishing, the public profile, and the pages the hosting route serves. Returns response shapes, never
 * entities.
 */
@Injectable()
export class SpacesService implements OwnedResources {
  constructor(
    private readonly repository: SpacesRepository,
    private readonly accounts: AccountsService,
    private readonly catalog: CatalogService,
    private readonly runner: SpaceJobsRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    deletion: AccountDeletion,
  ) {
    deletion.register('unpublish every space app', (userId) => this.repository.unpublishAll(userId));
  }

  // ---- handles and the profile ---------------------------------------------------------------------------

  async setHandle(userId: string, handle: string): Promise<SpaceHandleResponse> {
    if (!(await this.accounts.setHandle(userId, handle)))
      throw new SpacesException(SpacesErrorCode.HANDLE_TAKEN, `The handle ${handle} is taken`, 'handle');
    return { handle, profileUrl: this.profileUrl(handle) };
  }

  /** Public. A handle someone holds, or once held, stays theirs (docs/decisions.md#hosted-space-apps). */
  async checkHandle(handle: string): Promise<HandleCheckResponse> {
    if (SPACE_RESERVED_HANDLES.includes(handle)) return { available: false, reason: 'reserved' };
    if (await this.accounts.handleHolder(handle)) return { available: false, reason: 'taken' };
    return { available: true };
  }

  /** Public: the published apps under a handle (an old handle of the account finds it too). */
  async profile(handle: string, viewerId: string | null): Promise<SpaceProfileResponse> {
    const holder = await this.accounts.handleHolder(handle);
    if (!holder?.handle)
      throw new SpacesException(SpacesErrorCode.SPACE_PROFILE_NOT_FOUND, `Nobody has the handle ${handle}`);
    const apps = await this.repository.listPublished(holder.userId);
    return {
      profile: { handle: holder.handle, displayName: holder.name, bio: null, avatarUrl: null },
      apps: await this.toResponses(apps, holder.handle),
      isOwner: viewerId === holder.userId,
    };
  }

  // ---- the owner's apps ----------------------------------------------------------------------------------

  async listMine(userId: string): Promise<SpaceAppResponse[]> {
    const handle = await this.handleOf(userId);
    return this.toResponses(await this.repository.listApps(userId), handle ?? '');
  }

  async getMine(userId: string, slug: string): Promise<SpaceAppDetailResponse> {
    const app = await this.owned(userId, slug);
    const versions = await this.repository.listVersions(app.id);
    const current = app.currentVersion === null ? null : await this.repository.findVersion(app.id, app.currentVersion);
    return {
      ...this.toResponse(app, (await this.handleOf(userId)) ?? '', current?.parentVersion ?? null),
      html: current?.html ?? null,
      versions: versions.map((version) => ({
        version: version.version,
        kind: version.kind,
        prompt: version.prompt,
        model: version.model,
        createdAt: version.createdAt.toISOString(),
        current: version.version === app.currentVersion,
      })),
    };
  }

  /** Queues a generation; the app answers at once, `generating`, and a job makes it `ready` or `failed`. */
  async generate(userId: string, body: SpaceGenerateDto): Promise<SpaceAppResponse> {
    const handle = await this.handleOf(userId);
    if (!handle)
      throw new SpacesException(SpacesErrorCode.SPACE_HANDLE_REQUIRED, 'Claim a handle first: your apps live under it');
    const models = this.modelsFor(body.models);
    const limitReached = () =>
      new SpacesException(
        SpacesErrorCode.SPACE_APP_LIMIT_REACHED,
        `At most ${MAX_APPS_PER_USER} apps; delete one first`,
      );
    if ((await this.repository.countApps(userId)) >= MAX_APPS_PER_USER) throw limitReached();
    // The count above is the quick answer; the database's own count (a trigger) holds the limit under concurrency.
    const app = await this.repository.insertAppWithJob(
      // A title of its own: the owner's, else (until the page's <title> arrives) "New app", never the prompt cut short.
      {
        userId,
        title: body.title ?? NEW_APP_TITLE,
        titleSetByUser: body.title !== undefined,
        prompt: body.prompt,
        models,
      },
      slugFromPrompt(body.prompt),
      MAX_JOBS_PER_USER,
    );
    if (app === 'app_limit') throw limitReached();
    if (!app) throw this.tooManyJobs();
    this.runner.kick();
    return this.toResponse(app, handle, null);
  }

  /** Names the app; its address stays, and pages the model writes later keep this title. */
  async rename(userId: string, slug: string, title: string): Promise<SpaceAppResponse> {
    if (!(await this.repository.rename(userId, slug, title))) throw this.notFound();
    return this.mine(userId, slug);
  }

  /** Queues an edit of the current page; the app is `generating` until the model's revision is in. */
  async edit(userId: string, slug: string, prompt: string): Promise<SpaceAppResponse> {
    const started = await this.repository.startEdit(userId, slug, prompt, MAX_JOBS_PER_USER);
    if (!started.started) {
      if (started.reason === 'too_many') throw this.tooManyJobs();
      if (started.reason === 'missing') throw this.notFound();
      if (started.reason === 'busy') throw this.busy();
      throw new SpacesException(
        SpacesErrorCode.SPACE_APP_NOT_READY,
        'This app has no page to edit yet; generate a new one',
      );
    }
    this.runner.kick();
    return this.mine(userId, slug);
  }

  async publish(userId: string, slug: string, published: boolean): Promise<SpaceAppResponse> {
    if (!(await this.repository.setPublished(userId, slug, published))) {
      await this.owned(userId, slug);
      throw new SpacesException(
        SpacesErrorCode.SPACE_APP_NOT_READY,
        'This app has no page yet: publish it once it is ready',
      );
    }
    return this.mine(userId, slug);
  }

  /** Serves the page the last edit revised again; the undone version stays in the list. */
  async undo(userId: string, slug: string): Promise<SpaceAppResponse> {
    if (!(await this.repository.undo(userId, slug))) {
      const app = await this.owned(userId, slug);
      if (app.status === 'generating') throw this.busy();
      throw new SpacesException(SpacesErrorCode.SPACE_NOTHING_TO_UNDO, 'There is no edit to undo');
    }
    return this.mine(userId, slug);
  }

  async delete(userId: string, slug: string): Promise<{ slug: string }> {
    if (!(await this.repository.deleteApp(userId, slug))) throw this.notFound();
    return { slug };
  }

  // ---- hosting -------------------------------------------------------------------------------------------

  /** The page at `/s/{handle}/{slug}` on SPACES_ORIGIN: published apps only; an old handle of the account redirects. */
  async hostedPage(handle: string, slug: string): Promise<HostedPage> {
    const holder = await this.accounts.handleHolder(handle);
    if (!holder?.handle) return { kind: 'none' };
    if (holder.handle !== handle) return { kind: 'moved', location: this.appUrl(holder.handle, slug) };
    const html = await this.repository.publishedPage(holder.userId, slug);
    return html === null ? { kind: 'none' } : { kind: 'page', html };
  }

  // ---- ownership (OwnedResources) ------------------------------------------------------------------------

  /** Slugs are unique per owner: the app is the caller's when the caller has one by that slug. */
  async ownerOf(slug: string, callerId: string): Promise<string | null> {
    return (await this.repository.findApp(callerId, slug)) ? callerId : null;
  }

  notFound(): SpacesException {
    return new SpacesException(SpacesErrorCode.SPACE_APP_NOT_FOUND, 'No such app');
  }

  // ---- helpers -------------------------------------------------------------------------------------------

  private tooManyJobs(): SpacesException {
    return new SpacesException(
      SpacesErrorCode.SPACE_TOO_MANY_JOBS,
      `At most ${MAX_JOBS_PER_USER} apps are written at once; wait until one is ready`,
    );
  }

  private busy(): SpacesException {
    return new SpacesException(
      SpacesErrorCode.SPACE_APP_BUSY,
      'A model is still writing this app; wait until it is ready',
    );
  }

  /** The models a generation tries in order: those asked for (each a chat model of the catalog), or the default. */
  private modelsFor(requested: string[] | undefined): string[] {
    if (requested) {
      for (const id of requested) {
        const model = this.catalog.find(id);
        if (!model || !model.methods.includes('chat_completions'))
          throw new SpacesException(
            SpacesErrorCode.SPACE_MODEL_UNSUPPORTED,
            `${id.slice(0, 200)} is not a chat model of this Switchyard (see GET /v1/models?method=chat_completions)`,
            'models',
          );
      }
      return requested;
    }
    const fallback = this.catalog.list({ type: 'text', method: 'chat_completions' })[0];
    if (!fallback)
      throw new SpacesException(
        SpacesErrorCode.SPACE_NO_MODEL,
        'This Switchyard has no chat model to write pages with',
      );
    return [fallback.id];
  }

  private async handleOf(userId: string): Promise<string | null> {
    return (await this.accounts.me(userId)).handle;
  }

  private async owned(userId: string, slug: string): Promise<SpaceAppEntity> {
    const app = await this.repository.findApp(userId, slug);
    if (!app) throw this.notFound();
    return app;
  }

  private async mine(userId: string, slug: string): Promise<SpaceAppResponse> {
    const { html: _html, versions: _versions, ...app } = await this.getMine(userId, slug);
    return app;
  }

  private async toResponses(apps: SpaceAppEntity[], handle: string): Promise<SpaceAppResponse[]> {
    const parents = await this.repository.parentsOfCurrent(apps.map((app) => app.id));
    return apps.map((app) => this.toResponse(app, handle, parents.get(app.id) ?? null));
  }

  private toResponse(app: SpaceAppEntity, handle: string, parentVersion: number | null): SpaceAppResponse {
    return {
      slug: app.slug,
      title: app.title,
      prompt: app.prompt,
      models: app.models,
      status: app.status,
      published: app.published,
      url: this.appUrl(handle, app.slug),
      createdAt: app.createdAt.toISOString(),
      updatedAt: app.updatedAt.toISOString(),
      ...(app.error ? { error: app.error } : {}),
      version: app.currentVersion,
      canUndo: app.status !== 'generating' && parentVersion !== null,
    };
  }

  /** On SPACES_ORIGIN (createApp resolves an unset one to the hosted-apps listener), never the dashboard's origin. */
  private appUrl(handle: string, slug: string): string {
    return `${this.config.spacesOrigin ?? this.config.publicUrl}${SPACE_HOSTING_PREFIX}/${encodeURIComponent(handle)}/${encodeURIComponent(slug)}`;
  }

  private profileUrl(handle: string): string {
    return `${this.config.publicUrl}/u/${encodeURIComponent(handle)}`;
  }
}
