/**
 * The accounts module's face: what other modules may use of it (eslint: switchyard/module-faces). Users, sessions
 * and handles; the global guard is its own, and the OAuth module plugs its check of app tokens into AppTokensService.
 */
export { AccountCredentials, type CredentialHolder, type CredentialKind } from './account-credentials';
export { AccountDeletion, type AccountDeletionStep } from './account-deletion';
export { AccountsModule } from './accounts.module';
export { AccountsService, csrfMatches } from './accounts.service';
export { AppTokensService, type AppTokenVerifier } from './app-tokens.service';
export { accountsEntities } from './entities';
