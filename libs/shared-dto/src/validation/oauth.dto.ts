import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import type { ConsentLimitsRequest } from '../consents';
import { SPEND_LIMIT_DECIMALS, SPEND_LIMIT_MAX } from '../keys';
import {
  ACCESS_TOKEN_TTL_RANGE,
  type AuthorizationDecisionRequest,
  type AuthorizationParams,
  CLIENT_NAME_RANGE,
  MAX_REDIRECT_URIS,
  NONCE_MAX_LENGTH,
  OAUTH_SCOPES,
  type OAuthScope,
  redirectUriProblem,
  REFRESH_TOKEN_TTL_RANGE,
} from '../oauth';
import {
  MAX_MARKUP_PERCENT,
  type ClientUsageQuery,
  type OAuthClientCreateRequest,
  type OAuthClientFields,
  type OAuthClientTrustRequest,
  type OAuthClientUpdateRequest,
} from '../oauth-clients';
import { MaxDecimals } from './decimals';

/** Each element (or the value) is a redirect URI that may be registered; the message says what is wrong. */
function IsRedirectUri() {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isRedirectUri',
      target: target.constructor,
      propertyName: property,
      validator: {
        validate: (value: unknown) =>
          (Array.isArray(value) ? value : [value]).every((uri) => redirectUriProblem(uri as string) === null),
        defaultMessage: (args: ValidationArguments) => {
          const values = (Array.isArray(args.value) ? args.value : [args.value]) as string[];
          const bad = values.find((uri) => redirectUriProblem(uri) !== null);
          return `${args.property}: "${String(bad).slice(0, 100)}" ${redirectUriProblem(bad as string)}`;
        },
      },
    });
}

const trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** The fields a client's create and update share, each optional. */
class OAuthClientFieldsDto implements OAuthClientFields {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_REDIRECT_URIS)
  @IsRedirectUri()
  redirectUris?: string[];

  /** One create example sends a single redirectUri (docs/decisions.md#resource-shapes). */
  @IsOptional()
  @IsString()
  @IsRedirectUri()
  redirectUri?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(OAUTH_SCOPES.length)
  @IsIn(OAUTH_SCOPES, { each: true, message: `requestedScopes may hold ${OAUTH_SCOPES.join(', ')}` })
  requestedScopes?: OAuthScope[];

  /**
   * Kept for compatibility: only `true` is accepted. Skipping the consent page is for first-party apps that an
   * admin marks trusted (PUT /api/v1/admin/oauth2/clients/{clientId}/trusted), never the owner's choice.
   */
  @IsOptional()
  @IsBoolean()
  @IsIn([true], {
    message: 'requireConsent may only be true: an admin decides which first-party apps skip the consent page',
  })
  requireConsent?: boolean;

  @IsOptional()
  @IsInt()
  @Min(ACCESS_TOKEN_TTL_RANGE[0])
  @Max(ACCESS_TOKEN_TTL_RANGE[1])
  accessTokenTtlSeconds?: number;

  @IsOptional()
  @IsInt()
  @Min(REFRESH_TOKEN_TTL_RANGE[0])
  @Max(REFRESH_TOKEN_TTL_RANGE[1])
  refreshTokenTtlSeconds?: number;

  /** Gateway requests per minute for each user of the app; null: the server's default. */
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  requestsPerMinute?: number | null;

  /** The app's markup in whole percent, 0 to 300 (docs/earnings.md); null is refused, not taken as 0. */
  @ValidateIf((_, value) => value !== undefined)
  @IsInt()
  @Min(0)
  @Max(MAX_MARKUP_PERCENT)
  markupPercent?: number;
}

const clientName = () => (target: object, property: string) => {
  trim()(target, property);
  IsString()(target, property);
  Length(CLIENT_NAME_RANGE[0], CLIENT_NAME_RANGE[1], {
    message: `clientName must be ${CLIENT_NAME_RANGE[0]}-${CLIENT_NAME_RANGE[1]} characters`,
  })(target, property);
};

/** POST /api/v1/oauth2/clients */
export class OAuthClientCreateDto extends OAuthClientFieldsDto implements OAuthClientCreateRequest {
  @clientName()
  clientName: string;

  /** true makes a CONFIDENTIAL client whose secret is shown once (docs/decisions.md#resource-shapes). */
  @IsOptional()
  @IsBoolean()
  generateSecret?: boolean;
}

/** PUT /api/v1/oauth2/clients/{id}: the create fields, each optional; fields left out keep their value. */
export class OAuthClientUpdateDto extends OAuthClientFieldsDto implements OAuthClientUpdateRequest {
  @IsOptional()
  @clientName()
  clientName?: string;
}

/** PUT /api/v1/admin/oauth2/clients/{clientId}/trusted: whether a first-party app skips the consent page. */
export class OAuthClientTrustDto implements OAuthClientTrustRequest {
  @IsBoolean()
  trusted: boolean;
}

const cap = () => (target: object, property: string) => {
  // null removes the cap; a number sets it (currency units, up to 6 decimals).
  ValidateIf((_, value) => value !== null)(target, property);
  IsNumber({ allowNaN: false, allowInfinity: false })(target, property);
  MaxDecimals(SPEND_LIMIT_DECIMALS)(target, property);
  Min(0)(target, property);
  Max(SPEND_LIMIT_MAX)(target, property);
};

/** What an app may spend: on the consent page and later on the authorized-apps page. */
export class ConsentLimitsDto implements ConsentLimitsRequest {
  @IsOptional() @cap() total?: number | null;
  @IsOptional() @cap() daily?: number | null;
  @IsOptional() @cap() weekly?: number | null;
  @IsOptional() @cap() monthly?: number | null;
  @IsOptional() @cap() perRequest?: number | null;
}

/** The authorize request's query, as the consent page passes it back (RFC 6749 section 4.1.1 names). */
export class AuthorizationParamsDto implements AuthorizationParams {
  @IsString() @MaxLength(200) client_id: string;
  @IsOptional() @IsString() @MaxLength(2000) redirect_uri?: string;
  @IsOptional() @IsString() @MaxLength(50) response_type?: string;
  @IsOptional() @IsString() @MaxLength(500) scope?: string;
  @IsOptional() @IsString() @MaxLength(1000) state?: string;
  @IsOptional() @IsString() @MaxLength(200) code_challenge?: string;
  @IsOptional() @IsString() @MaxLength(20) code_challenge_method?: string;
  @IsOptional() @IsString() @MaxLength(NONCE_MAX_LENGTH) nonce?: string;
  @IsOptional() @IsString() @MaxLength(20) display?: string;
}

/** POST /api/v1/oauth2/authorize/decision: the user's answer on the consent page. */
export class AuthorizationDecisionDto extends AuthorizationParamsDto implements AuthorizationDecisionRequest {
  @IsBoolean() approve: boolean;

  @IsOptional()
  @ValidateNested()
  @Type(() => ConsentLimitsDto)
  limits?: ConsentLimitsDto;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_MARKUP_PERCENT)
  markupPercent?: number;
}

/** GET /api/v1/oauth2/clients/{clientId}/usage */
export class ClientUsageQueryDto implements ClientUsageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(40)
  startDate?: string;

  @IsOptional()
  @IsString()
  @MaxLength(40)
  endDate?: string;
}
