import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * At most `places` decimals. class-validator's own `IsNumber({ maxDecimalPlaces })` reads the decimals from
 * `String(value)`, which has no `.` for numbers written with an exponent (1e-7), and then throws instead of
 * refusing; this one compares the number with itself rounded. Use it beside `IsNumber()`, which keeps the
 * OpenAPI schema's `type: number`.
 */
export function MaxDecimals(places: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxDecimals',
      constraints: [places],
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'number' || (Number.isFinite(value) && Number(value.toFixed(places)) === value),
        defaultMessage: () => `$property must have at most ${places} decimals`,
      },
    },
    options,
  );
}
