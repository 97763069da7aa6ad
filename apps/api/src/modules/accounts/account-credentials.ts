import { Injectable, Logger } from '@nestjs/common';

/** The kinds of credential a user holds beside sessions: API keys, and what apps were let do (grants and tokens). */
export type CredentialKind = 'apiKeys' | 'appAuthorizations';

/** What a module that issues a kind of credential does for the accounts module. */
export interface CredentialHolder {
  /** Revokes every credential of this kind the user holds, at once on every instance; answers how many. */
  revokeAll(userId: string): Promise<number>;
  /**
   * Drops every instance's cached lookups of the user's credentials, so a change of the account's status (disabled,
   * enabled again) is felt by the very next call on every instance.
   */
  forget(userId: string): Promise<void>;
}

/**
 * The seam where the modules that issue credentials (keys, consents) plug in, since accounts sits below them and
 * cannot import them (docs/architecture.md, "Meeting without imports"): a password change or "sign out everywhere"
 * may revoke them all (docs/accounts.md, "Settings"), and disabling an account makes them stop at once.
 */
@Injectable()
export class AccountCredentials {
  private readonly holders = new Map<CredentialKind, CredentialHolder>();
  private readonly logger = new Logger('AccountCredentials');

  register(kind: CredentialKind, holder: CredentialHolder): void {
    this.holders.set(kind, holder);
  }

  /** Revokes every API key and every app authorization of the user; answers how many of each. */
  async revokeAll(userId: string): Promise<Record<CredentialKind, number>> {
    const revoked: Record<CredentialKind, number> = { apiKeys: 0, appAuthorizations: 0 };
    for (const [kind, holder] of this.holders) revoked[kind] = await holder.revokeAll(userId);
    return revoked;
  }

  /** Every instance drops what it cached of the user's credentials. A failure is logged; the others still run. */
  async forget(userId: string): Promise<void> {
    for (const [kind, holder] of this.holders)
      await holder
        .forget(userId)
        .catch((error: Error) => this.logger.error(`forgetting ${kind} failed: ${error.message}`));
  }
}
