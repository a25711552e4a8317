import type { SubmissionOrigin } from '../declarations/submission-origin.js';
import type { TokenMode } from '../common/token-format.js';
import type { DataScope } from '../declarations/declarations.repository.js';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Account } from '../accounts/account.js';
import { AuditTrail } from '../audit/audit-trail.js';
import type { Actor } from '../caller/actor.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { describeErrors, type FieldError, NotFoundProblem, Problem, ValidationProblem } from '../common/problem/problem.js';
import { isUuid } from '../common/uuid.js';
import { Clock, parisDate } from '../calendar/clock.js';
import { DeclarationsService, type SubmitOptions, type SubmitResult } from '../declarations/declarations.service.js';
import { parsePeriod } from '../calendar/half-year.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { type CsvFile, pointAtRows, readProductCsv, readSaleCsv, type Sheet } from './csv/product-csv.js';
import { deriveLines } from './product-derivation.js';
import { ProductFileColumnsRepository } from './product-file-columns.repository.js';
import type { ProductSheet } from './spreadsheet/product-sheet.js';
import { exactDecimal, MAX_REPORTED_ERRORS } from '../declarations/declaration-validator.js';
import type { Page } from '../common/paging/keyset-cursor.js';
import type {
  Derivation,
  DerivedDeclaration,
  DerivedFiling,
  FiledProduct,
  Product,
  ProductContributionPage,
  ProductsResult,
  SalesResult,
} from './product.js';
import {
  contentHashOf,
  MAX_CATALOGUE_PRODUCTS,
  MAX_PRODUCTS,
  MAX_SALES,
  MAX_VERSIONS_PER_PRODUCT,
  MAX_UNITS,
  ProductRules,
  type ValidProduct,
  type ValidSale,
} from './product-rules.js';
import {
  CHUNK_PRODUCTS,
  type ContributionRow,
  type DerivationHeadRow,
  type DerivedLineRow,
  ProductsRepository,
  type VersionRow,
} from './products.repository.js';
import { countsUnitsSold, derivedDeclarationLines } from './derived-lines.js';

/** Who wrote: a client token (API) or a dashboard session; recorded in the audit trail. */
export interface ClientWriter {
  clientId: string;
  /** The caller's data: `test` with a sandbox token. */
  mode: TokenMode;
  tokenId: string | null;
  sessionId: string | null;
  requestId: string | null;
}

const MAX_PRODUCT_ROWS = MAX_PRODUCTS * 5;

/**
 * Products whose contributions the preview lists in its lines (at most 20 materials each: 20,000
 * contributions, a few megabytes); beyond, the lines alone, and the contributions page by page.
 */
export const PREVIEW_CONTRIBUTIONS = 1000;

/** Versions one page of the products list holds at most (with MAX_ELEMENTS, 4,000 packaging elements: under a megabyte). */
export const PAGE_VERSIONS = 200;

/** A per-product file checked: its products with their units sold, and the declaration they give (as POST /api/v1/declarations takes it). */
export interface ProductFileDeclaration {
  period: string;
  products: (ValidProduct & { units: string })[];
  declaration: {
    period: string;
    lines: { stream: string; material: string; unit: string; quantity: number }[];
    units_sold: { stream: string; quantity: number }[];
  };
}

const nothingToDerive = (period: string) =>
  validationProblem([
    {
      pointer: '/path/period',
      code: 'nothing_to_derive',
      detail: `no sales with packaging in ${period}: record sales with POST /api/v1/sales?period=${period} first`,
      params: { period },
    },
  ]);

const changedMeanwhile = () =>
  new Problem(
    'conflict',
    'Your catalogue or sales for this period changed while the declaration was being filed; nothing was filed. Look at the preview again and file it.',
  );

/** Whether derived lines are those a check page showed (quantities compared as numbers). */
const sameLines = (
  expected: [string, string, string, string][],
  lines: { stream: string; material: string; unit: string; quantity: number }[],
) =>
  expected.length === lines.length &&
  expected.every(([stream, material, unit, quantity], i) => {
    const line = lines[i]!;
    return line.stream === stream && line.material === material && line.unit === unit && Number(quantity) === line.quantity;
  });

/** A per-product file's product kept as the catalogue: its reference (its name too), stream, units sold and elements. */
export interface KeptProduct {
  reference: string;
  stream: string;
  units: string;
  elements: readonly { materialCode: string; weightG: string; perUnit: number }[];
}

/** The catalogue rules' problems (pointing into `{ products }`) pointed at the file's rows and columns. */
function pointAtFile(sheet: ProductSheet, errors: FieldError[]): FieldError[] {
  const FIELDS: Record<string, string> = {
    reference: 'product',
    name: 'product',
    stream: 'stream',
    material: 'material',
    weight_g: 'weight_g',
    per_unit: 'per_unit',
  };
  return errors.map((error): FieldError => {
    const match = /^\/products\/(\d+)(?:\/elements(?:\/(\d+))?)?(?:\/([a-z_]+))?$/.exec(error.pointer);
    const { line: _line, element: _element, field: _field, ...params } = (error.params ?? {}) as Record<string, never>;
    if (!match) return { ...error, pointer: '/rows', params };
    const rows = sheet.rows[Number(match[1])]!;
    const row = match[2] !== undefined ? (rows.elements[Number(match[2])] ?? rows.first) : rows.first;
    const field = match[3] === undefined ? undefined : FIELDS[match[3]];
    if (match[3] === 'valid_from') return { ...error, pointer: '/period', params: { ...params, field: 'period' } };
    const column = field === undefined ? undefined : (sheet.headers as Record<string, string | undefined>)[field];
    return {
      pointer: `/rows/${row}${field ? `/${field}` : ''}`,
      code: error.code,
      detail: `row ${row}${column ? `, column ${column}` : ''}: ${error.detail}`,
      row,
      params: { ...params, ...(field ? { field } : {}), ...(column !== undefined ? { column } : {}) },
    };
  });
}

const validationProblem = (errors: FieldError[]) => new ValidationProblem(errors, describeErrors(errors), errors.length);

/**
 * A client's product catalogue (versions by half-year), its sales per half-year, and the declaration
 * derived from them: computed by PostgreSQL (GROUP BY), filed as an ordinary revision through the
 * declarations service, with what each product gave recorded in the same transaction.
 */
@Injectable()
export class ProductsService {
  constructor(
    private readonly repository: ProductsRepository,
    private readonly rules: ProductRules,
    private readonly declarations: DeclarationsService,
    private readonly catalogue: ReferenceCatalogue,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    private readonly fileColumns: ProductFileColumnsRepository,
  ) {}

  /** The columns of her own per-product file a client named last (field code → header key), if she did. */
  rememberedColumns(clientId: string): Promise<Record<string, string> | undefined> {
    return this.fileColumns.find(clientId);
  }

  rememberColumns(clientId: string, columns: Record<string, string>): Promise<void> {
    return this.fileColumns.save(clientId, columns);
  }

  /**
   * Adds versions to the catalogue, all or nothing. A (reference, valid_from) already stored is
   * replaced when its content differs, unless a filed derived declaration used it: then the whole
   * request is refused (`product_version_filed`), since what was filed is never changed silently.
   */
  async importProducts(writer: ClientWriter, body: unknown): Promise<ProductsResult> {
    const checked = this.rules.products(body);
    if (!checked.ok) throw validationProblem(checked.errors);
    const products = checked.value;
    return this.repository.withCatalogueLock(scopeOf(writer), (manager) => this.importIn(manager, writer, products));
  }

  /** importProducts' work in a transaction that holds the catalogue lock. */
  private async importIn(manager: EntityManager, writer: ClientWriter, products: ValidProduct[]): Promise<ProductsResult> {
    const existing = new Map(
      (await this.repository.existingVersions(manager, scopeOf(writer), products)).map((v) => [`${v.reference}\u0000${v.validFrom}`, v]),
    );
    const errors: FieldError[] = [];
    const outcomes = products.map((product, index) => {
      const stored = existing.get(`${product.reference}\u0000${product.validFrom}`);
      if (!stored) return 'created' as const;
      if (stored.contentHash === contentHashOf(product)) return 'unchanged' as const;
      if (stored.filed) {
        errors.push({
          pointer: `/products/${index}/valid_from`,
          code: 'product_version_filed',
          detail: `the version of ${product.reference} valid from ${product.validFrom} was used by a filed declaration and cannot change; post the new packaging with the half-year it applies from`,
          params: { line: index + 1, field: 'valid_from', value: product.reference, period: product.validFrom },
        });
      }
      return 'replaced' as const;
    });
    errors.push(...(await this.beyondBounds(manager, writer, products, outcomes)));
    if (errors.length > 0) throw validationProblem(errors);
    const replaced = products.filter((_, i) => outcomes[i] === 'replaced');
    await this.repository.deleteVersions(
      manager,
      replaced.map((p) => existing.get(`${p.reference}\u0000${p.validFrom}`)!.versionId),
    );
    await this.repository.insertVersions(
      manager,
      scopeOf(writer),
      products.filter((_, i) => outcomes[i] !== 'unchanged'),
    );
    const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
    const result: ProductsResult = {
      created: count('created'),
      replaced: count('replaced'),
      unchanged: count('unchanged'),
      versions: products.map((p, i) => ({ reference: p.reference, validFrom: p.validFrom, outcome: outcomes[i]! })),
    };
    await this.record(manager, writer, 'products.imported', {
      created: result.created,
      replaced: result.replaced,
      unchanged: result.unchanged,
    });
    return result;
  }

  /** The catalogue's bounds (MAX_CATALOGUE_PRODUCTS, MAX_VERSIONS_PER_PRODUCT) that the new versions would pass, counted under the catalogue lock. */
  private async beyondBounds(
    manager: EntityManager,
    writer: ClientWriter,
    products: ValidProduct[],
    outcomes: ('created' | 'replaced' | 'unchanged')[],
  ): Promise<FieldError[]> {
    const created = products.filter((_, i) => outcomes[i] === 'created');
    if (created.length === 0) return [];
    const stored = await this.repository.catalogueSize(
      manager,
      scopeOf(writer),
      created.map((p) => p.reference),
    );
    const errors: FieldError[] = [];
    const newProducts = new Set(created.map((p) => p.reference).filter((reference) => !stored.versions.has(reference))).size;
    if (stored.products + newProducts > MAX_CATALOGUE_PRODUCTS) {
      errors.push({
        pointer: '/products',
        code: 'catalogue_full',
        detail: `a catalogue holds at most ${MAX_CATALOGUE_PRODUCTS} products (${writer.mode} data); yours holds ${stored.products} and this request adds ${newProducts}: declare per material with POST /api/v1/declarations beyond that`,
        params: { max: MAX_CATALOGUE_PRODUCTS, count: stored.products, added: newProducts },
      });
    }
    const versions = new Map(stored.versions);
    products.forEach((product, index) => {
      if (outcomes[index] !== 'created') return;
      const count = (versions.get(product.reference) ?? 0) + 1;
      versions.set(product.reference, count);
      if (count === MAX_VERSIONS_PER_PRODUCT + 1) {
        errors.push({
          pointer: `/products/${index}/valid_from`,
          code: 'too_many_versions',
          detail: `a product has at most ${MAX_VERSIONS_PER_PRODUCT} versions; ${product.reference} would have more: replace an existing version (same valid_from) instead`,
          params: { line: index + 1, field: 'valid_from', max: MAX_VERSIONS_PER_PRODUCT, value: product.reference },
        });
      }
    });
    return errors;
  }

  async importProductsCsv(writer: ClientWriter, file: CsvFile): Promise<ProductsResult> {
    const sheet = readProductCsv(file, MAX_PRODUCT_ROWS);
    return this.fromSheet(sheet, (body) =>
      sheet.errors.length > 0 ? this.refuseWithRules(() => this.rules.products(body)) : this.importProducts(writer, body),
    );
  }

  async recordSales(writer: ClientWriter, period: string | undefined, body: unknown): Promise<SalesResult> {
    const checked = this.rules.sales(body, period, parisDate(this.clock.now()));
    if (!checked.ok) throw validationProblem(checked.errors);
    const { sales } = checked.value;
    const at = checked.value.period;
    return this.repository.withCatalogueLock(scopeOf(writer), (manager) => this.recordIn(manager, writer, at, sales));
  }

  /** recordSales' work in a transaction that holds the catalogue lock. */
  private async recordIn(manager: EntityManager, writer: ClientWriter, at: string, sales: ValidSale[]): Promise<SalesResult> {
    const known = new Map(
      (
        await this.repository.productsForSales(
          manager,
          scopeOf(writer),
          at,
          sales.map((s) => s.reference),
        )
      ).map((p) => [p.reference, p]),
    );
    const errors: FieldError[] = [];
    sales.forEach((sale, index) => {
      const product = known.get(sale.reference);
      if (!product) {
        errors.push({
          pointer: `/sales/${index}/reference`,
          code: 'unknown_product',
          detail: `${sale.reference} is not one of your products; add it with POST /api/v1/products first`,
          params: { line: index + 1, field: 'reference', value: sale.reference },
        });
      } else if (!product.inForce) {
        errors.push({
          pointer: `/sales/${index}/reference`,
          code: 'no_version_for_period',
          detail: `${sale.reference} has no version in force in ${at}: its first valid_from is later; post its packaging valid from ${at} or earlier`,
          params: { line: index + 1, field: 'reference', value: sale.reference, period: at },
        });
      }
    });
    if (errors.length > 0) throw validationProblem(errors);
    await this.repository.upsertSales(
      manager,
      at,
      sales.map((s) => ({ ...s, productId: known.get(s.reference)!.productId })),
    );
    const summary = await this.repository.salesSummary(manager, scopeOf(writer), at);
    await this.record(manager, writer, 'sales.recorded', { period: at, recorded: sales.length });
    return { period: at, recorded: sales.length, products: summary.products, units: summary.units };
  }

  async recordSalesCsv(writer: ClientWriter, period: string | undefined, file: CsvFile): Promise<SalesResult> {
    const sheet = readSaleCsv(file, MAX_SALES);
    const today = parisDate(this.clock.now());
    return this.fromSheet(sheet, (body) =>
      sheet.errors.length > 0 ? this.refuseWithRules(() => this.rules.sales(body, period, today)) : this.recordSales(writer, period, body),
    );
  }

  /**
   * A per-product file (spreadsheet/product-sheet.ts) for the half-year its rows were read for: its
   * products held to the catalogue's rules and bounds (MAX_PRODUCTS, MAX_ELEMENTS, weights, materials
   * by code or published name), its units sold whole numbers, and the declaration they give, derived
   * as the catalogue's (deriveLines, declarationLines, unitsSold). Nothing is stored; every problem
   * points at the file's row and column (`/rows/N/field`, the column's header in `params.column`).
   */
  productFile(sheet: ProductSheet, period: string): ProductFileDeclaration {
    const errors: FieldError[] = [...sheet.errors];
    const checked = this.rules.products(sheet.body);
    if (!checked.ok) errors.push(...pointAtFile(sheet, checked.errors));
    const units = sheet.units.map((value, index) => {
      const row = sheet.rows[index]!.units;
      // Made for a problem only.
      const at = () => ({ pointer: `/rows/${row}/units`, row, params: { field: 'units', column: sheet.headers.units ?? '' } });
      if (value === undefined)
        return void errors.push({ ...at(), code: 'units_missing', detail: `row ${row}: the product's units sold are missing` });
      const exact = typeof value === 'string' ? undefined : exactDecimal(value.text);
      if (!exact || exact.negative || exact.decimals > 0 || exact.text === '' || Number(exact.text) > MAX_UNITS)
        return void errors.push({
          ...at(),
          code: 'invalid_count',
          detail: `row ${row}: units sold must be a whole number from 0 to ${MAX_UNITS}`,
          params: { ...at().params, min: 0, max: MAX_UNITS },
        });
      return exact.text;
    });
    if (errors.length > 0 || !checked.ok) {
      const sorted = errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
      throw new ValidationProblem(sorted.slice(0, MAX_REPORTED_ERRORS), describeErrors(sorted), sorted.length);
    }
    const products = checked.value.map((product, index) => ({ ...product, units: units[index]! }));
    const lines = deriveLines(products);
    return {
      period,
      products,
      declaration: { period, lines: this.declarationLines(lines), units_sold: this.unitsSold(lines) },
    };
  }

  /**
   * Keeps a checked per-product file as the catalogue, in the caller's transaction (a filing's):
   * its products as versions valid from the half-year (the catalogue's bounds and rules, as an
   * upload) and their units sold as that half-year's sales.
   */
  async keepAsCatalogue(manager: EntityManager, writer: ClientWriter, period: string, products: readonly KeptProduct[]): Promise<void> {
    // Checked again by the rules (a sealed page is the service's own, but the catalogue is changed only by what they pass).
    const checked = this.rules.products({
      products: products.map((product) => ({
        reference: product.reference,
        name: product.reference,
        stream: product.stream,
        valid_from: period,
        // At most three decimals and 10^7 grams: a double writes them back exactly.
        elements: product.elements.map((e) => ({ material: e.materialCode, weight_g: Number(e.weightG), per_unit: e.perUnit })),
      })),
    });
    if (!checked.ok) throw validationProblem(checked.errors);
    await this.repository.lockCatalogue(manager, scopeOf(writer));
    await this.importIn(manager, writer, checked.value);
    await this.recordIn(
      manager,
      writer,
      period,
      products.map((product) => ({ reference: product.reference, units: product.units })),
    );
  }

  async list(scope: DataScope, query: { limit?: number; cursor?: string }): Promise<Page<Product>> {
    const limit = Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const page = this.group(
      await this.repository.listVersions(scope, { after: this.afterCursor(query.cursor), limit, versions: PAGE_VERSIONS }),
    );
    const last = page.at(-1)?.reference;
    const hasMore = last !== undefined && (await this.repository.hasProductAfter(scope, last));
    return { items: page, hasMore, nextCursor: hasMore ? cursorAfter(last) : null };
  }

  /** The reference a cursor of a products page carries (undefined: no cursor). */
  private afterCursor(cursor: string | undefined): string | undefined {
    if (cursor === undefined) return undefined;
    const after = Buffer.from(cursor, 'base64url').toString('utf8');
    if (!/^p:/.test(after) || !couldBeReference(after.slice(2)))
      throw new Problem(
        'invalid_cursor',
        'The cursor is not one this API issued: pass next_cursor unchanged, or start again without cursor.',
      );
    return after.slice(2);
  }

  async findOne(scope: DataScope, reference: string): Promise<Product> {
    // A text no product can have (a control character, which PostgreSQL's text refuses, or too long) is no product: 404.
    const [product] = couldBeReference(reference)
      ? this.group(await this.repository.listVersions(scope, { reference, limit: 1, versions: PAGE_VERSIONS }))
      : [];
    if (!product) throw new NotFoundProblem('Product');
    return product;
  }

  /**
   * The declaration the catalogue and sales give for the period; nothing is stored. The lines are
   * summed by PostgreSQL chunk by chunk in one snapshot; each product's contribution is listed in
   * them when at most PREVIEW_CONTRIBUTIONS products gave one (else `contributions_included` is
   * false and they are read page by page with `contributions`).
   */
  async preview(scope: DataScope, periodText: string): Promise<DerivedDeclaration> {
    const period = this.checkPeriod(periodText);
    const { lines, products, contributions } = await this.repository.inSnapshot(async (manager) => {
      const derived = await this.repository.derivedLines(manager, scope, period);
      const rows: ContributionRow[] = [];
      if (derived.products <= PREVIEW_CONTRIBUTIONS)
        for (const range of await this.repository.chunkRanges(manager, scope))
          rows.push(...(await this.repository.contributions(manager, scope, period, range)));
      return { ...derived, contributions: derived.products <= PREVIEW_CONTRIBUTIONS ? rows : undefined };
    });
    const last = await this.repository.lastDerivation(scope, period);
    return {
      ...this.derived(period, lines, products, contributions),
      lastFiled: last ? { ...last, status: last.status as DerivedFiling['status'] } : null,
    };
  }

  /** The per-product detail of the preview, a page of products by reference (cursor pagination, as the products list). */
  async contributionPage(
    scope: DataScope,
    periodText: string,
    query: { limit?: number; cursor?: string },
  ): Promise<ProductContributionPage> {
    const period = this.checkPeriod(periodText);
    const limit = Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const rows = await this.repository.contributionPage(scope, period, this.afterCursor(query.cursor) ?? '', limit + 1);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { period, items: page, hasMore, nextCursor: hasMore ? cursorAfter(page.at(-1)!.reference) : null };
  }

  /** The declaration the catalogue and sales give for the period, as POST /api/v1/declarations takes it (nothing stored): what the check page shows. */
  async derivedDeclaration(
    scope: DataScope,
    periodText: string,
    shown = 0,
  ): Promise<
    ProductFileDeclaration['declaration'] & {
      /** The first `shown` products it is derived from, and how many there are. */
      products: { name: string; stream: string; units: string; elements: [string, string, number][] }[];
      productCount: number;
    }
  > {
    const period = this.checkPeriod(periodText);
    const { lines, products, sold } = await this.repository.inSnapshot(async (manager) => {
      const derived = await this.repository.derivedLines(manager, scope, period);
      const sold = shown > 0 && derived.lines.length > 0 ? await this.repository.soldProducts(manager, scope, period, shown) : [];
      return { ...derived, sold };
    });
    if (lines.length === 0) throw nothingToDerive(period);
    return { period, lines: this.declarationLines(lines), units_sold: this.unitsSold(lines), products: sold, productCount: products };
  }

  /**
   * Files the derived declaration as an ordinary revision (same rules, revisions, Idempotency-Key
   * and answers as POST /api/v1/declarations). In the revision's transaction, under the client's
   * catalogue lock, the derivation is computed again: if the catalogue or the sales changed since
   * the lines were computed, nothing is filed (409, retry); else what each product version gave is
   * recorded with it, and the filing is audited.
   */
  async file(
    account: Account,
    writer: ClientWriter,
    periodText: string,
    origin: SubmissionOrigin,
    options: SubmitOptions & {
      /** The lines a check page showed ([stream, material, unit, quantity]): filed only if the derivation still gives them. */
      expected?: [string, string, string, string][];
    } = {},
  ): Promise<SubmitResult> {
    const period = this.checkPeriod(periodText);
    const scope: DataScope = { clientId: account.clientId, mode: origin.mode };
    const { lines } = await this.repository.inSnapshot((manager) => this.repository.derivedLines(manager, scope, period));
    if (lines.length === 0) throw nothingToDerive(period);
    const body = { period, lines: this.declarationLines(lines), units_sold: this.unitsSold(lines) };
    if (options.expected && !sameLines(options.expected, body.lines)) throw changedMeanwhile();
    return this.declarations.submit(account, body, origin, {
      idempotency: options.idempotency,
      onStored: async (manager, declaration) => {
        await this.repository.lockCatalogue(manager, scope);
        const again = (await this.repository.derivedLines(manager, scope, period)).lines;
        if (JSON.stringify(again) !== JSON.stringify(lines)) throw changedMeanwhile();
        const products = await this.repository.recordDerivation(manager, declaration.id, scope, period);
        await this.record(manager, writer, 'declaration.derived', {
          period,
          revision: declaration.revision,
          declaration_id: declaration.id,
          products,
        });
        await options.onStored?.(manager, declaration);
      },
    });
  }

  /**
   * The operator's view of a derived declaration (any client), its products read CHUNK_PRODUCTS at a
   * time as the caller iterates them: memory stays flat whatever the catalogue. 404 for an unknown id
   * or a declaration not derived, before any product is read.
   */
  async derivation(declarationId: string): Promise<Derivation> {
    const head = isUuid(declarationId) ? await this.repository.derivationHead(declarationId.toLowerCase()) : undefined;
    if (!head) throw new NotFoundProblem('Derived declaration');
    return { ...head, products: this.filedProducts(head) };
  }

  private async *filedProducts(head: DerivationHeadRow): AsyncGenerator<FiledProduct[]> {
    for (let after = ''; ;) {
      const rows = await this.repository.derivationProducts(head, after, CHUNK_PRODUCTS);
      if (rows.length > 0) yield rows;
      if (rows.length < CHUNK_PRODUCTS) return;
      after = rows.at(-1)!.reference;
    }
  }

  private checkPeriod(text: string): string {
    const period = parsePeriod(text);
    if (!period)
      throw validationProblem([
        {
          pointer: '/path/period',
          code: 'invalid_period_format',
          detail: 'period must be a half-year written YYYY-S1 or YYYY-S2',
          params: { value: text.slice(0, 40) },
        },
      ]);
    return period.code;
  }

  /** The lines a declaration holds: per material, each unit the streams data says products derive (derived-lines.ts). */
  private declarationLines(lines: DerivedLineRow[]) {
    return derivedDeclarationLines(lines, this.catalogue);
  }

  /** Per stream that counts sales units, the units sold of its products: each product once, whatever its materials. */
  private unitsSold(lines: DerivedLineRow[]): { stream: string; quantity: number }[] {
    const streams = new Map(lines.map((line) => [line.stream, line.unitsSold]));
    return [...streams]
      .filter(([stream]) => this.catalogue.countUnitOf(stream) !== undefined)
      .map(([stream, quantity]) => ({ stream, quantity: Number(quantity) }));
  }

  private derived(
    period: string,
    lines: DerivedLineRow[],
    products: number,
    contributions: ContributionRow[] | undefined,
  ): Omit<DerivedDeclaration, 'lastFiled'> {
    const byLine = new Map<string, ContributionRow[]>();
    for (const c of contributions ?? []) {
      const key = `${c.stream}\u0000${c.materialCode}`;
      const list = byLine.get(key);
      if (list) list.push(c);
      else byLine.set(key, [c]);
    }
    return {
      period,
      products,
      contributionsIncluded: contributions !== undefined,
      lines: lines.map((line) => ({
        stream: line.stream,
        material: line.materialCode,
        kgExact: line.kg,
        kgRounded: line.kgRounded,
        uvc: countsUnitsSold(this.catalogue, line.stream) ? line.uvc : null,
        contributions: (byLine.get(`${line.stream}\u0000${line.materialCode}`) ?? []).map((c) => ({
          reference: c.reference,
          name: c.name,
          validFrom: c.validFrom,
          units: c.units,
          elements: c.elements,
          kg: c.kg,
        })),
      })),
      declarationLines: this.declarationLines(lines),
      unitsSold: this.unitsSold(lines),
    };
  }

  private group(rows: VersionRow[]): Product[] {
    const products: Product[] = [];
    for (const { reference, ...version } of rows) {
      let product = products.at(-1);
      if (product?.reference !== reference) products.push((product = { reference, versions: [] }));
      product.versions.push(version);
    }
    return products;
  }

  /** A file's own problems, reported with everything the rules find in what could be read. */
  private async refuseWithRules(check: () => { ok: true } | { ok: false; errors: FieldError[] }): Promise<never> {
    const result = check();
    throw new ValidationProblem(result.ok ? [] : result.errors);
  }

  /** Runs `work` on the sheet's body; its problems, which point into the body, are pointed at the file's cells. */
  private async fromSheet<B, T>(sheet: Sheet<B>, work: (body: B) => Promise<T>): Promise<T> {
    try {
      return await work(sheet.body);
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      throw validationProblem(pointAtRows(sheet, error.errors));
    }
  }

  private async record(manager: EntityManager, writer: ClientWriter, action: string, changes: Record<string, unknown>): Promise<void> {
    const actor: Actor = {
      operator: { kind: 'client', clientId: writer.clientId, sessionId: writer.sessionId },
      requestId: writer.requestId,
    };
    await this.audit.record(manager, actor, {
      action,
      targetType: 'client',
      targetId: writer.clientId,
      clientId: writer.clientId,
      changes: { ...changes, via: writer.sessionId ? 'dashboard' : 'api', token_id: writer.tokenId },
    });
  }
}

/** The data a writer reaches: its client's, live or the sandbox's. */
const scopeOf = (writer: ClientWriter): DataScope => ({ clientId: writer.clientId, mode: writer.mode });

/** The cursor of the page after the product `reference`. */
const cursorAfter = (reference: string): string => Buffer.from(`p:${reference}`, 'utf8').toString('base64url');

/** Whether a product could have this reference (1–64 characters without control characters): others are looked up nowhere. */
const couldBeReference = (text: string): boolean =>
  text.length >= 1 && text.length <= 64 && ![...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
