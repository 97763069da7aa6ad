import { AuthorizationCodeEntity } from './authorization-code.entity';
import { GrantEntity } from './grant.entity';
import { SigningKeyEntity } from './signing-key.entity';
import { TokenEntity } from './token.entity';

/**
 * The oauth module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature), and its face
 * (index.ts) exports the list for the data source (database/entities.ts).
 */
export const oauthEntities = [AuthorizationCodeEntity, GrantEntity, TokenEntity, SigningKeyEntity];
