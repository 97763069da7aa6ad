import { IsISO8601, IsNumber, IsOptional, Max, Min, ValidateIf } from 'class-validator';
import { SPONSOR_MAX_AMOUNT, type SponsorPoolUpdateRequest } from '../earnings';
import { MaxDecimals } from './decimals';

const MONEY = { message: '$property must be a number with at most 6 decimals' };

/** PUT /api/v1/oauth2/clients/{id}/sponsor (docs/earnings.md, "Sponsored credits"). */
export class SponsorPoolUpdateDto implements SponsorPoolUpdateRequest {
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, MONEY)
  @MaxDecimals(6, MONEY)
  @Min(0)
  @Max(SPONSOR_MAX_AMOUNT)
  amount?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, MONEY)
  @MaxDecimals(6, MONEY)
  @Min(0.000001)
  @Max(SPONSOR_MAX_AMOUNT)
  allowancePerUser?: number;

  // null: no end.
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsISO8601({ strict: true }, { message: 'endsAt must be an ISO 8601 date or time such as 2027-01-31' })
  endsAt?: string | null;
}
