import type { FieldError } from '../common/problem/problem.js';
import type { ReferenceCatalogue } from '../reference/reference-catalogue.js';

/** The seven-field account minus its id: what the operator edits (pending) and confirms. */
export interface Profile {
  email: string | null;
  company: string | null;
  country: string | null;
  plan: string | null;
  streams: string[];
  idus: string[];
}

/** JSON merge patch (RFC 7396) of a profile: absent = unchanged, `null` = cleared, a value replaces. */
export type ProfilePatch = { [K in keyof Profile]?: Profile[K] | null };

export const PROFILE_FIELDS = ['email', 'company', 'country', 'plan', 'streams', 'idus'] as const;
export const MAX_IDUS = 50;
export const MAX_IDU_LENGTH = 64;

export const emptyProfile = (): Profile => ({ email: null, company: null, country: null, plan: null, streams: [], idus: [] });

export function applyPatch(profile: Profile, patch: ProfilePatch): Profile {
  const next = { ...profile, streams: [...profile.streams], idus: [...profile.idus] };
  for (const field of PROFILE_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (field === 'streams' || field === 'idus') next[field] = value === null ? [] : [...(value as string[])];
    else next[field] = value as string | null;
  }
  return next;
}

export function sameProfile(a: Profile, b: Profile): boolean {
  return PROFILE_FIELDS.every((field) => JSON.stringify(a[field]) === JSON.stringify(b[field]));
}

const list = (values: string[]) => values.join(', ');

/**
 * The rules that need the published reference data or look at array items one by one
 * (so that each problem points at its item): plan id, stream codes, IDUs.
 * Only the fields present in `values` are checked. `root` prefixes every pointer.
 */
export function profileValueErrors(values: ProfilePatch, catalogue: ReferenceCatalogue, root = ''): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof values.plan === 'string' && !catalogue.plan(values.plan)) {
    errors.push({
      pointer: `${root}/plan`,
      detail: `"${values.plan}" is not a published plan; use one of ${list(catalogue.planIds())} (see /api/v1/pricing.json)`,
      code: 'unknown_plan',
    });
  }
  if (Array.isArray(values.streams)) {
    const seen = new Set<string>();
    values.streams.forEach((code, index) => {
      const pointer = `${root}/streams/${index}`;
      if (seen.has(code)) errors.push({ pointer, detail: `"${code}" is listed more than once`, code: 'duplicate' });
      else if (!catalogue.stream(code)) {
        errors.push({
          pointer,
          detail: `"${code}" is not a published stream code; use one of ${list(catalogue.streamCodes())} (see /api/v1/streams.json)`,
          code: 'unknown_stream',
        });
      }
      seen.add(code);
    });
  }
  if (Array.isArray(values.idus)) {
    const seen = new Set<string>();
    values.idus.forEach((idu, index) => {
      const pointer = `${root}/idus/${index}`;
      if (idu.trim().length === 0) errors.push({ pointer, detail: 'must not be empty', code: 'not_blank' });
      else if (idu.trim() !== idu) errors.push({ pointer, detail: 'must not start or end with white space', code: 'not_trimmed' });
      else if (idu.length > MAX_IDU_LENGTH) {
        errors.push({ pointer, detail: `must be at most ${MAX_IDU_LENGTH} characters`, code: 'max_length' });
      } else if (seen.has(idu)) errors.push({ pointer, detail: `"${idu}" is listed more than once`, code: 'duplicate' });
      seen.add(idu);
    });
  }
  return errors;
}

/**
 * Why a pending profile cannot be confirmed yet: every missing field, every value the reference
 * data no longer accepts, and every stream the plan does not cover. Pointers are into the
 * client resource (`/pending/...`), as `GET /admin/clients/{client_id}` shows it, or under `root`.
 */
export function confirmationErrors(pending: Profile, catalogue: ReferenceCatalogue, root = '/pending'): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['email', 'company', 'country', 'plan'] as const) {
    if (pending[field] === null)
      errors.push({ pointer: `${root}/${field}`, detail: 'is required to confirm the profile', code: 'required' });
  }
  if (pending.streams.length === 0) {
    errors.push({ pointer: `${root}/streams`, detail: 'needs at least one stream to confirm the profile', code: 'required' });
  }
  errors.push(...profileValueErrors(pending, catalogue, root));
  const plan = pending.plan === null ? undefined : catalogue.plan(pending.plan);
  if (plan) {
    pending.streams.forEach((code, index) => {
      if (catalogue.stream(code) && !plan.streams.includes(code)) {
        errors.push({
          pointer: `${root}/streams/${index}`,
          detail: `plan "${plan.id}" does not cover stream "${code}" (it covers ${list(plan.streams)})`,
          code: 'not_in_plan',
        });
      }
    });
  }
  return errors;
}
