import { SessionEntity } from '../modules/accounts/entities/session.entity';
import { UserHandleEntity } from '../modules/accounts/entities/user-handle.entity';
import { UserEntity } from '../modules/accounts/entities/user.entity';
import { OAuthClientEntity } from '../modules/clients/entities/oauth-client.entity';
import { ConsentEntity } from '../modules/consents/entities/consent.entity';
import { GiftCardEntity } from '../modules/giftcards/entities/gift-card.entity';
import { ApiKeyEntity } from '../modules/keys/entities/api-key.entity';
import { AuthorizationCodeEntity } from '../modules/oauth/entities/authorization-code.entity';
import { GrantEntity } from '../modules/oauth/entities/grant.entity';
import { TokenEntity } from '../modules/oauth/entities/token.entity';
import { PaymentEntity } from '../modules/payments/entities/payment.entity';
import { SpaceAppVersionEntity } from '../modules/spaces/entities/space-app-version.entity';
import { SpaceAppEntity } from '../modules/spaces/entities/space-app.entity';
import { SpaceJobEntity } from '../modules/spaces/entities/space-job.entity';
import { UsageRecordEntity } from '../modules/usage/entities/usage-record.entity';

/** Every entity, listed by hand (no globbing of build output). Each module adds its own here. */
export const ENTITIES = [
  UserEntity,
  SessionEntity,
  ApiKeyEntity,
  UsageRecordEntity,
  OAuthClientEntity,
  ConsentEntity,
  AuthorizationCodeEntity,
  GrantEntity,
  TokenEntity,
  PaymentEntity,
  GiftCardEntity,
  UserHandleEntity,
  SpaceAppEntity,
  SpaceAppVersionEntity,
  SpaceJobEntity,
];
