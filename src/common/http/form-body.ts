import { Problem } from '../problem/problem.js';

/** A form body: each field's value, or values when it is repeated. */
export type FormBody = Record<string, string | string[]>;

/**
 * Most fields a form may carry. The largest form of the service is the dashboard's declaration
 * form: 200 lines of 4 fields, plus the period, the action and the CSRF token (803); 1 MiB of
 * `a=&` would be ~350,000.
 */
export const MAX_FORM_FIELDS = 1_000;

/** The `&`-separated pieces of a form body, counted on its bytes up to `max + 1` (an empty piece counts too: an over-count only makes the bound stricter). */
export function countFormFields(bytes: Buffer, max: number): number {
  if (bytes.length === 0) return 0;
  let count = 1;
  for (let at = bytes.indexOf(0x26); at !== -1 && count <= max; at = bytes.indexOf(0x26, at + 1)) count++;
  return count;
}

/**
 * `application/x-www-form-urlencoded`, UTF-8, as the URL standard parses it, in time linear in the
 * body: a repeated field's values are appended to one list. 413 past `maxFields` fields, counted
 * on the raw bytes before anything is decoded.
 */
export function parseForm(bytes: Buffer, maxFields = MAX_FORM_FIELDS): FormBody {
  if (countFormFields(bytes, maxFields) > maxFields) {
    throw new Problem(
      'payload_too_large',
      `The form has more than ${maxFields.toLocaleString('en')} fields; the largest form of this service has about 800.`,
    );
  }
  const form = Object.create(null) as FormBody;
  for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) {
    const previous = form[name];
    if (previous === undefined) form[name] = value;
    else if (typeof previous === 'string') form[name] = [previous, value];
    else previous.push(value);
  }
  return form;
}
