import { Transform } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import {
  KEY_NAME_MAX_LENGTH,
  type KeyCreateRequest,
  type KeyLimitsUpdateRequest,
  SPEND_LIMIT_DECIMALS,
  SPEND_LIMIT_MAX,
} from '../keys';
import { MaxDecimals } from './decimals';

export class KeyCreateDto implements KeyCreateRequest {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MinLength(1, { message: 'name must not be empty' })
  @MaxLength(KEY_NAME_MAX_LENGTH)
  name: string;
}

const limit = () => (target: object, property: string) => {
  // null clears a limit; a number sets it (currency units, up to 6 decimals).
  ValidateIf((_, value) => value !== null)(target, property);
  IsNumber({ allowNaN: false, allowInfinity: false })(target, property);
  MaxDecimals(SPEND_LIMIT_DECIMALS)(target, property);
  Min(0)(target, property);
  Max(SPEND_LIMIT_MAX)(target, property);
};

/** PUT /api/v1/keys/{id}/limits: every field optional; omitted fields keep their value. */
export class KeyLimitsUpdateDto implements KeyLimitsUpdateRequest {
  @IsOptional() @limit() total?: number | null;
  @IsOptional() @limit() daily?: number | null;
  @IsOptional() @limit() weekly?: number | null;
  @IsOptional() @limit() monthly?: number | null;
  @IsOptional() @limit() perRequest?: number | null;

  /** Gateway requests per minute for this key; null returns to the server's default. */
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  requestsPerMinute?: number | null;
}
