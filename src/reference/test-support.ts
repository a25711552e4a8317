import { join } from 'node:path';
import { loadSources } from './load-sources.js';
import { ReferenceCatalogue } from './reference-catalogue.js';
import type { ReferenceDocuments, ReferenceSources } from './reference-documents.js';
import { REPO_ROOT } from '../common/repo-root.js';

/** Helpers shared by the specs of this folder (not used by the build itself). */
export const SOURCE_DIR = join(REPO_ROOT, 'reference-data');

let cached: Promise<ReferenceSources> | undefined;

/** A fresh deep copy of the real sources, safe to mutate. */
export async function realSources(): Promise<ReferenceSources> {
  cached ??= loadSources(SOURCE_DIR);
  return structuredClone(await cached);
}

/** A catalogue of a spec's own, so that its rules do not move when the published data does: these streams, in kilograms and consumer sales units. */
export function catalogueOf(streams: object[], catalogueVersion = 1): ReferenceCatalogue {
  return new ReferenceCatalogue({
    pricing: { plans: [] },
    streams: {
      catalogue_version: catalogueVersion,
      units: [
        { code: 'kg', kind: 'mass', name: { fr: 'kilogramme', en: 'kilogram' }, decimals: 3 },
        { code: 'uvc', kind: 'count', name: { fr: 'unité de vente consommateur (UVC)', en: 'consumer sales unit (CSU)' }, decimals: 0 },
      ],
      streams,
    },
  } as unknown as Pick<ReferenceDocuments, 'pricing' | 'streams'>);
}

/** Household packaging (EMB) as such a catalogue holds it: declarable since 2022, kilograms with the consumer sales units they require; `materials` (and `retired_materials`) its own. */
export function householdPackaging(materials: { materials: object[]; retired_materials?: object[] }): object {
  return {
    code: 'EMB',
    name: { fr: 'Emballages ménagers', en: 'Household packaging' },
    declarable_from: '2022-01-01',
    declarable_until: null,
    replaced_by: null,
    units: ['kg', 'uvc'],
    unit_requirements: [{ unit: 'kg', requires: 'uvc' }],
    retired_materials: [],
    ...materials,
  };
}
