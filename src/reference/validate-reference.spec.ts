import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSources } from './load-sources.js';
import type {
  EcoOrganism,
  FilingScheme,
  JsonSchema,
  LawEntry,
  Material,
  Obligation,
  ReferenceSources,
  StreamsDocument,
} from './reference-documents.js';
import { SOURCE_DIR, realSources } from './test-support.js';
import { articlesNamed, leadsToArticle } from './source-labels.js';
import { frenchTypographyProblems, ReferenceValidationError, validateReference } from './validate-reference.js';

/** Applies `breakIt` to a copy of the real sources and returns the validation error. */
async function problemsOf(breakIt: (sources: ReferenceSources) => void): Promise<ReferenceValidationError> {
  const sources = await realSources();
  breakIt(sources);
  try {
    validateReference(sources);
  } catch (error) {
    expect(error).toBeInstanceOf(ReferenceValidationError);
    return error as ReferenceValidationError;
  }
  throw new Error('expected the sources to be rejected');
}

/** The message lines, without the header line. */
function lines(error: ReferenceValidationError): string[] {
  return error.message
    .split('\n')
    .slice(1)
    .map((line) => line.trim());
}

describe('validateReference', () => {
  it('accepts the real sources', async () => {
    const sources = await realSources();
    expect(validateReference(sources)).toBe(sources);
  });

  it('rejects an unknown law id in a stream, naming the file and the path', async () => {
    const error = await problemsOf((s) => {
      s.streams.streams[1]!.law[0] = 'L999';
    });
    expect(lines(error)).toContain('streams.yaml /streams/1/law/0: unknown law id "L999"');
  });

  it('rejects a duplicate stream code', async () => {
    const error = await problemsOf((s) => {
      s.streams.streams[1]!.code = 'EMB';
    });
    expect(lines(error)).toContain('streams.yaml /streams/1/code: duplicate stream code "EMB" (first at /streams/0)');
  });

  it('rejects dates in the wrong format or that do not exist', async () => {
    const error = await problemsOf((s) => {
      s.streams.streams[0]!.declarable_from = '01/01/2022';
      s.law.updated = '2026-02-30';
    });
    expect(lines(error)).toEqual(
      expect.arrayContaining([
        'streams.yaml /streams/0/declarable_from: must match format "date"',
        'law.yaml /updated: must match format "date"',
      ]),
    );
  });

  it('rejects a plan covering an unknown stream', async () => {
    const error = await problemsOf((s) => {
      s.pricing.plans[0]!.streams.push('PAP');
    });
    expect(lines(error)).toEqual(['pricing.yaml /plans/0/streams/1: unknown stream code "PAP"']);
  });

  it('rejects obligations that point at unknown streams or law ids', async () => {
    const error = await problemsOf((s) => {
      s.obligations.obligations[2]!.streams = ['EMB', 'XYZ'];
      s.obligations.obligations[3]!.legal_basis = ['L541-10-9', 'no-such-law'];
    });
    expect(lines(error)).toEqual([
      'obligations.yaml /obligations/2/streams/1: unknown stream code "XYZ"',
      'obligations.yaml /obligations/3/legal_basis/1: unknown law id "no-such-law"',
    ]);
  });

  it('rejects missing and unknown properties, bad codes and a price without two decimals', async () => {
    const error = await problemsOf((s) => {
      delete (s.law.law[0] as { url?: string }).url;
      (s.streams.streams[0] as unknown as Record<string, unknown>).colour = 'blue';
      s.streams.streams[0]!.materials[0]!.code = 'Paper Cardboard';
      s.pricing.plans[1]!.price.amount = '990';
    });
    expect(lines(error)).toEqual(
      expect.arrayContaining([
        'law.yaml /law/0/url: is required',
        'streams.yaml /streams/0/colour: is not an allowed property',
        'streams.yaml /streams/0/materials/0/code: must match pattern "^[a-z][a-z0-9]*(_[a-z0-9]+)*$"',
        'pricing.yaml /plans/1/price/amount: must match pattern "^(0|[1-9][0-9]*)\\.[0-9]{2}$"',
      ]),
    );
  });

  it('rejects a law entry and a stream that do not list each other', async () => {
    const error = await problemsOf((s) => {
      s.law.law.find((entry) => entry.id === 'arrete-2023-12-07-cdc-empap')!.streams = [];
    });
    const streamIndex = 0;
    const lawIndex = (await realSources()).streams.streams[streamIndex]!.law.indexOf('arrete-2023-12-07-cdc-empap');
    expect(lines(error)).toEqual([
      `streams.yaml /streams/0/law/${lawIndex}: law entry "arrete-2023-12-07-cdc-empap" does not list stream "EMB" in its streams`,
    ]);
  });

  it('rejects inconsistent eco-organisms and stream dates', async () => {
    const error = await problemsOf((s) => {
      s.streams.streams[0]!.eco_organisms[0]!.approval = null;
      s.streams.streams[0]!.eco_organisms[1]!.approval = { from: '2024-12-31', to: '2024-01-01' };
      s.streams.streams[2]!.eco_organisms[0]!.approval = { from: '2026-01-01', to: '2026-12-31' };
      s.streams.streams[2]!.declarable_from = '2025-01-01';
      s.streams.streams[2]!.status = 'upcoming';
      s.streams.streams[2]!.start_date = null;
    });
    expect(lines(error)).toEqual(
      expect.arrayContaining([
        'streams.yaml /streams/0/eco_organisms/0/approval: an approved eco-organism needs its known approval period',
        'streams.yaml /streams/0/eco_organisms/1/approval/to: is before the approval start 2024-12-31',
        'streams.yaml /streams/2/eco_organisms/0/approval: an eco-organism whose role is "approval_not_verified" has no known approval period (use null)',
        'streams.yaml /streams/2/start_date: an upcoming stream needs a start date',
      ]),
    );
  });

  it('refuses a fact without a source or a checked date, in every fact file', async () => {
    const error = await problemsOf((s) => {
      delete (s.streams.streams[0]!.materials[0] as Partial<Material>).sources;
      delete (s.streams.streams[0]!.materials[1] as Partial<Material>).checked;
      delete (s.streams.streams[0]!.eco_organisms[0] as Partial<EcoOrganism>).checked;
      s.streams.streams[0]!.deadlines[0]!.sources = [];
      delete (s.law.law[0] as Partial<LawEntry>).checked;
      delete (s.obligations.obligations[0] as Partial<Obligation>).sources;
      delete (s.streams as Partial<StreamsDocument>).checked;
    });
    expect(lines(error)).toEqual(
      expect.arrayContaining([
        'streams.yaml /streams/0/materials/0/sources: is required',
        'streams.yaml /streams/0/materials/1/checked: is required',
        'streams.yaml /streams/0/eco_organisms/0/checked: is required',
        'streams.yaml /streams/0/deadlines/0/sources: must NOT have fewer than 1 items',
        'law.yaml /law/0/checked: is required',
        'obligations.yaml /obligations/0/sources: is required',
        'streams.yaml /checked: is required',
      ]),
    );
  });

  it('refuses an ended approval published as in force, and units, requirements or replacements that are not published', async () => {
    const error = await problemsOf((s) => {
      s.streams.streams[0]!.eco_organisms[0]!.approval = { from: '2024-01-01', to: '2024-12-31' };
      s.streams.streams[0]!.units.push('tonne');
      s.streams.streams[1]!.unit_requirements.push({
        unit: 'kg',
        requires: 'uvc',
        basis: { fr: 'Parce que.', en: 'Because.' },
        verification: 'secondary_source',
        checked: '2026-11-23',
        sources: ['https://example.org'],
      });
      s.streams.streams[1]!.replaced_by = 'NOPE';
      s.streams.streams[0]!.retired_materials[0]!.replaced_by = ['unknown_line'];
    });
    expect(lines(error)).toEqual(
      expect.arrayContaining([
        'streams.yaml /streams/0/eco_organisms/0/approval/to: the approval ended on 2024-12-31, before the file was checked (2026-11-28): do not publish it as in force',
        "streams.yaml /streams/0/eco_organisms/0/approval_periods/1/to: must be the approval's end 2024-12-31",
        'streams.yaml /streams/0/units/2: unknown unit (not in the top-level units) "tonne"',
        'streams.yaml /streams/1/unit_requirements/0/requires: "uvc" is not one of the stream\'s units',
        'streams.yaml /streams/1/replaced_by: unknown stream code "NOPE"',
        'streams.yaml /streams/0/retired_materials/0/replaced_by/0: unknown material code "unknown_line"',
      ]),
    );
  });

  it('lists every problem of every file in one error', async () => {
    const error = await problemsOf((s) => {
      s.streams.streams[1]!.law[0] = 'L999';
      s.pricing.plans[0]!.streams = ['NOPE'];
      s.obligations.obligations[0]!.periodicity = 'weekly' as never;
      s.service.updated = 'yesterday';
    });
    expect(error.problems.map((p) => p.file)).toEqual(
      expect.arrayContaining(['streams.yaml', 'pricing.yaml', 'obligations.yaml', 'service.yaml']),
    );
    expect(error.message).toMatch(/^Invalid reference data \(\d+ problems\):\n/);
    expect(lines(error)).toEqual(
      expect.arrayContaining([
        'obligations.yaml /obligations/0/periodicity: must be one of "once", "annual", "ongoing", "per_sale", null',
        'service.yaml /updated: must match format "date"',
      ]),
    );
  });

  it('rejects a schema that leaves the OpenAPI 3.0 subset', async () => {
    const error = await problemsOf((s) => {
      const properties = s.schemas.pricing.properties as Record<string, Record<string, unknown>>;
      properties.version = { const: '1', description: 'Version.' };
      properties.updated = { type: ['string', 'null'], description: 'Date.' };
    });
    expect(lines(error)).toEqual(
      expect.arrayContaining([
        'schemas/pricing.schema.json /properties/version/const: keyword "const" is not allowed (OpenAPI 3.0 subset)',
        'schemas/pricing.schema.json /properties/updated/type: must be a single type name (use "nullable: true" for null)',
      ]),
    );
  });

  it('refuses a text for people that lacks a language, even where a schema would let it through', async () => {
    const error = await problemsOf((s) => {
      // Schemas loosened as a careless edit could: the rule of the build still holds.
      const obligation = (s.schemas.obligations.properties as Record<string, JsonSchema>).obligations!.items as JsonSchema;
      const title = (obligation.properties as Record<string, JsonSchema>).title!;
      title.required = ['en'];
      const lawEntry = (s.schemas.law.properties as Record<string, JsonSchema>).law!.items as JsonSchema;
      (lawEntry.properties as Record<string, JsonSchema>).summary = { description: 'One-line summary, of any shape.' };
      delete (s.obligations.obligations[0]!.title as Partial<Obligation['title']>).fr;
      (s.law.law[0] as unknown as Record<string, unknown>).summary = 'A summary in English only.';
      s.streams.streams[0]!.deadlines[0]!.label.en = '  ';
      s.pricing.plans[0]!.description = { fr: 'Pour vous.', en: 'For you.', de: 'Für Sie.' } as never;
      // A field no list names yet, added in one language.
      (s.streams.streams[1] as unknown as Record<string, unknown>).warning = 'Check this stream before declaring.';
      (s.obligations.obligations[1] as unknown as Record<string, unknown>).hints = ['Ask your eco-organism for the form.'];
    });
    expect(lines(error)).toEqual([
      'pricing.yaml /plans/0/description/de: is not an allowed property',
      'streams.yaml /streams/1/warning: is not an allowed property',
      'obligations.yaml /obligations/1/hints: is not an allowed property',
      'pricing.yaml /plans/0/description/de: a text for people has only "en" and "fr"',
      'streams.yaml /streams/0/deadlines/0/label/en: the English text is missing: every text for people is written in English and in French',
      'streams.yaml /streams/1/warning: a text for people is written in French and in English ({fr, en}), not as one string',
      'law.yaml /law/0/summary: must be a text in French and English ({fr, en}), not string',
      'obligations.yaml /obligations/0/title/fr: the French text is missing: every text for people is written in English and in French',
      'obligations.yaml /obligations/1/hints/0: a text for people is written in French and in English ({fr, en}), not as one string',
    ]);
  });

  it('refuses French written as English: straight apostrophes, ordinary spaces before : ; ? ! and inside « », and a sentence left in English', async () => {
    const error = await problemsOf((s) => {
      s.obligations.obligations[0]!.title.fr = "Adhérer à l'éco-organisme";
      s.obligations.obligations[1]!.description.fr = 'Deux étapes : adhérer ; déclarer ! Pourquoi ?';
      s.obligations.obligations[2]!.description.fr = 'Voir « Citeo » avant tout?';
      s.obligations.obligations[3]!.description.fr = s.obligations.obligations[3]!.description.en;
    });
    expect(lines(error)).toEqual([
      "obligations.yaml /obligations/0/title/fr: use the typographic apostrophe ’ in French, not '",
      'obligations.yaml /obligations/1/description/fr: put a no-break space before ":" (U+00A0) and a narrow no-break space before ";", "?" and "!" (U+202F), not an ordinary space',
      'obligations.yaml /obligations/2/description/fr: put a narrow no-break space (U+202F) before ";", "?" and "!"',
      'obligations.yaml /obligations/2/description/fr: put no-break spaces inside « » (U+00A0), not ordinary spaces',
      'obligations.yaml /obligations/3/description/fr: the French text is the English one: write it in French',
    ]);
    expect(frenchTypographyProblems('Voir\u00a0: «\u00a0Citeo\u00a0» et l’IDU\u202f; pourquoi\u202f? https://example.org/?p=1')).toEqual(
      [],
    );
  });

  it('refuses filing tiers that leave a yearly count without a tier or in two, a flat fee without its fee, and a count unit the stream does not use', async () => {
    const error = await problemsOf((s) => {
      const filing = s.streams.streams[0]!.eco_organisms[0]!.filing as FilingScheme;
      filing.count_unit = 'tonne';
      filing.tiers[0]!.fee = null;
      filing.tiers[1]!.uvc_per_year = { from: 12000, below: 11000 };
      filing.tiers[2]!.uvc_per_year = { from: 500000, below: 900000 };
      filing.tiers[2]!.id = 'flat-fee';
    });
    expect(lines(error)).toEqual([
      'streams.yaml /streams/0/eco_organisms/0/filing/count_unit: "tonne" is not one of the stream\'s units',
      'streams.yaml /streams/0/eco_organisms/0/filing/tiers/2/id: duplicate tier id "flat-fee" (first at /streams/0/eco_organisms/0/filing/tiers/0)',
      'streams.yaml /streams/0/eco_organisms/0/filing/tiers/0/fee: a flat-fee tier states its fee',
      'streams.yaml /streams/0/eco_organisms/0/filing/tiers/1/uvc_per_year/from: must be 10000: the tiers cover every yearly count from 0, without a gap or an overlap',
      'streams.yaml /streams/0/eco_organisms/0/filing/tiers/1/uvc_per_year/below: must be above from (12000)',
      'streams.yaml /streams/0/eco_organisms/0/filing/tiers/2/uvc_per_year/from: must be 11000: the tiers cover every yearly count from 0, without a gap or an overlap',
      'streams.yaml /streams/0/eco_organisms/0/filing/tiers/2/uvc_per_year/below: the last tier has no upper bound (null): every yearly count falls in a tier',
    ]);
  });

  it('refuses an IDU shape whose pattern is not a regular expression or whose example does not match it', async () => {
    const broken = await problemsOf((s) => {
      s.streams.idu_shape.pattern = '^FR[0-9{6}';
    });
    expect(lines(broken)).toEqual([expect.stringMatching(/^streams\.yaml \/idu_shape\/pattern: is not a regular expression: /)]);
    const mismatch = await problemsOf((s) => {
      s.streams.idu_shape.example = 'FR12_34';
    });
    expect(lines(mismatch)).toEqual(['streams.yaml /idu_shape/example: does not match the pattern ^FR[0-9]{6}_[0-9]{2}[A-Z0-9]{4}$']);
  });
});

describe('loadSources', () => {
  it('names the file and the line of a broken YAML source', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reference-src-'));
    try {
      await cp(SOURCE_DIR, dir, { recursive: true });
      const law = await readFile(join(dir, 'law.yaml'), 'utf8');
      await writeFile(join(dir, 'law.yaml'), law.replace('version: "1"\n', 'version: "1"\nversion: "2"\n'));
      await rm(join(dir, 'service.yaml'));
      const error = await loadSources(dir).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ReferenceValidationError);
      const message = (error as Error).message;
      expect(message).toMatch(/law\.yaml \/: YAML error at line \d+, column \d+: Map keys must be unique/);
      expect(message).toMatch(/service\.yaml \/: cannot read /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('source links', () => {
  it('refuses a link labelled with an article its address does not lead to (the whole Code labelled « article L541-9-5 »)', async () => {
    const error = await problemsOf((s) => {
      // A planted mislabelled source: a law entry naming one article, whose address is the whole Code.
      const planted = structuredClone(s.law.law.find((entry) => entry.id === 'L541-9-5')!);
      planted.id = 'planted';
      planted.streams = [];
      planted.url = 'https://www.legifrance.gouv.fr/codes/texte_lc/LEGITEXT000006074220';
      s.law.law = s.law.law.filter((entry) => entry.id !== 'code-environnement');
      s.law.law.push(planted);
    });
    expect(lines(error).filter((line) => line.includes('names article L541-9-5'))).not.toEqual([]);
    expect(lines(error).every((line) => /names article L541-9-5|names article L541-1|names article R5/.test(line))).toBe(true);
  });

  it('refuses « art. 45 » on a link to the whole regulation, and accepts real article addresses', async () => {
    const error = await problemsOf((s) => {
      const ppwr = s.law.law.find((entry) => entry.id === 'ppwr-2025-40')!;
      ppwr.title = { fr: 'PPWR, art. 45 (mandataire)', en: 'PPWR, art. 45 (authorised representative)' };
    });
    // Every link to the regulation is now labelled « art. 45 »: the law entry's own address among them.
    expect(lines(error)).toContainEqual(
      expect.stringMatching(
        /^law\.yaml \/law\/\d+\/url: the link is labelled "PPWR, art\. 45 \(authorised representative\)", which names article 45, but its address does not lead to that article/,
      ),
    );
    expect(lines(error).every((line) => line.includes('names article 45'))).toBe(true);
    const sources = await realSources();
    const ppwr = sources.law.law.find((entry) => entry.id === 'ppwr-2025-40')!;
    ppwr.title = { fr: 'PPWR, art. 45 (mandataire)', en: 'PPWR, art. 45 (authorised representative)' };
    ppwr.url = 'https://eur-lex.europa.eu/legal-content/FR/TXT/?uri=CELEX:32025R0040#art_45';
    expect(() => validateReference(sources)).not.toThrow();
  });
});

describe('articlesNamed and leadsToArticle', () => {
  it('read the article a label names and accept its Légifrance and EUR-Lex addresses only', () => {
    expect(articlesNamed('Code de l’environnement, article L541-9-5 (sanctions administratives)')).toEqual(['L541-9-5']);
    expect(articlesNamed('Ancien article R. 541-174, annulé ; art. 45 du PPWR')).toEqual(['R541-174', '45']);
    expect(articlesNamed('Code de l’environnement (Légifrance)')).toEqual([]);
    expect(leadsToArticle('https://www.legifrance.gouv.fr/codes/article_lc/LEGIARTI000041583338', 'L541-9-5')).toBe(true);
    expect(leadsToArticle('https://www.legifrance.gouv.fr/codes/texte_lc/LEGITEXT000006074220', 'L541-9-5')).toBe(false);
    expect(leadsToArticle('https://www.legifrance.gouv.fr/codes/section_lc/LEGITEXT000006074220/LEGISCTA000006176996/', 'R543-43')).toBe(
      false,
    );
    expect(leadsToArticle('https://example.org/code/article-l541-9-5', 'L541-9-5')).toBe(true);
    expect(leadsToArticle('https://example.org/code/article-l541-9-50', 'L541-9-5')).toBe(false);
    expect(leadsToArticle('https://eur-lex.europa.eu/eli/reg/2025/40/oj', '45')).toBe(false);
    expect(leadsToArticle('https://eur-lex.europa.eu/legal-content/FR/TXT/?uri=CELEX:32025R0040#art_45', '45')).toBe(true);
  });
});
