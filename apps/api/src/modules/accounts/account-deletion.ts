import { Injectable, Logger } from '@nestjs/common';

/** What a module does when an account is deleted: stop what it holds for the user working (idempotent). */
export type AccountDeletionStep = (userId: string) => Promise<void>;

/**
 * The seam where modules that hold things of a user plug in what deleting the account means for them (keys revoke
 * every key, consents every app's access and tokens, spaces unpublish every app), since accounts sits below them
 * and cannot import them (docs/architecture.md, "Meeting without imports"). Each runs once the account row is
 * anonymised and its sessions are revoked; a step that fails is logged and the others still run, and running them
 * again (a second deletion request) is harmless.
 */
@Injectable()
export class AccountDeletion {
  private readonly steps: { name: string; step: AccountDeletionStep }[] = [];
  private readonly logger = new Logger('AccountDeletion');

  register(name: string, step: AccountDeletionStep): void {
    this.steps.push({ name, step });
  }

  /** Runs every step; answers the names of those that failed. */
  async run(userId: string): Promise<string[]> {
    const failed: string[] = [];
    for (const { name, step } of this.steps) {
      try {
        await step(userId);
      } catch (error) {
        failed.push(name);
        this.logger.error(`account deletion step "${name}" failed: ${(error as Error).message}`);
      }
    }
    return failed;
  }
}
