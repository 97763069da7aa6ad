import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import {
  ACTIVITY_STATUS_FILTERS,
  ANALYTICS_GROUPS,
  type ActivityStatusFilter,
  type AnalyticsGroupBy,
  type UsageActivityQuery,
  type UsageAnalyticsQuery,
  type UsageLedgerQuery,
  LEDGER_SIDES,
  type LedgerSide,
  type UsageDailySpendQuery,
} from '../usage';

/** A bound of a time window: a strict ISO 8601 date or date-time. */
const IsWindowBound = (name: 'from' | 'to', example: string) =>
  IsISO8601({ strict: true }, { message: `${name} must be an ISO 8601 date such as ${example}` });

/** A page size for the paged lists (activity, ledger): 1 to 100. */
class PageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class UsageActivityQueryDto extends PageQueryDto implements UsageActivityQuery {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @IsOptional()
  @IsUUID('all', { message: 'keyId must be the id of one of your keys' })
  keyId?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  appId?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  model?: string;

  @IsOptional()
  @IsIn(ACTIVITY_STATUS_FILTERS)
  status?: ActivityStatusFilter;

  @IsOptional()
  @IsWindowBound('from', '2026-11-01')
  from?: string;

  @IsOptional()
  @IsWindowBound('to', '2026-11-30')
  to?: string;
}

export class UsageAnalyticsQueryDto implements UsageAnalyticsQuery {
  @IsOptional()
  @IsWindowBound('from', '2026-11-01')
  from?: string;

  @IsOptional()
  @IsWindowBound('to', '2026-11-30')
  to?: string;

  @IsOptional()
  @IsIn(ANALYTICS_GROUPS)
  groupBy?: AnalyticsGroupBy;
}

export class UsageLedgerQueryDto extends PageQueryDto implements UsageLedgerQuery {
  @IsOptional()
  @Matches(/^\d{1,18}$/, { message: 'cursor must be a value this endpoint returned as nextCursor' })
  cursor?: string;

  @IsOptional()
  @IsIn(LEDGER_SIDES)
  side?: LedgerSide;
}

export class UsageDailySpendQueryDto extends PageQueryDto implements UsageDailySpendQuery {
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'cursor must be a value this endpoint returned as nextCursor' })
  cursor?: string;
}
