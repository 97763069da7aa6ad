import { SessionEntity } from './session.entity';
import { UserHandleEntity } from './user-handle.entity';
import { UserEntity } from './user.entity';

/**
 * The accounts module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature) and the
 * data source lists them (database/entities.ts), the only thing outside this module that reads this file.
 */
export const accountsEntities = [UserEntity, SessionEntity, UserHandleEntity];
