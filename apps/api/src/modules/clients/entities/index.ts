import { OAuthClientEntity } from './oauth-client.entity';

/**
 * The clients module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature) and the
 * data source lists them (database/entities.ts), the only thing outside this module that reads this file.
 */
export const clientsEntities = [OAuthClientEntity];
