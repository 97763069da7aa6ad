import { SessionEntity } from './session.entity';
import { UserHandleEntity } from './user-handle.entity';
import { UserEntity } from './user.entity';

/**
 * The accounts module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature), and its face
 * (index.ts) exports the list for the data source (database/entities.ts).
 */
export const accountsEntities = [UserEntity, SessionEntity, UserHandleEntity];
