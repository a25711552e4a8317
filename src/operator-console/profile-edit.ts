import type { ClientView } from '../accounts/accounts.service.js';
import type { FormBody } from '../common/http/request-body.js';
import { field, fields } from '../dashboard/form-fields.js';

/** The profile form's fields, as the page names them (the admin API's `PATCH` body). */
export const EDIT_FIELDS = ['company', 'email', 'country', 'plan', 'streams', 'idus', 'language'] as const;
export type EditField = (typeof EDIT_FIELDS)[number];

/** The form as typed: text per field, the streams as the boxes ticked. */
export interface EditForm {
  company: string;
  email: string;
  country: string;
  plan: string;
  streams: string[];
  idus: string;
  language: string;
}

/** The form of a client's pending profile as it is now. */
export function formOfView(view: ClientView): EditForm {
  const p = view.pending;
  return {
    company: p.company ?? '',
    email: p.email ?? '',
    country: p.country ?? '',
    plan: p.plan ?? '',
    streams: [...p.streams],
    idus: p.idus.join(', '),
    language: view.language,
  };
}

/** The form a POST brought. */
export function formOfBody(body: FormBody): EditForm {
  return {
    company: field(body, 'company'),
    email: field(body, 'email'),
    country: field(body, 'country'),
    plan: field(body, 'plan'),
    streams: fields(body, 'streams').filter((s) => s !== ''),
    idus: field(body, 'idus'),
    language: field(body, 'language'),
  };
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/**
 * The merge patch of `PATCH /admin/clients/{id}` the form says: every field given, an empty one
 * cleared (`null`); IDUs separated by commas, semicolons or line breaks.
 */
export function patchOf(form: EditForm): Record<string, unknown> {
  const idus = form.idus
    .split(/[,;\n\r]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return {
    company: orNull(form.company),
    email: orNull(form.email),
    country: orNull(form.country),
    plan: orNull(form.plan),
    streams: form.streams,
    idus,
    // Absent: unchanged (a client always has a language).
    language: orNull(form.language) ?? undefined,
  };
}

/** What the patch changes in the pending profile: one row a changed field, before and after, as shown. */
export function changesOf(view: ClientView, patch: Record<string, unknown>): { field: EditField; before: string; after: string }[] {
  const show = (value: unknown) => (Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : '');
  const before: Record<EditField, unknown> = { ...view.pending, language: view.language };
  return EDIT_FIELDS.filter((f) => patch[f] !== undefined && show(before[f]) !== show(patch[f])).map((f) => ({
    field: f,
    before: show(before[f]),
    after: show(patch[f]),
  }));
}
