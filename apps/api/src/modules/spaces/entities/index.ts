import { SpaceAppVersionEntity } from './space-app-version.entity';
import { SpaceAppEntity } from './space-app.entity';
import { SpaceJobEntity } from './space-job.entity';

/**
 * The spaces module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature), and its face
 * (index.ts) exports the list for the data source (database/entities.ts).
 */
export const spacesEntities = [SpaceAppEntity, SpaceAppVersionEntity, SpaceJobEntity];
