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
import { DeclarationsService, type SubmitResult } from '../declarations/declarations.service.js';
import { parsePeriod } from '../calendar/half-year.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { type CsvFile, pointAtRows, readProductCsv, readSaleCsv, type Sheet } from './csv/product-csv.js';
import type {
  DerivationDto,
  DerivedDeclarationDto,
  ProductDto,
  ProductPageDto,
  ProductsResultDto,
  SalesResultDto,
} from './dto/product.dto.js';
import { MAX_PRODUCTS, MAX_SALES, ProductRules } from './product-rules.js';
import { type ContributionRow, type DerivedLineRow, ProductsRepository, type VersionRow } from './products.repository.js';

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
  ) {}

  /**
   * Adds versions to the catalogue, all or nothing. A (reference, valid_from) already stored is
   * replaced when its content differs, unless a filed derived declaration used it: then the whole
   * request is refused (`product_version_filed`), since what was filed is never changed silently.
   */
  async importProducts(writer: ClientWriter, body: unknown): Promise<ProductsResultDto> {
    const checked = this.rules.products(body);
    if (!checked.ok) throw validationProblem(checked.errors);
    const products = checked.value;
    return this.repository.withCatalogueLock(scopeOf(writer), async (manager) => {
      const existing = new Map(
        (await this.repository.existingVersions(manager, scopeOf(writer), products)).map((v) => [`${v.reference}\u0000${v.validFrom}`, v]),
      );
      const errors: FieldError[] = [];
      const outcomes = products.map((product, index) => {
        const stored = existing.get(`${product.reference}\u0000${product.validFrom}`);
        if (!stored) return 'created' as const;
        if (stored.contentHash === product.contentHash) return 'unchanged' as const;
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
      const result: ProductsResultDto = {
        created: count('created'),
        replaced: count('replaced'),
        unchanged: count('unchanged'),
        versions: products.map((p, i) => ({ reference: p.reference, valid_from: p.validFrom, outcome: outcomes[i]! })),
      };
      await this.record(manager, writer, 'products.imported', {
        created: result.created,
        replaced: result.replaced,
        unchanged: result.unchanged,
      });
      return result;
    });
  }

  async importProductsCsv(writer: ClientWriter, file: CsvFile): Promise<ProductsResultDto> {
    const sheet = readProductCsv(file, MAX_PRODUCT_ROWS);
    return this.fromSheet(sheet, (body) =>
      sheet.errors.length > 0 ? this.refuseWithRules(() => this.rules.products(body)) : this.importProducts(writer, body),
    );
  }

  async recordSales(writer: ClientWriter, period: string | undefined, body: unknown): Promise<SalesResultDto> {
    const checked = this.rules.sales(body, period, parisDate(this.clock.now()));
    if (!checked.ok) throw validationProblem(checked.errors);
    const { sales } = checked.value;
    const at = checked.value.period;
    return this.repository.withCatalogueLock(scopeOf(writer), async (manager) => {
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
    });
  }

  async recordSalesCsv(writer: ClientWriter, period: string | undefined, file: CsvFile): Promise<SalesResultDto> {
    const sheet = readSaleCsv(file, MAX_SALES);
    const today = parisDate(this.clock.now());
    return this.fromSheet(sheet, (body) =>
      sheet.errors.length > 0 ? this.refuseWithRules(() => this.rules.sales(body, period, today)) : this.recordSales(writer, period, body),
    );
  }

  async list(scope: DataScope, query: { limit?: number; cursor?: string }): Promise<ProductPageDto> {
    const limit = Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    let after: string | undefined;
    if (query.cursor !== undefined) {
      after = Buffer.from(query.cursor, 'base64url').toString('utf8');
      if (!/^p:/.test(after) || !couldBeReference(after.slice(2)))
        throw new Problem(
          'invalid_cursor',
          'The cursor is not one this API issued: pass next_cursor unchanged, or start again without cursor.',
        );
      after = after.slice(2);
    }
    const rows = await this.repository.listVersions(scope, { after, limit: limit + 1 });
    const products = this.group(rows);
    const page = products.slice(0, limit);
    const hasMore = products.length > limit;
    return {
      data: page,
      has_more: hasMore,
      next_cursor: hasMore ? Buffer.from(`p:${page.at(-1)!.reference}`, 'utf8').toString('base64url') : null,
    };
  }

  async findOne(scope: DataScope, reference: string): Promise<ProductDto> {
    // A text no product can have (a control character, which PostgreSQL's text refuses, or too long) is no product: 404.
    const [product] = couldBeReference(reference) ? this.group(await this.repository.listVersions(scope, { reference, limit: 1 })) : [];
    if (!product) throw new NotFoundProblem('Product');
    return product;
  }

  /** The declaration the catalogue and sales give for the period, with each product's contribution; nothing is stored. */
  async preview(scope: DataScope, periodText: string): Promise<DerivedDeclarationDto> {
    const period = this.checkPeriod(periodText);
    const [lines, contributions, last] = await Promise.all([
      this.repository.derivedLines(scope, period),
      this.repository.contributions(scope, period),
      this.repository.lastDerivation(scope, period),
    ]);
    return {
      ...this.derived(period, lines, contributions),
      last_filed: last
        ? {
            declaration_id: last.declarationId,
            revision: last.revision,
            receipt: last.receipt,
            status: last.status as 'current' | 'superseded',
            derived_at: last.derivedAt,
          }
        : null,
    };
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
    idempotencyKey: string | undefined,
    origin: SubmissionOrigin,
  ): Promise<SubmitResult> {
    const period = this.checkPeriod(periodText);
    const scope: DataScope = { clientId: account.clientId, mode: origin.mode };
    const lines = await this.repository.derivedLines(scope, period);
    if (lines.length === 0) {
      throw validationProblem([
        {
          pointer: '/path/period',
          code: 'nothing_to_derive',
          detail: `no sales with packaging in ${period}: record sales with POST /api/v1/sales?period=${period} first`,
          params: { period },
        },
      ]);
    }
    const body = { period, lines: this.declarationLines(lines), units_sold: this.unitsSold(lines) };
    return this.declarations.submit(account, body, idempotencyKey, origin, {
      onStored: async (manager, declaration) => {
        await this.repository.lockCatalogue(manager, scope);
        const again = await this.repository.derivedLines(scope, period, manager);
        if (JSON.stringify(again) !== JSON.stringify(lines)) {
          throw new Problem(
            'conflict',
            'Your catalogue or sales for this period changed while the declaration was being filed; nothing was filed. Look at the preview again and file it.',
          );
        }
        const contributions = await this.repository.contributions(scope, period, manager);
        await this.repository.recordDerivation(manager, declaration.id, account.clientId, period, contributions);
        await this.record(manager, writer, 'declaration.derived', {
          period,
          revision: declaration.revision,
          declaration_id: declaration.id,
          products: new Set(contributions.map((c) => c.versionId)).size,
        });
      },
    });
  }

  /** The operator's view of a derived declaration (any client): 404 for an unknown id or a declaration not derived. */
  async derivation(declarationId: string): Promise<DerivationDto> {
    const row = isUuid(declarationId) ? await this.repository.derivationDetail(declarationId.toLowerCase()) : undefined;
    if (!row) throw new NotFoundProblem('Derived declaration');
    return {
      declaration_id: row.declarationId,
      client_id: row.clientId,
      period: row.period,
      revision: row.revision,
      receipt: row.receipt,
      derived_at: row.derivedAt,
      products: row.products.map((p) => ({
        reference: p.reference,
        name: p.name,
        gtin: p.gtin,
        valid_from: p.validFrom,
        stream: p.stream,
        units: p.units,
        elements: p.elements.map((e) => ({
          material: e.material,
          material_name: this.nameOf(p.stream, e.material),
          weight_g: Number(e.weightG),
          per_unit: e.perUnit,
          packaging_category: e.packagingCategory,
          reuse_status: e.reuseStatus,
        })),
      })),
    };
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

  /** The lines a declaration holds: kg rounded to the gram, and for a stream with a `uvc` unit, the count of sales units. */
  private declarationLines(lines: DerivedLineRow[]) {
    return lines.flatMap((line) => [
      { stream: line.stream, material: line.materialCode, unit: 'kg', quantity: Number(line.kgRounded) },
      ...(this.catalogue.unitsFor(line.stream).includes('uvc')
        ? [{ stream: line.stream, material: line.materialCode, unit: 'uvc', quantity: Number(line.uvc) }]
        : []),
    ]);
  }

  /** Per stream that counts sales units, the units sold of its products: each product once, whatever its materials. */
  private unitsSold(lines: DerivedLineRow[]): { stream: string; quantity: number }[] {
    const streams = new Map(lines.map((line) => [line.stream, line.unitsSold]));
    return [...streams]
      .filter(([stream]) => this.catalogue.countUnitOf(stream) !== undefined)
      .map(([stream, quantity]) => ({ stream, quantity: Number(quantity) }));
  }

  private derived(period: string, lines: DerivedLineRow[], contributions: ContributionRow[]): Omit<DerivedDeclarationDto, 'last_filed'> {
    return {
      period,
      products: new Set(contributions.map((c) => c.versionId)).size,
      lines: lines.map((line) => ({
        stream: line.stream,
        material: line.materialCode,
        material_name: this.nameOf(line.stream, line.materialCode),
        kg_exact: line.kg,
        kg: Number(line.kgRounded),
        uvc: this.catalogue.unitsFor(line.stream).includes('uvc') ? Number(line.uvc) : null,
        contributions: contributions
          .filter((c) => c.stream === line.stream && c.materialCode === line.materialCode)
          .map((c) => ({ reference: c.reference, name: c.name, valid_from: c.validFrom, units: c.units, elements: c.elements, kg: c.kg })),
      })),
      declaration_lines: this.declarationLines(lines),
      units_sold: this.unitsSold(lines),
    };
  }

  private nameOf(stream: string, code: string) {
    const name = this.catalogue.categoryName(stream, code);
    return name ? { fr: name.fr, en: name.en } : null;
  }

  private group(rows: VersionRow[]): ProductDto[] {
    const products: ProductDto[] = [];
    for (const row of rows) {
      let product = products.at(-1);
      if (product?.reference !== row.reference) products.push((product = { reference: row.reference, versions: [] }));
      product.versions.push({
        valid_from: row.validFrom,
        name: row.name,
        stream: row.stream,
        gtin: row.gtin,
        recorded_at: row.recordedAt,
        filed: row.filed,
        elements: row.elements.map((e) => ({
          material: e.material,
          material_name: this.nameOf(row.stream, e.material),
          weight_g: Number(e.weightG),
          per_unit: e.perUnit,
          packaging_category: e.packagingCategory,
          reuse_status: e.reuseStatus,
        })),
      });
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

/** Whether a product could have this reference (1–64 characters without control characters): others are looked up nowhere. */
const couldBeReference = (text: string): boolean =>
  text.length >= 1 && text.length <= 64 && ![...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
