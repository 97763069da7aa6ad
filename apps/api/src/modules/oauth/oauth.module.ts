import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts';
import { ClientsModule } from '../clients';
import { ConsentsModule } from '../consents';
import { ProxyModule } from '../proxy';
import { UsageModule } from '../usage';
import { AuthorizeController } from './authorize.controller';
import { AuthorizeService } from './authorize.service';
import { oauthEntities } from './entities';
import { OAuthAccessStrategy } from './oauth-access.strategy';
import { OAuthBearerVerifier } from './oauth-bearer.verifier';
import { OAuthTokensService } from './oauth-tokens.service';
import { OAuthController } from './oauth.controller';
import { OAuthRepository } from './oauth.repository';
import { OAuthService } from './oauth.service';
import { SigningKeysRepository } from './signing-keys.repository';
import { SigningKeysService } from './signing-keys.service';

/**
 * The OAuth2 authorization server: authorize with consent, tokens, revocation, introspection, dynamic
 * registration, metadata; and OAuth access tokens as a credential on the gateway and on `oauth: true` routes.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature(oauthEntities),
    AccountsModule,
    ClientsModule,
    ConsentsModule,
    ProxyModule,
    UsageModule,
  ],
  controllers: [OAuthController, AuthorizeController],
  providers: [
    OAuthRepository,
    OAuthTokensService,
    AuthorizeService,
    OAuthService,
    OAuthAccessStrategy,
    OAuthBearerVerifier,
    SigningKeysRepository,
    SigningKeysService,
  ],
  exports: [OAuthTokensService],
})
export class OAuthModule {}
