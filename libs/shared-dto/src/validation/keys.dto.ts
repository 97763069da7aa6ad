import { Transform } from 'class-transformer';
import { IsString, MaxLength, MinLength } from 'class-validator';

export const KEY_NAME_MAX_LENGTH = 100;

export class KeyCreateDto {
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MinLength(1, { message: 'name must not be empty' })
  @MaxLength(KEY_NAME_MAX_LENGTH)
  name: string;
}
