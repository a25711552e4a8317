import type { Material, Plan, ReferenceDocuments, Stream, StreamUnit } from './build/reference-files.js';

const fold = (text: string) => text.trim().toLocaleLowerCase('fr-FR');

/**
 * Typed access to the published reference data for the other modules: the plans, streams,
 * units and materials the API accepts are exactly the ones the public files publish.
 */
export class ReferenceCatalogue {
  private readonly plans: Map<string, Plan>;
  private readonly streams: Map<string, Stream>;

  constructor(documents: Pick<ReferenceDocuments, 'pricing' | 'streams'>) {
    this.plans = new Map(documents.pricing.plans.map((plan) => [plan.id, plan]));
    this.streams = new Map(documents.streams.streams.map((stream) => [stream.code, stream]));
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
}
