import type { DeclarationStatus } from '../declarations/declaration.js';
import type { DerivedDeclarationLine } from './derived-lines.js';

/** One packaging element of one sales unit, as stored: the material by its category code, grams exact as decimal text. */
export interface PackagingElement {
  material: string;
  weightG: string;
  perUnit: number;
  packagingCategory: string | null;
  reuseStatus: string | null;
}

/** A product as it is from one half-year on. `filed`: a filed derived declaration used it, so it can no longer be replaced. */
export interface ProductVersion {
  validFrom: string;
  name: string;
  stream: string;
  gtin: string | null;
  recordedAt: string;
  filed: boolean;
  elements: PackagingElement[];
}

/** A product of a client's catalogue with every version, the latest `validFrom` first. */
export interface Product {
  reference: string;
  versions: ProductVersion[];
}

/** What each (reference, validFrom) of an import became. */
export interface ProductsResult {
  created: number;
  replaced: number;
  unchanged: number;
  versions: { reference: string; validFrom: string; outcome: 'created' | 'replaced' | 'unchanged' }[];
}

/** Sales recorded for a half-year: by this request, then the period's products and units (exact whole number as text) after it. */
export interface SalesResult {
  period: string;
  recorded: number;
  products: number;
  units: string;
}

/** What one product version gave a derived line: units sold, elements of the material, kg exact (decimal text). */
export interface Contribution {
  reference: string;
  name: string;
  validFrom: string;
  units: string;
  elements: string;
  kg: string;
}

/** A line of a derived declaration per stream and material category: kg exact and rounded to the gram, and the sales units (null: the stream counts none). */
export interface DerivedLine {
  stream: string;
  material: string;
  kgExact: string;
  kgRounded: string;
  uvc: string | null;
  contributions: Contribution[];
}

/** The latest revision filed from the catalogue for a period. */
export interface DerivedFiling {
  declarationId: string;
  revision: number;
  receipt: string;
  status: DeclarationStatus;
  derivedAt: string;
}

/**
 * The declaration the catalogue and sales give for a half-year: its lines with what each product gave
 * them (when `contributionsIncluded`), and the declaration lines and units sold a filing would hold.
 */
export interface DerivedDeclaration {
  period: string;
  products: number;
  contributionsIncluded: boolean;
  lines: DerivedLine[];
  declarationLines: DerivedDeclarationLine[];
  unitsSold: { stream: string; quantity: number }[];
  lastFiled: DerivedFiling | null;
}

/** What one product gives the derived declaration of a half-year, per material category. */
export interface ProductContribution {
  reference: string;
  name: string;
  validFrom: string;
  stream: string;
  units: string;
  materials: { material: string; elements: string; kg: string }[];
}

/** A page of the per-product detail of a derived declaration, by reference. */
export interface ProductContributionPage {
  period: string;
  items: ProductContribution[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** A product version as a derived declaration filed it, with its units sold in the period. */
export interface FiledProduct {
  reference: string;
  name: string;
  gtin: string | null;
  validFrom: string;
  stream: string;
  units: string;
  elements: PackagingElement[];
}

/** A derived declaration as filed: the revision, and its products read a chunk at a time (memory stays flat whatever the catalogue). */
export interface Derivation {
  declarationId: string;
  clientId: string;
  period: string;
  revision: number;
  receipt: string;
  derivedAt: string;
  products: AsyncIterable<FiledProduct[]>;
}
