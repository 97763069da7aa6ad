import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export const ANALYTICS_GROUPS = ['day', 'model', 'key', 'app'] as const;

/** A page size for the paged lists (activity, ledger): 1 to 100. */
class PageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class UsageActivityQueryDto extends PageQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class UsageAnalyticsQueryDto {
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date such as 2026-11-01' })
  from?: string;

  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date such as 2026-11-30' })
  to?: string;

  @IsOptional()
  @IsIn(ANALYTICS_GROUPS)
  groupBy?: (typeof ANALYTICS_GROUPS)[number];
}

export class UsageLedgerQueryDto extends PageQueryDto {
  @IsOptional()
  @Matches(/^\d{1,18}$/, { message: 'cursor must be a value this endpoint returned as nextCursor' })
  cursor?: string;
}
