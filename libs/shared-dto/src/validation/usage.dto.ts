import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import {
  ANALYTICS_GROUPS,
  type AnalyticsGroupBy,
  type UsageActivityQuery,
  type UsageAnalyticsQuery,
  type UsageLedgerQuery,
} from '../usage';

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
}

export class UsageAnalyticsQueryDto implements UsageAnalyticsQuery {
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date such as 2026-11-01' })
  from?: string;

  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date such as 2026-11-30' })
  to?: string;

  @IsOptional()
  @IsIn(ANALYTICS_GROUPS)
  groupBy?: AnalyticsGroupBy;
}

export class UsageLedgerQueryDto extends PageQueryDto implements UsageLedgerQuery {
  @IsOptional()
  @Matches(/^\d{1,18}$/, { message: 'cursor must be a value this endpoint returned as nextCursor' })
  cursor?: string;
}
