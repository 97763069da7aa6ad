import { UsageRecordEntity } from './usage-record.entity';

/**
 * The usage module's tables as TypeORM maps them, for the data source (database/entities.ts): the only thing
 * outside this module that reads this file. The module itself queries its tables in SQL, through no TypeORM
 * repository.
 */
export const usageEntities = [UsageRecordEntity];
