/**
 * Types of the public reference data: the four published documents, the
 * service self-description used for the index document, and the list of the
 * files the build emits. Pure TypeScript: no framework imports, no I/O.
 *
 * The JSON Schemas in `reference-data/schemas/` are the authority on the
 * shape; these types mirror them for the code that reads the documents.
 */

import { localizedTextSchema, type Localized } from '../i18n/languages.js';

/** How well a fact is established (tags of the domain brief: ✅ / 🟡 / ❓). */
export type Verification = 'official_text' | 'secondary_source' | 'unverified';

/** ISO 8601 calendar date, `YYYY-MM-DD`. */
export type IsoDate = string;

/** The envelope every published reference document carries. */
export interface Envelope {
  version: '1';
  /** Date the content of the file was last edited. */
  updated: IsoDate;
  licence: 'CC BY 4.0';
  licence_url: 'https://creativecommons.org/licenses/by/4.0/';
  /** Main sources of the file (may be empty for pricing). */
  sources: string[];
  /** Not legal advice; check against the official texts. */
  disclaimer: LocalizedText;
}

/**
 * A text for people, in French and in English. Every human text of the reference data has this
 * shape; the build refuses one that lacks a language (see `HUMAN_TEXTS` in validate-reference.ts).
 */
export type LocalizedText = Localized;

/** A name in French and English (the same shape as every other text). */
export type LocalizedName = LocalizedText;

// ---------------------------------------------------------------- pricing

export interface PlanPrice {
  /** Decimal string with two decimals, e.g. "290.00". */
  amount: string;
  currency: 'EUR';
  vat: 'excluded';
  billing_period: 'year';
}

export interface PlanIncluded {
  /** null = unlimited. */
  declarations_per_year: number | null;
  api_access: boolean;
  support: LocalizedText;
}

export interface Plan {
  id: string;
  /** A product name, the same in both languages. */
  name: string;
  description: LocalizedText;
  price: PlanPrice;
  /** Stream codes the plan covers. */
  streams: string[];
  included: PlanIncluded;
}

/** Who files what with the eco-organism: the one statement the site, the dashboard, the e-mails and llms.txt show. */
export interface WhoFiles {
  /** What the producer gives this service. */
  you_give: LocalizedText;
  /** What the service's operator does with it, with the eco-organism. */
  operator_does: LocalizedText;
  /** What the producer still does herself with her eco-organism. */
  you_still_do: LocalizedText;
  /** By when. */
  by_when: LocalizedText;
}

export interface PricingDocument extends Envelope {
  who_files: WhoFiles;
  plans: Plan[];
}

// ---------------------------------------------------------------- streams

export type StreamStatus = 'active' | 'upcoming' | 'ended';
/** A unit code published in the streams document's `units`. */
export type StreamUnit = string;
/**
 * `approval_not_verified`: applied for approval, and whether it was granted could not be verified
 * as of the `checked` date (published instead of a candidacy that is surely stale).
 */
export type EcoOrganismRole = 'approved' | 'coordinating_body' | 'candidate' | 'approval_not_verified';

export interface ApprovalPeriod {
  from: IsoDate;
  to: IsoDate;
}

/** A text that states a fact of its own, with its sources. */
export interface SourcedText {
  text: LocalizedText;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
}

/** What a producer files in a tier: no figures and a flat fee, a simplified or a detailed declaration, or a declaration whose form is not published here. */
export type FilingKind = 'flat_fee' | 'simplified_declaration' | 'detailed_declaration' | 'declaration';

/** An amount an eco-organism charges, excluding VAT, per calendar year. */
export interface FilingFee {
  /** Decimal string with two decimals, e.g. "80.00". */
  amount: string;
  currency: 'EUR';
  vat: 'excluded';
  per: 'year';
}

/**
 * One filing tier of an eco-organism: the yearly count of sales units (in the scheme's
 * `count_unit`) from `uvc_per_year.from` (included) to `uvc_per_year.below` (excluded; null = no
 * upper bound) puts a producer in this tier. The tiers of a scheme cover every count from 0 without
 * a gap or an overlap (the build checks it), so a count falls in exactly one tier.
 */
export interface FilingTier {
  /** Stable id within the scheme, e.g. `flat-fee`. */
  id: string;
  uvc_per_year: { from: number; below: number | null };
  filing: FilingKind;
  label: LocalizedText;
  /** What is filed, in the eco-organism's terms. */
  description: LocalizedText;
  /** The fee owed in this tier, if the eco-organism sets one; a flat-fee tier always has one. */
  fee: FilingFee | null;
  /** A producer under `uvc_per_year.from` may choose this filing instead of its own tier's. */
  open_to_smaller: boolean;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  notes?: LocalizedText;
}

/** A way of filing offered to some trades instead of counting packaging (not a tier by count). */
export interface TradeOption {
  /** Stable id within the scheme, e.g. `per-checkout-transaction`. */
  id: string;
  kind: 'per_transaction_rate' | 'collective_contract';
  /** Who may use it. */
  trades: LocalizedText;
  description: LocalizedText;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  notes?: LocalizedText;
}

/** How a producer files with one eco-organism: every household filing found is annual. */
export interface FilingScheme {
  /** The unit the yearly count of the tiers is in (a unit code of the stream), e.g. `uvc`. */
  count_unit: StreamUnit;
  /** The tiers by yearly count, lowest first; empty when none is published. */
  tiers: FilingTier[];
  trade_options: TradeOption[];
  /** When the yearly declaration is made. */
  calendar: SourcedText | null;
  /** How and when the contribution is invoiced. */
  invoicing: SourcedText | null;
  /** What is not published, and why. */
  notes?: LocalizedText;
}

export interface SourcedApprovalPeriod extends ApprovalPeriod {
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  notes?: LocalizedText;
}

export interface EcoOrganism {
  name: string;
  role: EcoOrganismRole;
  /** Period the approval is known for; null when no approval is known. */
  approval: ApprovalPeriod | null;
  /** The successive approvals that make up `approval`, oldest first, each with its source; absent when it is one period. */
  approval_periods?: SourcedApprovalPeriod[];
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  /** How producers file with it; null when not published. */
  filing: FilingScheme | null;
  notes?: LocalizedText;
}

export interface Material {
  /** Lower snake case, e.g. `paper_cardboard`. */
  code: string;
  name: LocalizedName;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  notes?: LocalizedText;
}

/** A packaging category (EPRO: sales, grouped, transport, service, primary production) or a reuse status (single-use, reusable new, reused). */
export interface PackagingClass {
  /** Lower snake case, e.g. `primary_production`. */
  code: string;
  name: LocalizedName;
  description: LocalizedText;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
}

/** The shape unique identifiers (IDU) are seen to have: a value that does not match deserves a warning, never a refusal. */
export interface IduShape {
  /** Regular expression (ECMAScript) the upper-cased, trimmed IDU is compared with. */
  pattern: string;
  example: string;
  use: 'warning';
  description: LocalizedText;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  notes?: LocalizedText;
}

/** A material code of an earlier catalogue version, kept so that old declarations still read right. */
export interface RetiredMaterial {
  code: string;
  name: LocalizedName;
  retired_in_catalogue_version: number;
  replaced_by: string[];
}

export interface UnitDefinition {
  code: StreamUnit;
  kind: 'mass' | 'count';
  name: LocalizedName;
  /** How it is written after a number ("kg", "UVC"). */
  symbol: string;
  /** The unit as `Intl.NumberFormat` names it (`kilogram`); null: the number, a no-break space and the symbol. */
  intl_unit: string | null;
  /** What a declaration derived from products puts in this unit: `mass_kg`, `units_sold`, or nothing. */
  from_products: 'mass_kg' | 'units_sold' | null;
  meaning: LocalizedName;
  /** How a message says to write it: its code and what it is for (« kg » pour une masse en kilogrammes). */
  help: LocalizedName;
  /** Most decimals a quantity may have (0 = whole numbers). */
  decimals: number;
  sources?: string[];
}

/** A line in `unit` for a material needs a line in `requires` for the same material. */
export interface UnitRequirement {
  unit: StreamUnit;
  requires: StreamUnit;
  basis: LocalizedText;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
}

export interface Deadline {
  id: string;
  label: LocalizedName;
  by: 'producer' | 'eco_organism';
  /** `day` past the month's end means its last day. */
  due: { years_after_period: number; month: number; day: number };
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  notes?: LocalizedText;
}

export interface Stream {
  /** Upper case, e.g. `EMB`. */
  code: string;
  name: LocalizedName;
  /** Item of Code de l'environnement art. L541-10-1, e.g. "L541-10-1 1°". */
  legal_item: string;
  ademe_code: string | null;
  status: StreamStatus;
  start_date: IsoDate | null;
  /** First date the service accepts declarations for this stream. */
  declarable_from: IsoDate;
  declarable_from_basis: LocalizedText;
  /** Last date the service accepts declarations for; null while the stream is open. */
  declarable_until: IsoDate | null;
  declarable_until_basis: LocalizedText | null;
  /** The stream that takes over after `declarable_until`. */
  replaced_by: string | null;
  /** Confidence in the stream's own facts (ADEME code, status, dates). */
  verification: Verification;
  checked: IsoDate;
  eco_organisms: EcoOrganism[];
  units: StreamUnit[];
  unit_requirements: UnitRequirement[];
  deadlines: Deadline[];
  materials: Material[];
  retired_materials: RetiredMaterial[];
  /** The stream's packaging categories (empty when it has none). */
  packaging_categories: PackagingClass[];
  /** The reuse statuses a packaging of the stream may have (empty when none is published). */
  reuse_statuses: PackagingClass[];
  /** Ids of entries in the law document. */
  law: string[];
  sources: string[];
  notes?: LocalizedText;
}

export interface StreamsDocument extends Envelope {
  checked: IsoDate;
  /** Goes up whenever a stream, unit or material changes; declarations store it. */
  catalogue_version: number;
  units: UnitDefinition[];
  /** The shape of the unique identifier (IDU), for a soft warning. */
  idu_shape: IduShape;
  streams: Stream[];
}

// ---------------------------------------------------------------- law

export type LawStatus = 'in_force' | 'annulled';

export interface LawEntry {
  id: string;
  title: LocalizedText;
  reference: LocalizedText;
  date: IsoDate | null;
  status: LawStatus;
  summary: LocalizedText;
  url: string;
  /** Stream codes concerned (may be empty for general texts). */
  streams: string[];
  verification: Verification;
  checked: IsoDate;
  sources: string[];
  notes?: LocalizedText;
}

export interface LawDocument extends Envelope {
  checked: IsoDate;
  law: LawEntry[];
}

// ---------------------------------------------------------------- obligations

export type Periodicity = 'once' | 'annual' | 'ongoing' | 'per_sale';

export interface Obligation {
  id: string;
  title: LocalizedText;
  description: LocalizedText;
  applies_to: LocalizedText;
  streams: string[];
  /** Ids of entries in the law document. */
  legal_basis: string[];
  periodicity: Periodicity | null;
  deadline: LocalizedText | null;
  consequence: LocalizedText | null;
  verification: Verification;
  checked: IsoDate;
  sources: string[];
}

/** One question of a seller abroad, its plain answer and what it rests on. */
export interface AbroadQuestion {
  id: string;
  question: LocalizedText;
  answer: LocalizedText;
  details: LocalizedText;
  /** Ids of entries in the law document. */
  legal_basis: string[];
  verification: Verification;
  checked: IsoDate;
  sources: string[];
}

/** The path of a producer who sells to consumers in France from abroad. */
export interface SellingFromAbroad {
  title: LocalizedText;
  lead: LocalizedText;
  checked: IsoDate;
  questions: AbroadQuestion[];
}

export interface ObligationsDocument extends Envelope {
  checked: IsoDate;
  obligations: Obligation[];
  selling_from_abroad?: SellingFromAbroad;
}

// ---------------------------------------------------------------- service

/** `reference-data/service.yaml`: the service's self-description (not published as such). */
export interface ServiceDescription {
  name: string;
  description: LocalizedText;
  updated: IsoDate;
}

// ---------------------------------------------------------------- sources

/** The four published reference documents, by name. */
export const REFERENCE_DOCUMENTS = ['pricing', 'streams', 'law', 'obligations'] as const;
export type ReferenceDocumentName = (typeof REFERENCE_DOCUMENTS)[number];

export interface ReferenceDocuments {
  pricing: PricingDocument;
  streams: StreamsDocument;
  law: LawDocument;
  obligations: ObligationsDocument;
}

/** A JSON Schema (OpenAPI 3.0 compatible subset) as parsed from its file. */
export type JsonSchema = Record<string, unknown>;

/**
 * Everything read from `reference-data/`: the four documents, the service
 * description and the four JSON Schemas. Typed, but only trustworthy after
 * `validateReference` has accepted it.
 */
export interface ReferenceSources extends ReferenceDocuments {
  service: ServiceDescription;
  schemas: Record<ReferenceDocumentName, JsonSchema>;
  /** `catalogue-versions.yaml`: the fingerprint of each catalogue version (catalogue-fingerprint.ts); absent in hand-built sources. */
  catalogue_versions?: unknown;
}

/** Source file names in `reference-data/`. */
export const SOURCE_FILES = {
  pricing: 'pricing.yaml',
  streams: 'streams.yaml',
  law: 'law.yaml',
  obligations: 'obligations.yaml',
  service: 'service.yaml',
} as const;
export type SourceName = keyof typeof SOURCE_FILES;

/** Schema file names in `reference-data/schemas/`. */
export const SCHEMA_FILES: Record<ReferenceDocumentName, string> = {
  pricing: 'pricing.schema.json',
  streams: 'streams.schema.json',
  law: 'law.schema.json',
  obligations: 'obligations.schema.json',
};

// ---------------------------------------------------------------- published files

export const INDEX_FILE = 'index.json';
/** The Markdown summary the index document points to (rendered and served by the site: src/site/llms-txt.ts). */
export const LLMS_FILE = 'llms.txt';
/** A blank declaration file: the header and one example row per published unit. */
export const TEMPLATE_FILE = 'declaration-template.csv';

/** Every file the build publishes (each also as `.gz` and `.br`). */
export const PUBLISHED_FILES = ['pricing.json', 'streams.json', 'law.json', 'obligations.json', INDEX_FILE, TEMPLATE_FILE] as const;
export type PublishedFileName = (typeof PUBLISHED_FILES)[number];

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

export function contentTypeOf(name: PublishedFileName): string {
  return name.endsWith('.txt') ? MARKDOWN_CONTENT_TYPE : name.endsWith('.csv') ? CSV_CONTENT_TYPE : JSON_CONTENT_TYPE;
}

export interface RenderedFile {
  name: PublishedFileName;
  body: Buffer;
  contentType: string;
}

/** What the index document and llms.txt are built from besides the sources: base addresses (no trailing slash) and the contact. */
export interface ReferenceUrls {
  /** Where the published files live, e.g. `https://example.org/api/v1`. */
  referenceBaseUrl: string;
  /** Base of the client API, e.g. `https://example.org/api/v1`. */
  clientBaseUrl: string;
  /** The site address (hosts `/llms.txt` and `/docs`). */
  siteUrl: string;
  /** The operator's contact address (configuration `CONTACT_EMAIL`); absent or null → none published. */
  contact?: string | null;
}

// ---------------------------------------------------------------- index document

/** Every route of the client API (paths under its base), with what it does: the index document and llms.txt list them. */
export const CLIENT_API_ENDPOINTS = {
  'GET /me': "the calling client's account",
  'GET /me/obligations':
    'per stream of the confirmed account and per half-year from when it is liable: open, to declare, overdue or declared, with its due date and the deadlines ahead (an unconfirmed account gets `account_status: "pending"`)',
  'GET /me/years/{year}':
    "a calendar year as eco-organisms take it: S1 + S2 of the current revisions per stream, material and unit, the filing tier the year's count of sales units puts the caller in with each eco-organism, and the year's deadlines once",
  'GET /declarations': "the caller's declarations, newest first, cursor-paginated, filterable by period and status",
  'GET /declarations/{id}': "one of the caller's declarations: its revision, lines, totals and receipt",
  'GET /declarations/{id}.csv': "one of the caller's declarations as a CSV file of its lines (stream, material, unit, quantity)",
  'POST /declarations':
    'submit a declaration for a period (`YYYY-S1` or `YYYY-S2`, a half-year convention of this service) with lines of stream, material, unit and quantity (household packaging: each material in kg also carries its count of sales units in uvc; the units sold, once per stream, in `units_sold`)',
  // Products
  'POST /products':
    'add products to the catalogue (JSON or CSV): reference, name, stream, optional GTIN, the half-year the packaging applies from, and its packaging elements (material category, grams of one element, elements per unit)',
  'GET /products': "the caller's products with every version of their packaging, by reference, cursor-paginated",
  'GET /products/{reference}': 'one product of the caller with every version of its packaging',
  'POST /sales': 'units sold per product in a half-year (`?period=`, JSON or CSV)',
  'GET /periods/{period}/derived-declaration':
    'the declaration computed from the catalogue and sales of a half-year (kg and uvc per stream and material, with each product’s contribution up to 1,000 products), nothing stored',
  'GET /periods/{period}/derived-declaration/contributions':
    'what each product gives the derived declaration of a half-year, per material, by reference, cursor-paginated (any catalogue size)',
  'POST /periods/{period}/derived-declaration':
    'file the derived declaration as a revision, recorded as derived (Idempotency-Key as for POST /declarations)',
  'DELETE /test-data':
    "with a test token (`eprt_…`): wipe the caller's sandbox (its test declarations and Idempotency-Keys); a live token gets 403",
} as const;

/** The fields of the index document, in their published order. */
export const INDEX_DOCUMENT_FIELDS = [
  'name',
  'version',
  'updated',
  'description',
  'endpoints',
  'client_api',
  'markdown',
  'licence',
  'contact',
] as const;

export interface IndexDocument {
  name: string;
  version: 'v1';
  updated: IsoDate;
  description: LocalizedText;
  endpoints: Record<ReferenceDocumentName | 'declaration_template', string>;
  client_api: {
    base: string;
    auth: string;
    endpoints: string[];
  };
  markdown: string;
  licence: 'CC BY 4.0';
  /** The operator's contact address from the configuration; null where none is configured (never outside development). */
  contact: string | null;
}

/** JSON Schema of the index document (OpenAPI 3.0 subset), for API documentation. */
export const INDEX_DOCUMENT_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Index of the public reference data and of the client API.',
  additionalProperties: false,
  required: [...INDEX_DOCUMENT_FIELDS],
  properties: {
    name: { type: 'string', description: 'Name of the service.' },
    version: { type: 'string', enum: ['v1'], description: 'Version of the public API.' },
    updated: { type: 'string', format: 'date', description: 'Latest `updated` date of the reference sources.' },
    description: localizedTextSchema('What the service is, in French and English.'),
    endpoints: {
      type: 'object',
      description: 'Full addresses of the reference files.',
      additionalProperties: false,
      required: [...REFERENCE_DOCUMENTS, 'declaration_template'],
      properties: {
        ...Object.fromEntries(
          REFERENCE_DOCUMENTS.map((name) => [name, { type: 'string', format: 'uri', description: `Address of ${name}.json.` }]),
        ),
        declaration_template: {
          type: 'string',
          format: 'uri',
          description: `Address of ${TEMPLATE_FILE}: a blank declaration file to fill in a spreadsheet.`,
        },
      },
    },
    client_api: {
      type: 'object',
      description: 'The authenticated client API.',
      additionalProperties: false,
      required: ['base', 'auth', 'endpoints'],
      properties: {
        base: { type: 'string', format: 'uri', description: 'Base address of the client API.' },
        auth: { type: 'string', description: 'How clients authenticate.' },
        endpoints: {
          type: 'array',
          description: 'Client routes, relative to the base address.',
          items: { type: 'string' },
        },
      },
    },
    markdown: { type: 'string', format: 'uri', description: 'Address of the llms.txt Markdown summary.' },
    licence: { type: 'string', enum: ['CC BY 4.0'], description: 'Licence of the reference content.' },
    contact: {
      type: 'string',
      format: 'email',
      nullable: true,
      description: 'Contact address of the operator (configuration `CONTACT_EMAIL`); null where the installation has none configured.',
    },
  },
};
