import { AuthorizationCodeEntity } from './authorization-code.entity';
import { GrantEntity } from './grant.entity';
import { SigningKeyEntity } from './signing-key.entity';
import { TokenEntity } from './token.entity';

/**
 * The oauth module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature) and the
 * data source lists them (database/entities.ts), the only thing outside this module that reads this file.
 */
export const oauthEntities = [AuthorizationCodeEntity, GrantEntity, TokenEntity, SigningKeyEntity];
