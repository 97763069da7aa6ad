import { Inject, Injectable } from '@nestjs/common';
import {
  reservedNameProblem,
  SPACE_ORIGIN_LABEL_MAX,
  SPACE_PREVIEW_PATH,
  SPACE_RESERVED_HANDLES,
  SPACE_VISITOR_MONTHLY_CAP,
  spaceOriginLabel,
  type HandleCheckResponse,
  type SpaceAppDetailResponse,
  type SpaceAppResponse,
  type SpaceHandleResponse,
  type SpaceProfileResponse,
  type SpaceRemixCredit,
} from '@switchyard/shared-dto';
import type { SpaceGenerateDto } from '@switchyard/shared-dto/validation';
import type { OwnedResources } from '../../common/auth/ownership.guard';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { AccountDeletion, AccountsService } from '../accounts';
import { ClientsService, type SpaceClientRequest } from '../clients';
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

/**
 * What the hosting listener serves for an app's origin: its page and the public id of its OAuth client (null
 * while it has no active one), a redirect to the app's current origin (an old handle), or nothing.
 */
export type HostedPage =
  { kind: 'page'; html: string; clientId: string | null } | { kind: 'moved'; location: string } | { kind: 'none' };

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
    private readonly clients: ClientsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    deletion: AccountDeletion,
  ) {
    deletion.register('unpublish every space app and deactivate its client', async (userId) => {
      const published = await this.repository.listPublished(userId);
      await this.repository.unpublishAll(userId);
      for (const app of published)
        if (app.clientPk !== null) await this.clients.retireOwned(userId, app.clientPk, { delete: false });
    });
  }

  // ---- handles and the profile ---------------------------------------------------------------------------

  async setHandle(userId: string, handle: string): Promise<SpaceHandleResponse> {
    if (!(await this.accounts.setHandle(userId, handle)))
      throw new SpacesException(SpacesErrorCode.HANDLE_TAKEN, `The handle ${handle} is taken`, 'handle');
    // The published apps moved to new origins: their clients' redirect URIs follow (the old origins redirect).
    for (const app of await this.repository.listPublished(userId))
      if (app.clientPk !== null && spaceOriginLabel(handle, app.slug).length <= SPACE_ORIGIN_LABEL_MAX)
        await this.clients.registerForSpaceApp(this.clientRequest(app, handle));
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
      ...(await this.toResponses([app], (await this.handleOf(userId)) ?? '', current?.parentVersion ?? null))[0],
      html: current?.html ?? null,
      previewUrl: `${this.config.spacesOrigin ?? this.config.publicUrl}${SPACE_PREVIEW_PATH}`,
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
    return (await this.toResponses([app], handle))[0];
  }

  /**
   * Copies a published app into the caller's space (docs/spaces.md#remix): a new app, ready, whose history starts
   * with the original's page; it names the original and its creator. Unpublished and missing apps are alike: 404.
   */
  async remix(userId: string, handle: string, slug: string): Promise<SpaceAppResponse> {
    const mine = await this.handleOf(userId);
    if (!mine)
      throw new SpacesException(SpacesErrorCode.SPACE_HANDLE_REQUIRED, 'Claim a handle first: your apps live under it');
    const missing = () =>
      new SpacesException(SpacesErrorCode.SPACE_REMIX_NOT_FOUND, `No published app ${slug} under @${handle}`);
    const limitReached = () =>
      new SpacesException(
        SpacesErrorCode.SPACE_APP_LIMIT_REACHED,
        `At most ${MAX_APPS_PER_USER} apps; delete one first`,
      );
    const holder = await this.accounts.handleHolder(handle);
    if (!holder?.handle) throw missing();
    if ((await this.repository.countApps(userId)) >= MAX_APPS_PER_USER) throw limitReached();
    const app = await this.repository.insertRemix(
      userId,
      holder.userId,
      slug,
      `Remixed from @${holder.handle}/${slug}`,
    );
    if (app === 'missing') throw missing();
    if (app === 'app_limit') throw limitReached();
    return (await this.toResponses([app], mine, null))[0];
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
    // The answer is the accepted edit (generating, at the version it edits), read before the runner is woken: read
    // after, a quick model could already have finished it, and the 202 would describe a later state.
    const accepted = await this.mine(userId, slug);
    this.runner.kick();
    return accepted;
  }

  /**
   * Publishes or unpublishes. Publishing gives the app its OAuth client (registered, or the earlier one reused and
   * reactivated: docs/spaces.md#each-app-an-oauth-client); unpublishing deactivates it.
   */
  async publish(userId: string, slug: string, published: boolean): Promise<SpaceAppResponse> {
    const app = await this.owned(userId, slug);
    if (!published) {
      await this.repository.setPublished(userId, slug, false);
      if (app.clientPk !== null) await this.clients.retireOwned(userId, app.clientPk, { delete: false });
      return this.mine(userId, slug);
    }
    if (app.currentVersion === null) throw this.notReady();
    const handle = (await this.handleOf(userId)) ?? '';
    if (spaceOriginLabel(handle, slug).length > SPACE_ORIGIN_LABEL_MAX)
      throw new SpacesException(
        SpacesErrorCode.SPACE_ADDRESS_TOO_LONG,
        `@${handle} and ${slug} make a host name label of more than ${SPACE_ORIGIN_LABEL_MAX} characters; remix the app under a shorter name or use a shorter handle`,
      );
    const client = await this.clients.registerForSpaceApp(this.clientRequest(app, handle));
    if (!(await this.repository.publishWithClient(userId, slug, client.id))) {
      await this.owned(userId, slug);
      throw this.notReady();
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

  /** Deletes the app with its versions, jobs and OAuth client (its visitors' tokens stop at once). */
  async delete(userId: string, slug: string): Promise<{ slug: string }> {
    const deleted = await this.repository.deleteApp(userId, slug);
    if (!deleted) throw this.notFound();
    if (deleted.clientPk !== null) await this.clients.retireOwned(userId, deleted.clientPk, { delete: true });
    return { slug };
  }

  // ---- hosting -------------------------------------------------------------------------------------------

  /**
   * The app at `{handle}--{slug}.` SPACES_ORIGIN's host: published apps only, with their client's public id; an
   * old handle of the account redirects to the app's current origin.
   */
  async hostedPage(handle: string, slug: string): Promise<HostedPage> {
    const holder = await this.accounts.handleHolder(handle);
    if (!holder?.handle) return { kind: 'none' };
    if (holder.handle !== handle) return { kind: 'moved', location: `${this.appUrl(holder.handle, slug)}` };
    const page = await this.repository.publishedPage(holder.userId, slug);
    if (page === null) return { kind: 'none' };
    const clientId = page.clientPk === null ? null : await this.clients.activeClientIdOf(holder.userId, page.clientPk);
    return { kind: 'page', html: page.html, clientId };
  }

  /** The origin of an app: `{handle}--{slug}.` in front of SPACES_ORIGIN's host, same scheme and port. */
  appOrigin(handle: string, slug: string): string {
    const spaces = new URL(this.config.spacesOrigin ?? this.config.publicUrl);
    return `${spaces.protocol}//${spaceOriginLabel(handle, slug)}.${spaces.host}`;
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

  /** What the app's OAuth client is: named after the app and its creator, redirecting to the app's origin. */
  private clientRequest(app: SpaceAppEntity, handle: string): SpaceClientRequest {
    return {
      ownerId: app.userId,
      existing: app.clientPk,
      clientName: clientNameOf(app.title, app.slug, handle),
      redirectUri: this.appUrl(handle, app.slug),
      // No markup here: a new client starts at 0 % and the creator sets one on it (docs/spaces.md#who-pays-and-who-earns).
      visitorMonthlyCap: SPACE_VISITOR_MONTHLY_CAP,
    };
  }

  private notReady(): SpacesException {
    return new SpacesException(
      SpacesErrorCode.SPACE_APP_NOT_READY,
      'This app has no page yet: publish it once it is ready',
    );
  }

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
    const { html: _html, versions: _versions, previewUrl: _previewUrl, ...app } = await this.getMine(userId, slug);
    return app;
  }

  /** The apps as the API shows them; `parentVersion` given for a single app saves a lookup. */
  private async toResponses(
    apps: SpaceAppEntity[],
    handle: string,
    parentVersion?: number | null,
  ): Promise<SpaceAppResponse[]> {
    const parents =
      parentVersion === undefined
        ? await this.repository.parentsOfCurrent(apps.map((app) => app.id))
        : new Map(apps.map((app) => [app.id, parentVersion ?? undefined]));
    const clientIds = await this.clients.publicIdsOf(
      apps.flatMap((app) => (app.clientPk === null ? [] : [app.clientPk])),
    );
    const credits = await Promise.all(apps.map((app) => this.remixCredit(app)));
    return apps.map((app, index) => ({
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
      canUndo: app.status !== 'generating' && (parents.get(app.id) ?? null) !== null,
      clientId: app.clientPk === null ? null : (clientIds.get(app.clientPk) ?? null),
      remixOf: credits[index],
    }));
  }

  /** Who made the app this one was remixed from (their current handle; null when the account is gone). */
  private async remixCredit(app: SpaceAppEntity): Promise<SpaceRemixCredit | null> {
    if (app.remixOfSlug === null || app.remixOfUser === null) return null;
    const handle = await this.accounts.me(app.remixOfUser).then(
      (user) => user.handle,
      () => null,
    );
    return {
      handle,
      slug: app.remixOfSlug,
      title: app.remixOfTitle ?? app.remixOfSlug,
      url: handle ? this.appUrl(handle, app.remixOfSlug) : null,
    };
  }

  /** The app's own origin (createApp resolves an unset SPACES_ORIGIN to the hosted-apps listener), with a slash. */
  private appUrl(handle: string, slug: string): string {
    return `${this.appOrigin(handle, slug)}/`;
  }

  private profileUrl(handle: string): string {
    return `${this.config.publicUrl}/u/${encodeURIComponent(handle)}`;
  }
}

/** The client's name on the consent page: the app's title and its creator's handle, never a reserved name. */
function clientNameOf(title: string, slug: string, handle: string): string {
  const name = `${title} · @${handle}`;
  return reservedNameProblem(name) === null ? name : `App ${slug}`;
}
