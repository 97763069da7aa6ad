import { Transform, Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  NotEquals,
} from 'class-validator';
import {
  ACCOUNT_STATUSES,
  ADJUSTMENT_MAX_AMOUNT,
  ADJUSTMENT_REASON_MAX_LENGTH,
  ADMIN_USAGE_GROUPS,
  GIFT_CARD_STATUSES,
  type AccountStatus,
  type AccountStatusChangeRequest,
  type AdminGiftCardQuery,
  type AdminMoneyQuery,
  type AdminUsageGroupBy,
  type AdminUsageQuery,
  type AdminUserQuery,
  type AuditQuery,
  type BalanceAdjustmentRequest,
  type GiftCardStatus,
} from '../admin';
import { MaxDecimals } from './decimals';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

class AdminPageDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class AdminUserQueryDto extends AdminPageDto implements AdminUserQuery {
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(254)
  q?: string;

  @IsOptional()
  @IsIn(ACCOUNT_STATUSES)
  status?: AccountStatus;
}

export class BalanceAdjustmentDto implements BalanceAdjustmentRequest {
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  @NotEquals(0, { message: 'amount must not be 0' })
  @Min(-ADJUSTMENT_MAX_AMOUNT)
  @Max(ADJUSTMENT_MAX_AMOUNT)
  @MaxDecimals(6)
  amount: number;

  @Transform(trim)
  @IsString()
  @MinLength(3, { message: 'reason must say why, in at least 3 characters' })
  @MaxLength(ADJUSTMENT_REASON_MAX_LENGTH)
  reason: string;

  @IsUUID('all', { message: 'idempotencyKey must be a UUID' })
  idempotencyKey: string;
}

export class AccountStatusChangeDto implements AccountStatusChangeRequest {
  @Transform(trim)
  @IsString()
  @MinLength(3, { message: 'reason must say why, in at least 3 characters' })
  @MaxLength(ADJUSTMENT_REASON_MAX_LENGTH)
  reason: string;
}

/** GET /api/v1/admin/money. */
export class AdminMoneyQueryDto implements AdminMoneyQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(365)
  days?: number;
}

export class AdminUsageQueryDto implements AdminUsageQuery {
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date such as 2026-11-01' })
  from?: string;

  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date such as 2026-11-30' })
  to?: string;

  @IsOptional()
  @IsIn(ADMIN_USAGE_GROUPS)
  groupBy?: AdminUsageGroupBy;
}

export class AdminGiftCardQueryDto extends AdminPageDto implements AdminGiftCardQuery {
  @IsOptional()
  @IsIn(GIFT_CARD_STATUSES)
  status?: GiftCardStatus;
}

export class AuditQueryDto extends AdminPageDto implements AuditQuery {
  @IsOptional()
  @IsUUID('all', { message: 'userId must be an account id' })
  userId?: string;
}
