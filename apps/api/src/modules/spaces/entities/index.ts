import { SpaceAppVersionEntity } from './space-app-version.entity';
import { SpaceAppEntity } from './space-app.entity';
import { SpaceJobEntity } from './space-job.entity';

/**
 * The spaces module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature) and the
 * data source lists them (database/entities.ts), the only thing outside this module that reads this file.
 */
export const spacesEntities = [SpaceAppEntity, SpaceAppVersionEntity, SpaceJobEntity];
