import { isISO31661Alpha2, ValidateBy, type ValidationOptions } from 'class-validator';

/** ISO 3166-1 alpha-2, upper case (`FR`); `fr` and unassigned codes (`XX`) are refused. */
export const IsCountryCode = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isCountryCode',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && /^[A-Z]{2}$/.test(value) && isISO31661Alpha2(value),
        defaultMessage: () => '$property must be an ISO 3166-1 alpha-2 country code in upper case, e.g. FR',
      },
    },
    options,
  );

/** A language the service writes in: `fr` or `en`. */
export const IsLanguageCode = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isLanguageCode',
      validator: {
        validate: (value: unknown) => value === 'fr' || value === 'en',
        defaultMessage: () => '$property must be fr or en',
      },
    },
    options,
  );
