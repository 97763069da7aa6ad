/**
 * The OAuth2 authorization server's face (eslint: switchyard/module-faces). Nothing else calls into it: it plugs
 * itself into the gateway (CredentialRegistry) and into the accounts module's guard (AppTokensService).
 */
export { OAuthModule } from './oauth.module';
export { OAuthTokensService } from './oauth-tokens.service';
export { oauthEntities } from './entities';
