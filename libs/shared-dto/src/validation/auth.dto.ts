import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsInt,
  IsNumber,
  IsOptional,
  Max,
  Min,
  ValidateIf,
  IsString,
  MaxLength,
  MinLength,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import {
  AccountDeleteRequest,
  AccountUpdateRequest,
  AuthLoginRequest,
  AuthRegisterRequest,
  EMAIL_MAX_LENGTH,
  emailForbiddenCharacter,
  normaliseEmail as normalise,
  NAME_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PasswordChangeRequest,
  SignOutEverywhereRequest,
  PasswordResetRequest,
  PasswordResetConfirmRequest,
  EmailVerifyRequest,
  MAIL_TOKEN_MAX_LENGTH,
  LOW_BALANCE_MAX,
  NotificationSettings,
} from '../auth';
import { MaxDecimals } from './decimals';

/** Every email the API takes is NFKC-normalised, trimmed and lower-cased before it is validated, stored or looked up. */
export const normaliseEmail = ({ value }: { value: unknown }) => (typeof value === 'string' ? normalise(value) : value);

/**
 * Refuses an email holding an invisible or formatting character (docs/accounts.md, "Emails"), naming it:
 * "email must not contain invisible or formatting characters (U+200B)".
 */
export function HasNoInvisibleCharacters(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'hasNoInvisibleCharacters',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || emailForbiddenCharacter(value) === null,
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'email'} must not contain invisible or formatting characters (${emailForbiddenCharacter(String(args?.value ?? '')) ?? 'none'})`,
      },
    });
}

export class AuthRegisterDto implements AuthRegisterRequest {
  @Transform(normaliseEmail)
  @HasNoInvisibleCharacters()
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(EMAIL_MAX_LENGTH)
  email: string;

  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH, { message: `password must be at least ${PASSWORD_MIN_LENGTH} characters` })
  @MaxLength(PASSWORD_MAX_LENGTH)
  password: string;

  @IsOptional()
  @IsString()
  @MaxLength(NAME_MAX_LENGTH)
  name?: string;
}

export class AuthLoginDto implements AuthLoginRequest {
  @Transform(normaliseEmail)
  @HasNoInvisibleCharacters()
  @IsString()
  @MinLength(1)
  @MaxLength(EMAIL_MAX_LENGTH)
  email: string;

  @IsString()
  @MinLength(1)
  @MaxLength(PASSWORD_MAX_LENGTH)
  password: string;
}

export class AccountUpdateDto implements AccountUpdateRequest {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MinLength(1, { message: 'name must not be empty' })
  @MaxLength(NAME_MAX_LENGTH)
  name: string;
}

export class PasswordChangeDto implements PasswordChangeRequest {
  @IsString()
  @MinLength(1, { message: 'currentPassword must not be empty' })
  @MaxLength(PASSWORD_MAX_LENGTH)
  currentPassword: string;

  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH, { message: `newPassword must be at least ${PASSWORD_MIN_LENGTH} characters` })
  @MaxLength(PASSWORD_MAX_LENGTH)
  newPassword: string;

  @IsOptional()
  @IsBoolean({ message: 'revokeCredentials must be true or false' })
  revokeCredentials?: boolean;
}

export class SignOutEverywhereDto implements SignOutEverywhereRequest {
  @IsOptional()
  @IsBoolean({ message: 'revokeCredentials must be true or false' })
  revokeCredentials?: boolean;
}

export class AccountDeleteDto implements AccountDeleteRequest {
  @IsString()
  @MinLength(1, { message: 'password must not be empty' })
  @MaxLength(PASSWORD_MAX_LENGTH)
  password: string;
}

export class PasswordResetRequestDto implements PasswordResetRequest {
  @Transform(normaliseEmail)
  @HasNoInvisibleCharacters()
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(EMAIL_MAX_LENGTH)
  email: string;
}

export class PasswordResetConfirmDto implements PasswordResetConfirmRequest {
  @IsString()
  @MinLength(1, { message: 'token must not be empty' })
  @MaxLength(MAIL_TOKEN_MAX_LENGTH)
  token: string;

  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH, { message: `newPassword must be at least ${PASSWORD_MIN_LENGTH} characters` })
  @MaxLength(PASSWORD_MAX_LENGTH)
  newPassword: string;

  @IsOptional()
  @IsBoolean({ message: 'revokeCredentials must be true or false' })
  revokeCredentials?: boolean;
}

export class EmailVerifyDto implements EmailVerifyRequest {
  @IsString()
  @MinLength(1, { message: 'token must not be empty' })
  @MaxLength(MAIL_TOKEN_MAX_LENGTH)
  token: string;
}

export class NotificationSettingsDto implements NotificationSettings {
  @ValidateIf((_, value) => value !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'lowBalance must be an amount or null' })
  @Min(0)
  @Max(LOW_BALANCE_MAX)
  @MaxDecimals(6)
  lowBalance: number | null;

  @ValidateIf((_, value) => value !== null)
  @IsInt({ message: 'capAlertPercent must be a whole number from 1 to 100, or null' })
  @Min(1)
  @Max(100)
  capAlertPercent: number | null;
}
