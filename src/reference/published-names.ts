import type { ReferenceCatalogue } from './reference-catalogue.js';

let catalogue: ReferenceCatalogue | undefined;

/**
 * The names the published reference data gives its enumerations, for the request rules that
 * spell what a caller sent as published (common/spelling.ts), where no service is at hand. Set by
 * ReferenceModule when it loads the catalogue (every app of a process loads the same built files).
 */
export const publishedNames = {
  plans: (): string[] => catalogue?.planIds() ?? [],
  streams: (): string[] => catalogue?.streamCodes() ?? [],
  ecoOrganisms: (): string[] => catalogue?.ecoOrganismNames() ?? [],
};

/** Makes `loaded` the catalogue whose names `publishedNames` gives; returns it. */
export function publishNames(loaded: ReferenceCatalogue): ReferenceCatalogue {
  catalogue = loaded;
  return loaded;
}
