import { OAuthClientEntity } from './oauth-client.entity';

/**
 * The clients module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature), and its face
 * (index.ts) exports the list for the data source (database/entities.ts).
 */
export const clientsEntities = [OAuthClientEntity];
