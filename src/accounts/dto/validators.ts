import { isISO31661Alpha2, ValidateBy, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { checkEmail } from '../../common/email-address.js';
import { isLanguage, LANGUAGES } from '../../i18n/language.js';

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

/** A language the service writes in, one of the registry's (src/i18n/language-definitions.ts). */
export const IsLanguageCode = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isLanguageCode',
      validator: {
        validate: (value: unknown) => isLanguage(value),
        defaultMessage: () => `$property must be ${LANGUAGES.join(' or ')}`,
      },
    },
    options,
  );

/** Why `value` is refused by the service's rule for e-mail addresses (email-address.ts), for the `code` given; undefined when it is not. */
function emailProblem(value: unknown, code: 'invalid_email' | 'email_characters'): string | undefined {
  if (typeof value !== 'string') return code === 'invalid_email' ? 'must be an e-mail address such as name@example.fr' : undefined;
  const checked = checkEmail(value);
  return !checked.ok && checked.code === code ? checked.detail : undefined;
}

/**
 * An e-mail address by the service's one rule (`checkEmail`): `invalid_email` for its form,
 * `email_characters` for characters that would make it another address than it reads. Pair it with
 * `NormaliseEmail`, which stores it as the rule writes it.
 */
export const IsServiceEmail = (options?: ValidationOptions) => (target: object, property: string) => {
  for (const code of ['invalid_email', 'email_characters'] as const) {
    ValidateBy(
      {
        name: code === 'invalid_email' ? 'isEmail' : 'emailCharacters',
        validator: {
          validate: (value: unknown) => emailProblem(value, code) === undefined,
          defaultMessage: (args?: ValidationArguments) => `$property ${emailProblem(args?.value, code) ?? 'is not accepted'}`,
        },
      },
      options,
    )(target, property);
  }
};

/** The address as `checkEmail` writes it (trimmed, NFC, domain in lower-case ASCII); left as sent when refused (the validator says why). */
export const normaliseEmail = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const checked = checkEmail(value);
  return checked.ok ? checked.address : value;
};

/** A control character (C0, DEL, C1: CR, LF, VT, a tab, NEL U+0085…). */
export const CONTROL = /\p{Cc}/u;

/** One line of text: no control character (`invalid_characters`). */
export const NoControlCharacters = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'invalidCharacters',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !CONTROL.test(value),
        defaultMessage: () => '$property must be one line of text, without control characters (CR, LF, VT, NEL, a tab…)',
      },
    },
    options,
  );
