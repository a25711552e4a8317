import type { FormBody } from '../common/http/request-body.js';

/** A form field's value: the last one when repeated, '' when absent. */
export function field(form: FormBody | undefined, name: string): string {
  const value = form?.[name];
  if (Array.isArray(value)) return value.at(-1) ?? '';
  return typeof value === 'string' ? value : '';
}

/** A repeated form field's values (`stream` of every line), '' where absent. */
export function fields(form: FormBody | undefined, name: string): string[] {
  const value = form?.[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}
