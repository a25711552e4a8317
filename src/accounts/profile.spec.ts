import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import type { PricingDocument, StreamsDocument } from '../reference/reference-documents.js';
import { applyPatch, confirmationErrors, emptyProfile, type Profile, profileValueErrors } from './profile.js';

const catalogue = new ReferenceCatalogue({
  pricing: {
    plans: [
      { id: 'starter', streams: ['EMB'] },
      { id: 'business', streams: ['EMB', 'EPRO'] },
    ],
  } as unknown as PricingDocument,
  streams: {
    units: [],
    streams: [
      { code: 'EMB', materials: [], retired_materials: [] },
      { code: 'EPRO', materials: [], retired_materials: [] },
    ],
  } as unknown as StreamsDocument,
});

const complete: Profile = {
  email: 'a@example.fr',
  company: 'A SAS',
  country: 'FR',
  plan: 'business',
  streams: ['EMB', 'EPRO'],
  idus: ['FR1'],
};

describe('applyPatch (JSON merge patch)', () => {
  it('replaces present fields, clears null ones (arrays become empty) and keeps absent ones', () => {
    expect(applyPatch(complete, { email: null, idus: null, plan: 'starter', streams: ['EMB'] })).toEqual({
      ...complete,
      email: null,
      idus: [],
      plan: 'starter',
      streams: ['EMB'],
    });
    expect(applyPatch(complete, {})).toEqual(complete);
  });

  it('does not share arrays with its input', () => {
    const next = applyPatch(complete, {});
    next.streams.push('X');
    expect(complete.streams).toEqual(['EMB', 'EPRO']);
  });
});

describe('profileValueErrors', () => {
  it('checks only the fields present', () => {
    expect(profileValueErrors({}, catalogue)).toEqual([]);
    expect(profileValueErrors({ plan: null, streams: null }, catalogue)).toEqual([]);
  });

  it('points at each bad item', () => {
    const errors = profileValueErrors(
      { plan: 'gold', streams: ['EMB', 'ZZZ', 'EMB'], idus: ['A', ' B', 'A', '', 'x'.repeat(65)] },
      catalogue,
    );
    expect(errors.map((e) => [e.pointer, e.code])).toEqual([
      ['/plan', 'unknown_plan'],
      ['/streams/1', 'unknown_stream'],
      ['/streams/2', 'duplicate'],
      ['/idus/1', 'not_trimmed'],
      ['/idus/2', 'duplicate'],
      ['/idus/3', 'not_blank'],
      ['/idus/4', 'max_length'],
    ]);
  });
});

describe('confirmationErrors', () => {
  it('accepts a complete, consistent profile (IDUs are optional)', () => {
    expect(confirmationErrors(complete, catalogue)).toEqual([]);
    expect(confirmationErrors({ ...complete, idus: [] }, catalogue)).toEqual([]);
  });

  it('lists every missing field under /pending', () => {
    expect(confirmationErrors(emptyProfile(), catalogue).map((e) => [e.pointer, e.code])).toEqual([
      ['/pending/email', 'required'],
      ['/pending/company', 'required'],
      ['/pending/country', 'required'],
      ['/pending/plan', 'required'],
      ['/pending/streams', 'required'],
    ]);
  });

  it('refuses streams the plan does not cover, and values the reference data no longer has', () => {
    expect(confirmationErrors({ ...complete, plan: 'starter' }, catalogue).map((e) => [e.pointer, e.code])).toEqual([
      ['/pending/streams/1', 'not_in_plan'],
    ]);
    expect(confirmationErrors({ ...complete, plan: 'retired' }, catalogue).map((e) => [e.pointer, e.code])).toEqual([
      ['/pending/plan', 'unknown_plan'],
    ]);
  });
});
