import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { AuthSessionResponse, SignedOutResponse, UserResponse } from '@switchyard/shared-dto';
import type {
  AccountDeleteDto,
  AuthLoginDto,
  AuthRegisterDto,
  PasswordChangeDto,
} from '@switchyard/shared-dto/validation';
import { APP_CONFIG, PASSWORD_HASH_COST } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { hashPassword, randomToken, sha256, verifyPassword } from '../../common/crypto';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import { LedgerService } from '../usage';
import type { SessionPrincipal } from '../../common/auth/principal';
import type { EntityManager } from 'typeorm';
import { AccountCredentials } from './account-credentials';
import { AccountMailService } from './account-mail.service';
import { AccountDeletion } from './account-deletion';
import { AccountsErrorCode, AccountsException } from './accounts.exception';
import { AccountsRepository, type HandleHolder } from './accounts.repository';
import type { UserEntity } from './entities/user.entity';

export const SESSION_TOKEN_PREFIX = 'sys_';

export interface IssuedSession extends AuthSessionResponse {
  /** The CSRF token that goes with this session (set as a readable cookie by the controller). */
  csrfToken: string;
}

export interface ClientInfo {
  ip: string;
  userAgent?: string;
}

/**
 * The CSRF token of a session is derived from its secret token, so it cannot be guessed or planted without the
 * session itself, and needs no storage (a signed double-submit cookie, OWASP's recommended variant).
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

/** Whether a request's CSRF header is the session's token (compared in constant time). */
export function csrfMatches(sessionToken: string, header: string | undefined): boolean {
  const expected = csrfTokenFor(sessionToken);
  if (!header || header.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

export function toUserResponse(user: UserEntity): UserResponse {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    handle: user.handle,
    role: user.role,
    createdAt: user.createdAt.toISOString(),
    emailVerified: user.emailVerifiedAt !== null,
  };
}

@Injectable()
export class AccountsService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Accounts');
  // Compared against when the email is unknown, so a wrong email costs as long as a wrong password.
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly repository: AccountsRepository,
    private readonly rateLimiter: RateLimiterService,
    private readonly ledger: LedgerService,
    private readonly deletion: AccountDeletion,
    private readonly credentials: AccountCredentials,
    private readonly accountMail: AccountMailService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PASSWORD_HASH_COST) private readonly hashCost: number | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { adminEmail, adminPassword } = this.config;
    if (adminEmail && adminPassword) {
      await this.repository.upsertAdmin(adminEmail, await hashPassword(adminPassword, this.hashCost));
      this.logger.log(`admin account ${adminEmail} is ready`);
    }
  }

  async register(dto: AuthRegisterDto, client: ClientInfo): Promise<IssuedSession> {
    await this.rateLimiter.consume(this.ipLimit('register', client.ip));
    const user = await this.repository.insertUser({
      email: dto.email,
      name: dto.name?.trim() || null,
      passwordHash: await hashPassword(dto.password, this.hashCost),
      role: 'user',
    });
    if (!user) throw new AccountsException(AccountsErrorCode.EMAIL_TAKEN, 'An account with this email already exists');
    await this.ledger.grantSignupCredit(user.id);
    this.accountMail.welcome(user);
    return this.startSession(user, client);
  }

  async login(dto: AuthLoginDto, client: ClientInfo): Promise<IssuedSession> {
    await this.rateLimiter.consume(this.ipLimit('login', client.ip));
    const failures = this.failureLimit(dto.email);
    await this.rateLimiter.check(failures);
    const user = await this.repository.findUserByEmail(dto.email);
    const valid = user
      ? await verifyPassword(dto.password, user.passwordHash)
      : await verifyPassword(dto.password, await this.dummy()).then(() => false);
    if (!user || !valid) {
      await this.rateLimiter.record(failures);
      throw new AccountsException(AccountsErrorCode.INVALID_CREDENTIALS, 'Email or password is incorrect');
    }
    await this.rateLimiter.reset(failures);
    // Said only to whoever knows the password: an operator disabled the account (docs/operations.md).
    if (user.disabledAt)
      throw new AccountsException(AccountsErrorCode.ACCOUNT_DISABLED, 'This account is disabled: ask the operator');
    return this.startSession(user, client);
  }

  async logout(principal: SessionPrincipal): Promise<void> {
    await this.repository.revokeSession(principal.sessionId);
  }

  /** The principal of a session token, or null when it is unknown, expired, revoked or malformed. */
  async resolveSession(token: string, via: SessionPrincipal['via']): Promise<SessionPrincipal | null> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 100) return null;
    const session = await this.repository.findActiveSession(sha256(token));
    if (!session) return null;
    const { user } = session;
    return { kind: 'session', userId: user.id, email: user.email, role: user.role, sessionId: session.sessionId, via };
  }

  async me(userId: string): Promise<UserResponse> {
    const user = await this.repository.findUserById(userId);
    if (!user) throw new AccountsException(AccountsErrorCode.SESSION_INVALID, 'The account no longer exists');
    return toUserResponse(user);
  }

  async rename(userId: string, name: string): Promise<UserResponse> {
    await this.repository.setName(userId, name);
    return this.me(userId);
  }

  /**
   * Changes the password after checking the current one (counted like failed sign-ins, so a stolen session cannot
   * guess it), and signs out every other session: whoever else held one must sign in with the new password.
   * This session stays. With `revokeCredentials`, every API key and app authorization is revoked too.
   */
  async changePassword(principal: SessionPrincipal, dto: PasswordChangeDto): Promise<SignedOutResponse> {
    await this.checkPassword(principal, dto.currentPassword, 'currentPassword');
    await this.repository.setPasswordHash(principal.userId, await hashPassword(dto.newPassword, this.hashCost));
    const signedOutSessions = await this.repository.revokeSessions(principal.userId, principal.sessionId);
    return { signedOutSessions, ...(await this.revokeCredentials(principal.userId, dto.revokeCredentials)) };
  }

  /** Signs out every session of the user, this one too; with `revokeCredentials`, every key and app authorization. */
  async signOutEverywhere(principal: SessionPrincipal, revokeCredentials = false): Promise<SignedOutResponse> {
    const signedOutSessions = await this.repository.revokeSessions(principal.userId, null);
    return { signedOutSessions, ...(await this.revokeCredentials(principal.userId, revokeCredentials)) };
  }

  /** Revokes every API key and app authorization of the user when asked (docs/accounts.md, "Settings"). */
  private async revokeCredentials(
    userId: string,
    asked: boolean | undefined,
  ): Promise<Omit<SignedOutResponse, 'signedOutSessions'>> {
    if (!asked) return { revokedApiKeys: 0, revokedAppAuthorizations: 0 };
    const revoked = await this.credentials.revokeAll(userId);
    return { revokedApiKeys: revoked.apiKeys, revokedAppAuthorizations: revoked.appAuthorizations };
  }

  /**
   * Deletes the account (docs/accounts.md, "Deleting an account"), confirmed by its password: the row is
   * anonymised and every session revoked in one statement, so it cannot sign in from that moment; then each module
   * stops what it holds for the user (keys, apps' access and tokens, published spaces). The ledger, usage records
   * and payments stay, under the anonymised id, for accounting.
   */
  async deleteAccount(principal: SessionPrincipal, dto: AccountDeleteDto): Promise<void> {
    await this.checkPassword(principal, dto.password, 'password');
    await this.repository.anonymise(principal.userId, await hashPassword(randomToken(''), this.hashCost));
    const failed = await this.deletion.run(principal.userId);
    if (failed.length) this.logger.error(`account ${principal.userId} deleted, but ${failed.join(', ')} failed`);
  }

  private async checkPassword(principal: SessionPrincipal, password: string, field: string): Promise<void> {
    const failures = this.failureLimit(principal.email);
    await this.rateLimiter.check(failures);
    const user = await this.repository.findUserById(principal.userId);
    if (!user || !(await verifyPassword(password, user.passwordHash))) {
      await this.rateLimiter.record(failures);
      throw new AccountsException(AccountsErrorCode.PASSWORD_INCORRECT, 'That is not your current password', field);
    }
    await this.rateLimiter.reset(failures);
  }

  /**
   * An operator disables the account, or enables it again, in the caller's transaction (where the admin module
   * writes its audit entry). Disabling revokes every session in the same statement; sign-in then answers
   * ACCOUNT_DISABLED, and its keys and apps' tokens are unknown while it stays so. Once the transaction commits,
   * call `forgetCredentials` so that every instance drops what it cached of them. False when nothing changed.
   */
  setDisabled(manager: EntityManager, userId: string, disabled: boolean): Promise<boolean> {
    return this.repository.setDisabled(manager, userId, disabled);
  }

  /** Every instance drops its cached lookups of the user's keys and apps' tokens (after a change of status). */
  forgetCredentials(userId: string): Promise<void> {
    return this.credentials.forget(userId);
  }

  /** Throws EMAIL_UNVERIFIED when the operator requires a verified address before money comes in and it is not. */
  async requireVerifiedForTopUp(userId: string): Promise<void> {
    if (!this.config.requireVerifiedEmailForTopUp) return;
    const user = await this.repository.findUserById(userId);
    if (user?.emailVerifiedAt) return;
    throw new AccountsException(
      AccountsErrorCode.EMAIL_UNVERIFIED,
      'Verify your email address before adding funds: open the link we mailed you, or send a new one from Settings',
    );
  }

  /**
   * Sets the user's handle (the spaces module checks its form first). An account may move to a new handle and
   * back; a handle another account holds or once held is refused: returns false.
   */
  setHandle(userId: string, handle: string): Promise<boolean> {
    return this.repository.claimHandle(userId, handle);
  }

  /** Who holds, or once held, this handle; null when nobody ever did. */
  handleHolder(handle: string): Promise<HandleHolder | null> {
    return this.repository.findHandleHolder(handle);
  }

  private async startSession(user: UserEntity, client: ClientInfo): Promise<IssuedSession> {
    const token = randomToken(SESSION_TOKEN_PREFIX);
    const expiresAt = new Date(Date.now() + this.config.sessionTtlHours * 3600_000);
    await this.repository.insertSession({
      userId: user.id,
      tokenHash: sha256(token),
      expiresAt,
      userAgent: client.userAgent?.slice(0, 300) ?? null,
    });
    return { user: toUserResponse(user), token, expiresAt: expiresAt.toISOString(), csrfToken: csrfTokenFor(token) };
  }

  private ipLimit(action: 'login' | 'register', ip: string) {
    return {
      bucket: `${action}-ip`,
      subject: ip,
      max: this.config.authRateLimitPerIp,
      windowSeconds: this.config.rateLimitWindowSeconds,
    };
  }

  private failureLimit(email: string) {
    return {
      bucket: 'login-failures',
      subject: email,
      max: this.config.loginFailuresPerAccount,
      windowSeconds: this.config.rateLimitWindowSeconds,
    };
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomToken(''), this.hashCost);
    return this.dummyHash;
  }
}
