import type {
  FilingScheme,
  FilingTier,
  IduShape,
  LocalizedName,
  Material,
  PackagingClass,
  Plan,
  ReferenceDocuments,
  RetiredMaterial,
  Stream,
  StreamUnit,
  UnitDefinition,
  WhoFiles,
} from './reference-documents.js';
import { LANGUAGES } from '../i18n/languages.js';

/**
 * A material's text as the rules compare it (category names, one line per material): trimmed,
 * compatibility-normalised (NFKC: `ﬁ` = `fi`, full-width = ASCII, `e` + combining accent = `é`) and
 * case-folded (upper then lower, so `ß` = `SS` = `ss`).
 */
export const foldText = (text: string) =>
  PRINTABLE_ASCII.test(text) ? text.trim().toLowerCase() : text.trim().normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
/** Text that NFKC leaves as it is and whose case folds as `toLowerCase` folds it. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const fold = foldText;

/**
 * Typed access to the published reference data for the other modules: the plans, streams,
 * units and materials the API accepts are exactly the ones the public files publish.
 */
export class ReferenceCatalogue {
  private readonly plans: Map<string, Plan>;
  /** Who files what with the eco-organism (pricing.json `who_files`). */
  readonly whoFiles: WhoFiles;
  private readonly streams: Map<string, Stream>;
  private readonly units: Map<string, UnitDefinition>;
  /** Per stream: each material's folded code, French and English name → the material (the first in published order wins). */
  private readonly materialsByName: Map<string, Map<string, Material>>;
  /** Per stream: each retired material's folded code → it. */
  private readonly retiredByCode: Map<string, Map<string, RetiredMaterial>>;
  /** The version of the catalogue that new declarations are validated against (and store). */
  readonly catalogueVersion: number;
  private readonly idu: IduShape | undefined;
  private iduPattern: RegExp | undefined;

  constructor(documents: Pick<ReferenceDocuments, 'pricing' | 'streams'>) {
    this.idu = documents.streams.idu_shape;
    this.plans = new Map(documents.pricing.plans.map((plan) => [plan.id, plan]));
    this.whoFiles = documents.pricing.who_files;
    this.streams = new Map(documents.streams.streams.map((stream) => [stream.code, stream]));
    this.units = new Map(documents.streams.units.map((unit) => [unit.code, unit]));
    this.catalogueVersion = documents.streams.catalogue_version;
    this.materialsByName = new Map(
      documents.streams.streams.map((stream) => [
        stream.code,
        firstByKey(stream.materials, (m) => [m.code, ...LANGUAGES.flatMap((l) => m.name[l] ?? [])]),
      ]),
    );
    this.retiredByCode = new Map(
      documents.streams.streams.map((stream) => [stream.code, firstByKey(stream.retired_materials, (m) => [m.code])]),
    );
  }

  unit(code: string): UnitDefinition | undefined {
    return this.units.get(code);
  }

  /** Every published unit code. */
  unitCodes(): string[] {
    return [...this.units.keys()];
  }

  planIds(): string[] {
    return [...this.plans.keys()];
  }

  plan(id: string): Plan | undefined {
    return this.plans.get(id);
  }

  /** Every eco-organism the streams list (by published name, each once). */
  ecoOrganismNames(): string[] {
    return [...new Set([...this.streams.values()].flatMap((stream) => stream.eco_organisms.map((organism) => organism.name)))];
  }

  streamCodes(): string[] {
    return [...this.streams.keys()];
  }

  stream(code: string): Stream | undefined {
    return this.streams.get(code);
  }

  unitsFor(streamCode: string): StreamUnit[] {
    return this.streams.get(streamCode)?.units ?? [];
  }

  /**
   * Whether quantities in `unit` add up across materials: a mass does; a count (`uvc`) does not, since
   * each material's line counts the units whose packaging contains that material.
   */
  addsAcrossMaterials(unit: string): boolean {
    return this.units.get(unit)?.kind !== 'count';
  }

  /** The stream's count unit (`uvc` for household packaging), in which its consumer sales units are stated; undefined when it has none. */
  countUnitOf(streamCode: string): StreamUnit | undefined {
    return this.unitsFor(streamCode).find((unit) => this.units.get(unit)?.kind === 'count');
  }

  /**
   * The stream's published material category that `material` names (by code, French or English name; case-insensitive);
   * `folded`: the material is `foldText`'s already (a caller that folds it once for several lookups).
   */
  materialFor(streamCode: string, material: string, folded = false): Material | undefined {
    return this.materialsByName.get(streamCode)?.get(folded ? material : fold(material));
  }

  /** A material code of an earlier catalogue version that `material` names by code (case-insensitive); `folded` as for `materialFor`. */
  retiredMaterialFor(streamCode: string, material: string, folded = false): RetiredMaterial | undefined {
    return this.retiredByCode.get(streamCode)?.get(folded ? material : fold(material));
  }

  /**
   * The name of the category a stored line's material code stands for: a current material, or a
   * retired one (so that a declaration made under an earlier catalogue still shows its category).
   */
  categoryName(streamCode: string, code: string): LocalizedName | undefined {
    const stream = this.streams.get(streamCode);
    return (stream?.materials.find((m) => m.code === code) ?? stream?.retired_materials.find((m) => m.code === code))?.name;
  }

  /** The eco-organisms of a stream that publish how producers file with them, in published order. */
  filingSchemes(streamCode: string): { ecoOrganism: string; filing: FilingScheme }[] {
    const stream = this.streams.get(streamCode);
    if (!stream) return [];
    return stream.eco_organisms.flatMap((organism) => (organism.filing ? [{ ecoOrganism: organism.name, filing: organism.filing }] : []));
  }

  /** How producers file with one eco-organism of a stream (by its published name); undefined when not published. */
  filingScheme(streamCode: string, ecoOrganism: string): FilingScheme | undefined {
    return this.streams.get(streamCode)?.eco_organisms.find((organism) => organism.name === ecoOrganism)?.filing ?? undefined;
  }

  /**
   * The tier a yearly count (in the scheme's `count_unit`, e.g. the S1 + S2 total of uvc lines) puts a
   * producer in at an eco-organism: the tier whose `from` ≤ count < `below`. Undefined when the
   * eco-organism publishes no tiers, or the count is not a number ≥ 0. The tier carries its
   * verification label and sources, which an answer built on it passes on.
   */
  filingTier(streamCode: string, ecoOrganism: string, yearlyCount: number): FilingTier | undefined {
    if (!Number.isFinite(yearlyCount) || yearlyCount < 0) return undefined;
    // The tiers cover every count from 0, in order, without a gap or an overlap (the build checks it):
    // the first whose upper bound is above the count holds it.
    return this.filingScheme(streamCode, ecoOrganism)?.tiers.find(
      (tier) => tier.uvc_per_year.below === null || yearlyCount < tier.uvc_per_year.below,
    );
  }

  /** The stream's packaging categories (EPRO: sales, grouped, transport, service, primary production); empty when it has none. */
  packagingCategories(streamCode: string): PackagingClass[] {
    return this.streams.get(streamCode)?.packaging_categories ?? [];
  }

  /** The reuse statuses a packaging of the stream may have (single-use, reusable new, reused); empty when none is published. */
  reuseStatuses(streamCode: string): PackagingClass[] {
    return this.streams.get(streamCode)?.reuse_statuses ?? [];
  }

  /** The usual shape of unique identifiers (IDU), with its verification label. */
  iduShape(): IduShape | undefined {
    return this.idu;
  }

  /**
   * Whether an IDU has the usual shape (compared trimmed and upper-cased). false calls for a warning,
   * never a refusal: no official format is published. true when no shape is published.
   */
  iduLooksUsual(idu: string): boolean {
    if (!this.idu) return true;
    this.iduPattern ??= new RegExp(this.idu.pattern);
    return this.iduPattern.test(idu.trim().toUpperCase());
  }
}

/** Each item under each of its folded texts; where two items share a text, the first keeps it. */
function firstByKey<T>(items: T[], texts: (item: T) => string[]): Map<string, T> {
  const byKey = new Map<string, T>();
  for (const item of items) {
    for (const text of texts(item)) {
      const key = fold(text);
      if (!byKey.has(key)) byKey.set(key, item);
    }
  }
  return byKey;
}
