import { ValidationError, ValidationPipe } from '@nestjs/common';
import type { ApiErrorDetail } from '@switchyard/shared-dto';
import { CommonErrorCode, CommonException } from '../errors/app.exception';

function flatten(errors: ValidationError[], parent = ''): ApiErrorDetail[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** The global pipe: validates with the shared DTO classes, strips nothing silently (unknown fields are 400). */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      const fields = [...new Set(details.map((detail) => detail.field))].join(', ');
      return new CommonException(CommonErrorCode.VALIDATION_FAILED, `Invalid request: check ${fields}`, { details });
    },
  });
}
