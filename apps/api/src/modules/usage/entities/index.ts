import { UsageRecordEntity } from './usage-record.entity';

/**
 * The usage module's tables as TypeORM maps them, for the data source: the module's face (index.ts) exports the list
 * to database/entities.ts. The module itself queries its tables in SQL, through no TypeORM repository.
 */
export const usageEntities = [UsageRecordEntity];
