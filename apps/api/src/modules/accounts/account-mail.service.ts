import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { SignedOutResponse } from '@switchyard/shared-dto';
import type { PasswordResetConfirmDto } from '@switchyard/shared-dto/validation';
import { hashPassword, randomToken, sha256 } from '../../common/crypto';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import { APP_CONFIG, PASSWORD_HASH_COST } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { MailService } from '../mail';
import { AccountCredentials } from './account-credentials';
import { passwordResetMail, verifyEmailMail } from './account-mail.templates';
import { AccountTokensRepository } from './account-tokens.repository';
import { AccountsErrorCode, AccountsException } from './accounts.exception';
import { AccountsRepository } from './accounts.repository';
import type { UserEntity } from './entities/user.entity';

const RESET_PREFIX = 'syr_';
const VERIFY_PREFIX = 'syv_';
const VERIFY_TTL_SECONDS = 7 * 24 * 3600;
const PURGE_MS = 3600_000;

/**
 * Mail around accounts (docs/mail.md): the password reset (a single-use link, short-lived, its token stored hashed,
 * rate limited, answering the same whether or not the address has an account) and the address verification.
 * A request for a mail is answered before the address is even looked up: the lookup, the token and the mail happen
 * after the answer, so neither the answer nor its timing says whether an account has the address.
 */
@Injectable()
export class AccountMailService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('AccountMail');
  /** Mails being prepared or sent after their request was answered (awaited at shutdown, and by tests). */
  private readonly sending = new Set<Promise<void>>();
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly tokens: AccountTokensRepository,
    private readonly mail: MailService,
    private readonly rateLimiter: RateLimiterService,
    private readonly credentials: AccountCredentials,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PASSWORD_HASH_COST) private readonly hashCost: number | null,
  ) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(
      () => void this.tokens.purge().catch((error: Error) => this.logger.warn(`purge failed: ${error.message}`)),
      PURGE_MS,
    );
    this.purgeTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.idle();
  }

  /** Resolves once every mail asked for so far has been sent, written or given up on. */
  async idle(): Promise<void> {
    while (this.sending.size) await Promise.allSettled([...this.sending]);
  }

  /**
   * Asks for a reset link by mail. Counted per client address and per address asked for (whether or not an account
   * has it, so a 429 says nothing either); then answered at once, the mail following if an account has the address.
   */
  async requestPasswordReset(email: string, ip: string): Promise<void> {
    await this.rateLimiter.consume(this.ipLimit('password-reset-ip', ip));
    await this.rateLimiter.consume(this.addressLimit(email));
    this.later(async () => {
      const user = await this.accounts.findUserByEmail(email);
      if (!user || user.deletedAt || user.disabledAt) return;
      const token = randomToken(RESET_PREFIX);
      const ttl = this.config.passwordResetTtlMinutes;
      await this.tokens.insert(user.id, 'password_reset', sha256(token), user.email, ttl * 60);
      await this.mail.send(passwordResetMail(user.email, this.link('/reset-password', token), ttl));
    });
  }

  /**
   * Sets a new password with a reset link's token: once, before it expires, for the address it was mailed to.
   * Every session is signed out, every other reset link ends, the address counts as verified (the link was read
   * there), the sign-in failures are forgiven; with `revokeCredentials`, every key and app authorization ends too.
   */
  async confirmPasswordReset(dto: PasswordResetConfirmDto, ip: string): Promise<SignedOutResponse> {
    await this.rateLimiter.consume(this.ipLimit('password-reset-confirm-ip', ip));
    const used = await this.tokens.use(sha256(dto.token), 'password_reset');
    const user = used ? await this.accounts.findUserById(used.userId) : null;
    if (!used || !user || user.email !== used.email || user.deletedAt || user.disabledAt)
      throw new AccountsException(
        AccountsErrorCode.RESET_LINK_INVALID,
        'This reset link is unknown, was used already or has expired: ask for a new one',
        'token',
      );
    await this.accounts.setPasswordHash(user.id, await hashPassword(dto.newPassword, this.hashCost));
    await this.tokens.endAll(user.id, 'password_reset');
    await this.accounts.markEmailVerified(user.id, user.email);
    await this.rateLimiter.reset({ ...this.addressLimit(user.email), bucket: 'login-failures' });
    const signedOutSessions = await this.accounts.revokeSessions(user.id, null);
    if (!dto.revokeCredentials) return { signedOutSessions, revokedApiKeys: 0, revokedAppAuthorizations: 0 };
    const revoked = await this.credentials.revokeAll(user.id);
    return {
      signedOutSessions,
      revokedApiKeys: revoked.apiKeys,
      revokedAppAuthorizations: revoked.appAuthorizations,
    };
  }

  /** Mails a verification link to the user's address (after registration, or asked again); false when verified already. */
  async sendVerification(userId: string): Promise<boolean> {
    const user = await this.accounts.findUserById(userId);
    if (!user || user.deletedAt) return false;
    if (user.emailVerifiedAt) return false;
    await this.rateLimiter.consume(this.addressLimit(user.email));
    this.later(() => this.mailVerification(user));
    return true;
  }

  /** Mails a new account its verification link, after the answer (registration is rate limited on its own). */
  welcome(user: UserEntity): void {
    this.later(() => this.mailVerification(user));
  }

  /** Marks the address verified with a verification link's token, if it is still the account's address. */
  async verifyEmail(token: string, ip: string): Promise<{ email: string }> {
    await this.rateLimiter.consume(this.ipLimit('verify-email-ip', ip));
    const used = await this.tokens.use(sha256(token), 'verify_email');
    const user = used ? await this.accounts.findUserById(used.userId) : null;
    if (!used || !user || user.email !== used.email || user.deletedAt)
      throw new AccountsException(
        AccountsErrorCode.VERIFY_LINK_INVALID,
        'This verification link is unknown, was used already or has expired: send a new one from Settings',
        'token',
      );
    await this.accounts.markEmailVerified(user.id, user.email);
    return { email: user.email };
  }

  private async mailVerification(user: UserEntity): Promise<void> {
    const token = randomToken(VERIFY_PREFIX);
    await this.tokens.insert(user.id, 'verify_email', sha256(token), user.email, VERIFY_TTL_SECONDS);
    await this.mail.send(verifyEmailMail(user.email, this.link('/verify-email', token)));
  }

  /** Runs after the answer; a failure is logged (without the address's token), never thrown at the caller. */
  private later(work: () => Promise<void>): void {
    const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: Error) => this.logger.error(`a mail could not be sent: ${error.message}`))
      .finally(() => this.sending.delete(task));
    this.sending.add(task);
  }

  /** The dashboard page that takes the token, in the fragment: never sent to a server, never in a log or a Referer. */
  private link(path: string, token: string): string {
    return `${this.config.publicUrl}${path}#token=${token}`;
  }

  private ipLimit(bucket: string, ip: string) {
    return {
      bucket,
      subject: ip,
      max: this.config.authRateLimitPerIp,
      windowSeconds: this.config.rateLimitWindowSeconds,
    };
  }

  private addressLimit(email: string) {
    return {
      bucket: 'mail-address',
      subject: email,
      max: this.config.passwordResetsPerAccount,
      windowSeconds: this.config.rateLimitWindowSeconds,
    };
  }
}
