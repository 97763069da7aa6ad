import { Transform } from 'class-transformer';
import {
  IsInt,
  IsISO8601,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import {
  KEY_EXPIRY_MAX_DAYS,
  KEY_NAME_MAX_LENGTH,
  type KeyCreateRequest,
  type KeyLimitsUpdateRequest,
  type KeyUpdateRequest,
  SPEND_LIMIT_DECIMALS,
  SPEND_LIMIT_MAX,
} from '../keys';
import { MaxDecimals } from './decimals';

const keyName = () => (target: object, property: string) => {
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))(target, property);
  IsString()(target, property);
  MinLength(1, { message: 'name must not be empty' })(target, property);
  MaxLength(KEY_NAME_MAX_LENGTH)(target, property);
};

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

/** An instant after now and at most KEY_EXPIRY_MAX_DAYS ahead (checked when the request arrives). */
const inTheFuture = () =>
  ValidateBy({
    name: 'inTheFuture',
    validator: {
      validate: (value: unknown) => {
        const at = typeof value === 'string' ? Date.parse(value) : NaN;
        return at > Date.now() && at <= Date.now() + KEY_EXPIRY_MAX_DAYS * 86_400_000;
      },
      defaultMessage: () => `expiresAt must be in the future, at most ${KEY_EXPIRY_MAX_DAYS} days ahead`,
    },
  });

/** POST /api/v1/keys: a name; optionally limits (as PUT …/limits takes them) and an expiry. */
export class KeyCreateDto extends KeyLimitsUpdateDto implements KeyCreateRequest {
  @keyName() name: string;

  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 time such as 2027-01-31T00:00:00Z' })
  @inTheFuture()
  expiresAt?: string | null;
}

/** PATCH /api/v1/keys/{id} */
export class KeyUpdateDto implements KeyUpdateRequest {
  @keyName() name: string;
}
