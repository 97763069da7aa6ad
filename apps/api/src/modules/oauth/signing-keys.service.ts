import type { KeyObject } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { newSigningKey, openPrivateKey, type PublicJwk, signJwt } from './jose';
import { SigningKeysRepository } from './signing-keys.repository';

const CHECK_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The keys that sign ID tokens (docs/oauth.md#openid-connect). Each rotation period (OIDC_KEY_ROTATION_DAYS) has
 * one key, made by whichever instance first needs it; the JWKS URI publishes the current and the previous
 * period's keys, read from the database on every request, so a key is published on every instance the moment
 * it exists, and an ID token signed just before a rotation still verifies. Older keys are deleted.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit, OnModuleDestroy {
  private current: { period: number; kid: string; privateKey: KeyObject } | null = null;
  private pending: Promise<{ kid: string; privateKey: KeyObject }> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('SigningKeys');

  constructor(
    private readonly repository: SigningKeysRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.signingKey();
    this.timer = setInterval(
      () => void this.signingKey().catch((error: Error) => this.logger.warn(`key rotation failed: ${error.message}`)),
      CHECK_MS,
    );
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The rotation period `at` falls in: whole periods since 1970. */
  periodOf(at: number): number {
    return Math.floor(at / (this.config.oidcKeyRotationDays * DAY_MS));
  }

  /** The public keys an ID token may be verified with (RFC 7517 JWK Set). */
  async jwks(now = Date.now()): Promise<{ keys: PublicJwk[] }> {
    const keys = await this.repository.list(this.periodOf(now) - 1);
    return { keys: keys.map((key) => key.publicJwk) };
  }

  /** A signed JWT of `payload` with the current period's key. */
  async sign(payload: Record<string, unknown>, now = Date.now()): Promise<string> {
    return signJwt(payload, await this.signingKey(now));
  }

  /** The current period's key: cached, or read, or made (one per period, whichever instance is first). */
  async signingKey(now = Date.now()): Promise<{ kid: string; privateKey: KeyObject }> {
    const period = this.periodOf(now);
    if (this.current?.period === period) return this.current;
    // Callers at the same moment share one lookup, so an instance makes at most one key per period.
    this.pending ??= this.load(period).finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async load(period: number): Promise<{ kid: string; privateKey: KeyObject }> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const [newest] = await this.repository.list(period);
      if (newest) {
        const privateKey = openPrivateKey(newest.stored, this.config.oidcKeySecret);
        if (privateKey) {
          this.current = { period, kid: newest.kid, privateKey };
          await this.repository.deleteBefore(period - 1);
          return this.current;
        }
        // Sealed under another OIDC_KEY_SECRET: useless here; the period gets a key this secret opens.
        this.logger.error(
          `signing key ${newest.kid} cannot be opened with this OIDC_KEY_SECRET; replacing it (every instance must share one secret)`,
        );
        await this.repository.delete(newest.kid);
      }
      const made = await newSigningKey(this.config.oidcKeySecret);
      if (await this.repository.insert(period, made)) this.logger.log(`new ID token signing key ${made.kid}`);
    }
    throw new Error('no ID token signing key could be stored');
  }
}
