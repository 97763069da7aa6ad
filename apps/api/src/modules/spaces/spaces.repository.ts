import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isUniqueViolation } from '../../common/database/postgres-errors';
import { SpaceAppVersionEntity } from './entities/space-app-version.entity';
import { SpaceAppEntity } from './entities/space-app.entity';
import { SpaceJobEntity } from './entities/space-job.entity';
import { slugCandidate } from './page-check';

/** A job as the runner holds it: `attempts` identifies this claim of it (a later claim counts one more). */
export interface ClaimedJob {
  id: string;
  appId: string;
  userId: string;
  kind: 'generate' | 'edit';
  prompt: string;
  models: string[];
  baseVersion: number | null;
  attempts: number;
}

export interface FinishedPage {
  html: string;
  /** The page's own title; null keeps the app's. */
  title: string | null;
  model: string;
  requestId: string | null;
}

export type EditStart =
  { started: true; appId: string } | { started: false; reason: 'missing' | 'busy' | 'no_page' | 'too_many' };

const SLUG_TRIES = 20;
/** Times to look again for a free job slot after losing one to a concurrent request. */
const SLOT_TRIES = 10;

/**
 * The CTE `slot`: the user's ($1) lowest job slot from 1 to the limit (parameter `limit`) that no queued or
 * running job holds; empty when all are taken. The first CTE of the statements that queue a job.
 */
const freeSlot = (limit: number) => `slot AS (
  SELECT s.n FROM generate_series(1, $${limit}::int) AS s(n)
   WHERE NOT EXISTS (SELECT 1 FROM space_jobs j WHERE j.user_id = $1 AND j.slot = s.n AND j.status IN ('queued', 'running'))
   ORDER BY s.n LIMIT 1)`;

/**
 * The only code that touches the spaces tables (TypeORM answers a top-level UPDATE with [rows, affected]). Every lookup of an app also takes its owner. The embedded
 * database breaks explicit transactions that run beside other traffic (docs/database.md), so each change here
 * is one statement (CTEs where several rows move together), guarded by the state it expects.
 */
@Injectable()
export class SpacesRepository {
  constructor(
    @InjectRepository(SpaceAppEntity) private readonly apps: Repository<SpaceAppEntity>,
    @InjectRepository(SpaceAppVersionEntity) private readonly versions: Repository<SpaceAppVersionEntity>,
    @InjectRepository(SpaceJobEntity) private readonly jobs: Repository<SpaceJobEntity>,
  ) {}

  countApps(userId: string): Promise<number> {
    return this.apps.countBy({ userId });
  }

  /**
   * Creates the app (status generating) and its generation job in one statement, under the first free slug of
   * `slugBase`, `slugBase-2`, … (a random suffix after that), if the user has a free job slot (1 to `maxJobs`):
   * null when all are taken. The slot's unique index keeps the limit under concurrency: of two statements that
   * picked the same free slot, the second fails on the index (and inserts nothing) and looks again. 'app_limit'
   * when the user already has their most apps (a trigger counts them: migration 1763800014000).
   */
  async insertAppWithJob(
    app: Pick<SpaceAppEntity, 'userId' | 'title' | 'titleSetByUser' | 'prompt' | 'models'>,
    slugBase: string,
    maxJobs: number,
  ): Promise<SpaceAppEntity | null | 'app_limit'> {
    let n = 1;
    let slotsLost = 0;
    while (n <= SLUG_TRIES + 1) {
      const slug =
        n <= SLUG_TRIES
          ? slugCandidate(slugBase, n)
          : slugCandidate(slugBase, 0).slice(0, 31) + '-' + randomBytes(4).toString('hex');
      let rows: Array<{ slot: number | null; id: string | null }>;
      try {
        rows = await this.apps.query(
          `WITH ${freeSlot(6)},
           app AS (
             INSERT INTO space_apps (user_id, slug, title, prompt, models, status, title_set_by_user)
             SELECT $1::uuid, $2::text, $3::text, $4::text, $5::text[], 'generating', $7::boolean FROM slot
             ON CONFLICT ON CONSTRAINT space_apps_user_slug_key DO NOTHING
             RETURNING id, user_id, prompt, models),
           job AS (
             INSERT INTO space_jobs (app_id, user_id, kind, prompt, models, slot)
             SELECT app.id, app.user_id, 'generate', app.prompt, app.models, slot.n FROM app, slot RETURNING id)
           SELECT (SELECT n FROM slot) AS slot, (SELECT app.id FROM app, job) AS id`,
          [app.userId, slug, app.title, app.prompt, app.models, maxJobs, app.titleSetByUser],
        );
      } catch (error) {
        // The user's 100th app is made: the database's count refused this one (space_app_counts).
        if ((error as { constraint?: string }).constraint === 'space_app_limit') return 'app_limit';
        // Another request took the same slot first: look again (its job now holds it).
        if (!isUniqueViolation(error, 'space_jobs_user_slot_key')) throw error;
        if (++slotsLost >= SLOT_TRIES) return null;
        continue;
      }
      if (rows[0]?.slot === null || rows[0]?.slot === undefined) return null;
      if (rows[0].id) return (await this.apps.findOneBy({ id: rows[0].id }))!;
      n += 1; // the slug is taken: the next candidate
    }
    throw new Error(`no free slug for ${slugBase}`);
  }

  /**
   * A remix in one statement: the published app `handle`'s owner (`sourceUserId`) has at `sourceSlug` becomes the
   * caller's new app, `ready`, whose first version (kind `remix`) is the original's current page, crediting the
   * original. Under the first free slug of the original's, `-2`, … 'missing' when the original is not published,
   * 'app_limit' at the caller's 100th app.
   */
  async insertRemix(
    userId: string,
    sourceUserId: string,
    sourceSlug: string,
    note: string,
  ): Promise<SpaceAppEntity | 'missing' | 'app_limit'> {
    for (let n = 1; n <= SLUG_TRIES + 1; n++) {
      const slug =
        n <= SLUG_TRIES
          ? slugCandidate(sourceSlug, n)
          : slugCandidate(sourceSlug, 0).slice(0, 31) + '-' + randomBytes(4).toString('hex');
      let rows: Array<{ found: string; id: string | null }>;
      try {
        rows = await this.apps.query(
          `WITH src AS (
             SELECT a.id, a.user_id, a.slug, a.title, a.prompt, a.models, v.html, v.model, v.title AS page_title
               FROM space_apps a JOIN space_app_versions v ON v.app_id = a.id AND v.version = a.current_version
              WHERE a.user_id = $2 AND a.slug = $3 AND a.published),
           app AS (
             INSERT INTO space_apps (user_id, slug, title, prompt, models, status, current_version,
                                     remix_of_app, remix_of_user, remix_of_slug, remix_of_title)
             SELECT $1::uuid, $4::text, src.title, src.prompt, src.models, 'ready', 1, src.id, src.user_id, src.slug, src.title
               FROM src
             ON CONFLICT ON CONSTRAINT space_apps_user_slug_key DO NOTHING
             RETURNING id),
           ver AS (
             INSERT INTO space_app_versions (app_id, version, parent_version, kind, prompt, model, title, html)
             SELECT app.id, 1, NULL, 'remix', $5::text, src.model, src.page_title, src.html FROM app, src
             RETURNING app_id)
           SELECT (SELECT count(*) FROM src) AS found, (SELECT app_id FROM ver) AS id`,
          [userId, sourceUserId, sourceSlug, slug, note],
        );
      } catch (error) {
        if ((error as { constraint?: string }).constraint === 'space_app_limit') return 'app_limit';
        throw error;
      }
      if (Number(rows[0]?.found ?? 0) === 0) return 'missing';
      if (rows[0].id) return (await this.apps.findOneBy({ id: rows[0].id }))!;
    }
    throw new Error(`no free slug for ${sourceSlug}`);
  }

  listApps(userId: string): Promise<SpaceAppEntity[]> {
    return this.apps.find({ where: { userId }, order: { createdAt: 'DESC' } });
  }

  listPublished(userId: string): Promise<SpaceAppEntity[]> {
    return this.apps.find({ where: { userId, published: true }, order: { createdAt: 'DESC' } });
  }

  findApp(userId: string, slug: string): Promise<SpaceAppEntity | null> {
    return this.apps.findOneBy({ userId, slug });
  }

  /** The app's versions, newest first, without their pages. */
  listVersions(appId: string): Promise<SpaceAppVersionEntity[]> {
    return this.versions.find({
      where: { appId },
      order: { version: 'DESC' },
      select: {
        appId: true,
        version: true,
        parentVersion: true,
        kind: true,
        prompt: true,
        model: true,
        title: true,
        requestId: true,
        createdAt: true,
      },
    });
  }

  /** For each app, the version its current page revised (absent: no page, or the first one). */
  async parentsOfCurrent(appIds: string[]): Promise<Map<string, number>> {
    if (!appIds.length) return new Map();
    const rows: Array<{ app_id: string; parent_version: number }> = await this.versions.query(
      `SELECT v.app_id, v.parent_version FROM space_apps a
         JOIN space_app_versions v ON v.app_id = a.id AND v.version = a.current_version
        WHERE a.id = ANY($1::uuid[]) AND v.parent_version IS NOT NULL`,
      [appIds],
    );
    return new Map(rows.map((row) => [row.app_id, Number(row.parent_version)]));
  }

  findVersion(appId: string, version: number): Promise<SpaceAppVersionEntity | null> {
    return this.versions.findOneBy({ appId, version });
  }

  /** The page a published app serves and its client; null when there is none (unpublished, no page, no app). */
  async publishedPage(userId: string, slug: string): Promise<{ html: string; clientPk: number | null } | null> {
    const rows: Array<{ html: string; client_pk: number | null }> = await this.apps.query(
      `SELECT v.html, a.client_pk FROM space_apps a
         JOIN space_app_versions v ON v.app_id = a.id AND v.version = a.current_version
        WHERE a.user_id = $1 AND a.slug = $2 AND a.published`,
      [userId, slug],
    );
    return rows[0]
      ? { html: rows[0].html, clientPk: rows[0].client_pk === null ? null : Number(rows[0].client_pk) }
      : null;
  }

  /**
   * Starts an edit: the app turns `generating` and an edit job of its current version is queued, in one
   * statement, only when the app has a page, no job is running (the row's status is re-checked under its lock,
   * and the one-active-job index backs that up) and the user has a free job slot (as insertAppWithJob).
   */
  async startEdit(userId: string, slug: string, prompt: string, maxJobs: number): Promise<EditStart> {
    for (let tries = 0; tries < SLOT_TRIES; tries++) {
      let rows: Array<{ slot: number | null; id: string | null }>;
      try {
        rows = await this.apps.query(
          `WITH ${freeSlot(4)},
           app AS (
             UPDATE space_apps SET status = 'generating', error = NULL, updated_at = now()
              WHERE user_id = $1 AND slug = $2 AND status <> 'generating' AND current_version IS NOT NULL AND EXISTS (SELECT 1 FROM slot)
              RETURNING id, user_id, models, current_version),
           job AS (
             INSERT INTO space_jobs (app_id, user_id, kind, prompt, models, base_version, slot)
             SELECT app.id, app.user_id, 'edit', $3::text, app.models, app.current_version, slot.n FROM app, slot RETURNING id)
           SELECT (SELECT n FROM slot) AS slot, (SELECT app.id FROM app, job) AS id`,
          [userId, slug, prompt, maxJobs],
        );
      } catch (error) {
        if (isUniqueViolation(error, 'space_jobs_user_slot_key')) continue;
        if (isUniqueViolation(error, 'space_jobs_active_app_key')) break;
        throw error;
      }
      if (rows[0]?.id) return { started: true, appId: rows[0].id };
      if (rows[0]?.slot === null || rows[0]?.slot === undefined) return { started: false, reason: 'too_many' };
      break;
    }
    const app = await this.findApp(userId, slug);
    return { started: false, reason: !app ? 'missing' : app.status === 'generating' ? 'busy' : 'no_page' };
  }

  /** Unpublishes every app of the user (a deleted account). */
  async unpublishAll(userId: string): Promise<void> {
    await this.apps.update({ userId, published: true }, { published: false, updatedAt: () => 'now()' });
  }

  /** Publishes or unpublishes; an app is published only once it has a page. False when nothing matched. */
  async setPublished(userId: string, slug: string, published: boolean): Promise<boolean> {
    const result = await this.apps
      .createQueryBuilder()
      .update()
      .set({ published, updatedAt: () => 'now()' })
      .where('user_id = :userId AND slug = :slug', { userId, slug })
      .andWhere(published ? 'current_version IS NOT NULL' : 'true')
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Publishes an app that has a page, with its OAuth client; false when nothing matched. */
  async publishWithClient(userId: string, slug: string, clientPk: number): Promise<boolean> {
    const result = await this.apps
      .createQueryBuilder()
      .update()
      .set({ published: true, clientPk, updatedAt: () => 'now()' })
      .where('user_id = :userId AND slug = :slug AND current_version IS NOT NULL', { userId, slug })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Names the app (its owner's title stays over later pages' <title>); false when there is no such app. */
  async rename(userId: string, slug: string, title: string): Promise<boolean> {
    const result = await this.apps
      .createQueryBuilder()
      .update()
      .set({ title, titleSetByUser: true, updatedAt: () => 'now()' })
      .where('user_id = :userId AND slug = :slug', { userId, slug })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Serves the current version's parent again (its title too); false when there is none or a job runs. */
  async undo(userId: string, slug: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.apps.query(
      `UPDATE space_apps a SET current_version = p.version, title = CASE WHEN a.title_set_by_user THEN a.title ELSE p.title END,
              error = NULL, updated_at = now()
         FROM space_app_versions v JOIN space_app_versions p ON p.app_id = v.app_id AND p.version = v.parent_version
        WHERE a.user_id = $1 AND a.slug = $2 AND a.status <> 'generating' AND v.app_id = a.id AND v.version = a.current_version
        RETURNING a.id`,
      [userId, slug],
    );
    return rows.length > 0;
  }

  /**
   * Deletes the app with its versions and jobs (a running job notices at its next lease renewal); what it was
   * (its client, to delete next) or null when there was no such app.
   */
  async deleteApp(userId: string, slug: string): Promise<{ clientPk: number | null } | null> {
    const [rows]: [Array<{ client_pk: number | null }>, number] = await this.apps.query(
      `DELETE FROM space_apps WHERE user_id = $1 AND slug = $2 RETURNING client_pk`,
      [userId, slug],
    );
    if (!rows.length) return null;
    return { clientPk: rows[0].client_pk === null ? null : Number(rows[0].client_pk) };
  }

  // ---- jobs ----------------------------------------------------------------------------------------------

  /**
   * Claims the oldest job that is queued, or running on an instance whose lease ran out (it died), in one
   * conditional UPDATE: instances racing for it skip each other's locked rows, so exactly one gets it.
   */
  async claim(instance: string, leaseSeconds: number, maxAttempts: number): Promise<ClaimedJob | null> {
    const [rows]: [Array<Record<string, unknown>>, number] = await this.jobs.query(
      `UPDATE space_jobs j
          SET status = 'running', claimed_by = $1, attempts = j.attempts + 1,
              lease_until = now() + make_interval(secs => $2), updated_at = now()
        WHERE j.id = (
          SELECT id FROM space_jobs
           WHERE (status = 'queued' OR (status = 'running' AND lease_until < now())) AND attempts < $3
           ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING j.id, j.app_id, j.user_id, j.kind, j.prompt, j.models, j.base_version, j.attempts`,
      [instance, leaseSeconds, maxAttempts],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: String(row.id),
      appId: String(row.app_id),
      userId: String(row.user_id),
      kind: row.kind as ClaimedJob['kind'],
      prompt: String(row.prompt),
      models: row.models as string[],
      baseVersion: row.base_version === null ? null : Number(row.base_version),
      attempts: Number(row.attempts),
    };
  }

  /** Extends this claim's lease; false when the job is no longer this claim's (deleted, or taken over). */
  async renewLease(job: ClaimedJob, instance: string, leaseSeconds: number): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.jobs.query(
      `UPDATE space_jobs SET lease_until = now() + make_interval(secs => $4), updated_at = now()
        WHERE id = $1 AND status = 'running' AND claimed_by = $2 AND attempts = $3 RETURNING id`,
      [job.id, instance, job.attempts, leaseSeconds],
    );
    return rows.length > 0;
  }

  /** Keeps the page as a new version and makes it current, if this claim still holds the job. */
  async complete(job: ClaimedJob, instance: string, page: FinishedPage): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.jobs.query(
      `WITH job AS (
         UPDATE space_jobs SET status = 'done', lease_until = NULL, error = NULL, updated_at = now()
          WHERE id = $1 AND status = 'running' AND claimed_by = $2 AND attempts = $3
          RETURNING app_id, kind, prompt, base_version),
       ver AS (
         INSERT INTO space_app_versions (app_id, version, parent_version, kind, prompt, model, title, html, request_id)
         SELECT job.app_id, COALESCE((SELECT max(v.version) FROM space_app_versions v WHERE v.app_id = job.app_id), 0) + 1,
                job.base_version, job.kind, job.prompt, $4, COALESCE($5, a.title), $6, $7
           FROM job JOIN space_apps a ON a.id = job.app_id
         RETURNING app_id, version, title)
       UPDATE space_apps a SET status = 'ready', error = NULL, current_version = ver.version,
              title = CASE WHEN a.title_set_by_user THEN a.title ELSE ver.title END, updated_at = now()
         FROM ver WHERE a.id = ver.app_id RETURNING a.id`,
      [job.id, instance, job.attempts, page.model, page.title, page.html, page.requestId],
    );
    return rows.length > 0;
  }

  /** Ends the job as failed with the reason; the app is `failed` if it has no page yet, else stays `ready`. */
  async fail(job: ClaimedJob, instance: string, reason: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.jobs.query(
      `WITH job AS (
         UPDATE space_jobs SET status = 'failed', error = $4, lease_until = NULL, updated_at = now()
          WHERE id = $1 AND status = 'running' AND claimed_by = $2 AND attempts = $3 RETURNING app_id)
       UPDATE space_apps a SET status = CASE WHEN a.current_version IS NULL THEN 'failed' ELSE 'ready' END, error = $4, updated_at = now()
         FROM job WHERE a.id = job.app_id RETURNING a.id`,
      [job.id, instance, job.attempts, reason],
    );
    return rows.length > 0;
  }

  /** Gives the job back (this instance is shutting down): another instance, or this one restarted, runs it. */
  async release(job: ClaimedJob, instance: string): Promise<void> {
    await this.jobs.query(
      `UPDATE space_jobs SET status = 'queued', claimed_by = NULL, lease_until = NULL, updated_at = now()
        WHERE id = $1 AND status = 'running' AND claimed_by = $2 AND attempts = $3`,
      [job.id, instance, job.attempts],
    );
  }

  /**
   * Jobs whose instance died: with `all` (the embedded database, which only one process can open, so every
   * running job at start belongs to a dead one) all running jobs, else those whose lease ran out. Those that
   * were already tried `maxAttempts` times fail with `reason`; the others go back to the queue. Two statements,
   * each on its own correct whatever runs between them.
   */
  async recover(all: boolean, maxAttempts: number, reason: string): Promise<void> {
    await this.jobs.query(
      `WITH dead AS (
         UPDATE space_jobs SET status = 'failed', error = $3, claimed_by = NULL, lease_until = NULL, updated_at = now()
          WHERE status IN ('running', 'queued') AND attempts >= $2 AND (status = 'queued' OR $1 OR lease_until < now())
          RETURNING app_id)
       UPDATE space_apps a SET status = CASE WHEN a.current_version IS NULL THEN 'failed' ELSE 'ready' END, error = $3, updated_at = now()
         FROM dead WHERE a.id = dead.app_id`,
      [all, maxAttempts, reason],
    );
    if (all)
      await this.jobs.query(
        `UPDATE space_jobs SET status = 'queued', claimed_by = NULL, lease_until = NULL, updated_at = now() WHERE status = 'running'`,
      );
  }

  /** The page an edit revises. */
  async pageOf(appId: string, version: number): Promise<string | null> {
    return (await this.versions.findOne({ where: { appId, version }, select: { html: true } }))?.html ?? null;
  }
}
