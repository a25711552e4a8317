import { isISO8601, ValidateBy, type ValidationOptions } from 'class-validator';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time with a time zone (a query filter such as `from`, `to`). */
export const IsRfc3339 = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isDateTime',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && RFC3339.test(value) && isISO8601(value, { strict: true, strictSeparator: true }),
        defaultMessage: () => '$property must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T00:00:00Z',
      },
    },
    options,
  );

/** A text matching `pattern`; a failure's code is `name` in snake case (e.g. `invalidClientId` → `invalid_client_id`). */
export const MatchesPattern = (name: string, pattern: RegExp, message: string) =>
  ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => typeof value === 'string' && pattern.test(value),
      defaultMessage: () => `$property ${message}`,
    },
  });
