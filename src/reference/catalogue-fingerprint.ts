import { createHash } from 'node:crypto';

/** The file, beside the sources, that records the fingerprint of each catalogue version. */
export const CATALOGUE_VERSIONS_FILE = 'catalogue-versions.yaml';

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] =>
  Array.isArray(value) ? value.filter((item): item is Json => typeof item === 'object' && item !== null) : [];
const codes = (value: unknown) => list(value).map((item) => item.code);

/**
 * The SHA-256 of what declarations are validated against in a streams file: its units (code, kind,
 * decimals, what products derive) and each stream's code, units, unit requirements, materials, retired
 * materials, packaging categories, reuse statuses and declarable periods. Texts, sources and
 * eco-organisms are not in it: changing them does not change the catalogue.
 */
export function catalogueFingerprint(streams: unknown): string {
  const document = (typeof streams === 'object' && streams !== null ? streams : {}) as Json;
  const content = {
    units: list(document.units).map((u) => [u.code, u.kind, u.decimals, u.from_products ?? null]),
    streams: list(document.streams).map((s) => [
      s.code,
      s.units,
      list(s.unit_requirements).map((r) => [r.unit, r.requires]),
      codes(s.materials),
      codes(s.retired_materials),
      codes(s.packaging_categories),
      codes(s.reuse_statuses),
      s.declarable_from ?? null,
      s.declarable_until ?? null,
    ]),
  };
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/**
 * What is wrong between a streams file and the recorded fingerprints (`catalogue-versions.yaml`,
 * `versions: {<version>: <sha256>}`): the catalogue's content changed without its version going up,
 * or the version is not recorded yet.
 */
export function catalogueVersionProblems(streams: unknown, recorded: unknown): { path: string; message: string }[] {
  const version = typeof streams === 'object' && streams !== null ? (streams as Json).catalogue_version : undefined;
  const versions = typeof recorded === 'object' && recorded !== null ? (recorded as Json).versions : undefined;
  if (typeof versions !== 'object' || versions === null)
    return [{ path: '/versions', message: 'must map each catalogue version to its fingerprint' }];
  const fingerprint = catalogueFingerprint(streams);
  const known = (versions as Json)[String(version)];
  if (known === undefined)
    return [
      {
        path: `/versions/${String(version)}`,
        message: `catalogue version ${String(version)} is not recorded: add \`${String(version)}: ${fingerprint}\``,
      },
    ];
  if (known !== fingerprint)
    return [
      {
        path: `/versions/${String(version)}`,
        message: `the catalogue (streams, units, materials) changed but catalogue_version is still ${String(version)}: raise it in streams.yaml and record the new version's fingerprint (${fingerprint})`,
      },
    ];
  const later = Object.keys(versions as Json).filter((v) => Number(v) > Number(version));
  return later.length > 0 ? [{ path: `/versions/${later[0]}`, message: `is above the catalogue's version ${String(version)}` }] : [];
}
