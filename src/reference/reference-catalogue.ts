import type { LocalizedName, Material, Plan, ReferenceDocuments, RetiredMaterial, Stream, StreamUnit, UnitDefinition } from './reference-documents.js';

/**
 * A material's text as the rules compare it (category names, one line per material): trimmed,
 * compatibility-normalised (NFKC: `ﬁ` = `fi`, full-width = ASCII, `e` + combining accent = `é`) and
 * case-folded (upper then lower, so `ß` = `SS` = `ss`).
 */
export const foldText = (text: string) => text.trim().normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
const fold = foldText;

/**
 * Typed access to the published reference data for the other modules: the plans, streams,
 * units and materials the API accepts are exactly the ones the public files publish.
 */
export class ReferenceCatalogue {
  private readonly plans: Map<string, Plan>;
  private readonly streams: Map<string, Stream>;
  private readonly units: Map<string, UnitDefinition>;
  /** The version of the catalogue that new declarations are validated against (and store). */
  readonly catalogueVersion: number;

  constructor(documents: Pick<ReferenceDocuments, 'pricing' | 'streams'>) {
    this.plans = new Map(documents.pricing.plans.map((plan) => [plan.id, plan]));
    this.streams = new Map(documents.streams.streams.map((stream) => [stream.code, stream]));
    this.units = new Map(documents.streams.units.map((unit) => [unit.code, unit]));
    this.catalogueVersion = documents.streams.catalogue_version;
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

  streamCodes(): string[] {
    return [...this.streams.keys()];
  }

  stream(code: string): Stream | undefined {
    return this.streams.get(code);
  }

  unitsFor(streamCode: string): StreamUnit[] {
    return this.streams.get(streamCode)?.units ?? [];
  }

  /** The stream's published material category that `material` names (by code, French or English name; case-insensitive). */
  materialFor(streamCode: string, material: string): Material | undefined {
    const wanted = fold(material);
    return this.streams
      .get(streamCode)
      ?.materials.find((m) => fold(m.code) === wanted || fold(m.name.fr) === wanted || fold(m.name.en) === wanted);
  }

  /** A material code of an earlier catalogue version that `material` names by code (case-insensitive). */
  retiredMaterialFor(streamCode: string, material: string): RetiredMaterial | undefined {
    const wanted = fold(material);
    return this.streams.get(streamCode)?.retired_materials.find((m) => fold(m.code) === wanted);
  }

  /**
   * The name of the category a stored line's material code stands for: a current material, or a
   * retired one (so that a declaration made under an earlier catalogue still shows its category).
   */
  categoryName(streamCode: string, code: string): LocalizedName | undefined {
    const stream = this.streams.get(streamCode);
    return (stream?.materials.find((m) => m.code === code) ?? stream?.retired_materials.find((m) => m.code === code))?.name;
  }
}
