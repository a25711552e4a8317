import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { type DataScope, periodLockKey, utcText } from '../declarations/declarations.repository.js';
import type { ValidProduct, ValidSale } from './product-rules.js';

/** A stored version of a product, as the API shows it. */
export interface VersionRow {
  reference: string;
  validFrom: string;
  name: string;
  stream: string;
  gtin: string | null;
  recordedAt: string;
  /** Used by a filed derived declaration: it can no longer be replaced. */
  filed: boolean;
  elements: { material: string; weightG: string; perUnit: number; packagingCategory: string | null; reuseStatus: string | null }[];
}

/** The version of (reference, valid_from) already stored, if any. */
export interface ExistingVersion {
  reference: string;
  validFrom: string;
  versionId: string;
  contentHash: string;
  filed: boolean;
}

/** What one product version gives one (stream, material) in a half-year: exact, from PostgreSQL's numeric. */
export interface ContributionRow {
  versionId: string;
  reference: string;
  name: string;
  validFrom: string;
  stream: string;
  materialCode: string;
  /** Units sold (whole number as text). */
  units: string;
  /** Elements of that material placed on the market: Σ units × per_unit. */
  elements: string;
  /** Σ units × per_unit × weight_g / 1000, exact (up to 6 decimals), trailing zeros trimmed. */
  kg: string;
}

/** One line of the derived declaration: Σ over the products, exact, with the uvc count. */
export interface DerivedLineRow {
  stream: string;
  materialCode: string;
  /** Exact kg, trailing zeros trimmed. */
  kg: string;
  /** kg rounded to the gram (half away from zero): what a declaration line holds. */
  kgRounded: string;
  /** Sales units carrying this material. */
  uvc: string;
  /** The stream's units sold: Σ units of the product versions with packaging in it, each product once (the same on every line of the stream). */
  unitsSold: string;
  products: number;
}

/** One derived declaration with the products it used, as the operator reads it. */
export interface DerivationDetailRow {
  declarationId: string;
  clientId: string;
  period: string;
  revision: number;
  receipt: string;
  derivedAt: string;
  products: {
    reference: string;
    name: string;
    gtin: string | null;
    validFrom: string;
    stream: string;
    units: string;
    elements: { material: string; weightG: string; perUnit: number; packagingCategory: string | null; reuseStatus: string | null }[];
  }[];
}

/** The product versions in force for a period (the latest `valid_from` ≤ period) of the client's products sold in it, and their sales. */
const SOLD_IN_FORCE = `
  sold AS (
    SELECT DISTINCT ON (p.id) p.id AS product_id, p.reference, v.id AS version_id, v.valid_from, v.name, v.stream, s.units
      FROM product_sales s
      JOIN products p ON p.id = s.product_id
      JOIN product_versions v ON v.product_id = p.id AND v.valid_from <= $2
     WHERE p.client_id = $1 AND p.mode = $3 AND s.period = $2 AND s.units > 0
     ORDER BY p.id, v.valid_from DESC
  ),
  contributions AS (
    SELECT sold.version_id, sold.reference, sold.name, sold.valid_from, sold.stream, e.material_code, sold.units,
           sum(sold.units * e.per_unit) AS elements,
           sum(sold.units * e.per_unit * e.weight_g) / 1000 AS kg
      FROM sold JOIN product_elements e ON e.version_id = sold.version_id
     GROUP BY sold.version_id, sold.reference, sold.name, sold.valid_from, sold.stream, e.material_code, sold.units
  )`;

/**
 * The SQL of products, sales and derivations. Every read is scoped by client id and mode (live or the sandbox's test data); the operator's reads are live only. Writes take the
 * transaction's EntityManager.
 */
@Injectable()
export class ProductsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction holding the client's catalogue lock (catalogue and sales writes, and filing from them, one at a time per client). */
  async withCatalogueLock<T>(scope: DataScope, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('READ COMMITTED', async (manager) => {
      await this.lockCatalogue(manager, scope);
      return work(manager);
    });
  }

  async lockCatalogue(manager: EntityManager, { clientId, mode }: DataScope): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(${periodLockKey(clientId, 'catalogue', mode)})`);
  }

  /** The stored versions of these (reference, valid_from) pairs, with whether a filing used them. */
  async existingVersions(manager: EntityManager, { clientId, mode }: DataScope, products: ValidProduct[]): Promise<ExistingVersion[]> {
    return manager.query(
      `SELECT p.reference, v.valid_from AS "validFrom", v.id AS "versionId", v.content_hash AS "contentHash",
              EXISTS (SELECT 1 FROM declaration_derivation_contributions c WHERE c.version_id = v.id) AS filed
         FROM unnest($2::text[], $3::text[]) AS wanted (reference, valid_from)
         JOIN products p ON p.client_id = $1 AND p.mode = $4 AND p.reference = wanted.reference
         JOIN product_versions v ON v.product_id = p.id AND v.valid_from = wanted.valid_from`,
      [clientId, products.map((p) => p.reference), products.map((p) => p.validFrom), mode],
    );
  }

  /** Deletes versions (their elements go with them); a version a filing used is kept by the database (fk RESTRICT). */
  async deleteVersions(manager: EntityManager, versionIds: string[]): Promise<void> {
    if (versionIds.length > 0) await manager.query(`DELETE FROM product_versions WHERE id = ANY($1::uuid[])`, [versionIds]);
  }

  /** Inserts the products not yet known, then the versions and their elements: three statements whatever their number. */
  async insertVersions(manager: EntityManager, { clientId, mode }: DataScope, products: ValidProduct[]): Promise<void> {
    if (products.length === 0) return;
    await manager.query(
      `INSERT INTO products (client_id, mode, reference) SELECT $1, $3, r FROM unnest($2::text[]) AS r ON CONFLICT (client_id, mode, reference) DO NOTHING`,
      [clientId, [...new Set(products.map((p) => p.reference))], mode],
    );
    const versions: { id: string; reference: string; validFrom: string }[] = await manager.query(
      `INSERT INTO product_versions (product_id, valid_from, name, stream, gtin, content_hash)
       SELECT p.id, v.valid_from, v.name, v.stream, v.gtin, v.content_hash
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS v (reference, valid_from, name, stream, gtin, content_hash)
         JOIN products p ON p.client_id = $1 AND p.mode = $8 AND p.reference = v.reference
       RETURNING id, (SELECT reference FROM products WHERE id = product_id) AS reference, valid_from AS "validFrom"`,
      [
        clientId,
        products.map((p) => p.reference),
        products.map((p) => p.validFrom),
        products.map((p) => p.name),
        products.map((p) => p.stream),
        products.map((p) => p.gtin),
        products.map((p) => p.contentHash),
        mode,
      ],
    );
    const idOf = new Map(versions.map((v) => [`${v.reference}\u0000${v.validFrom}`, v.id]));
    const elements = products.flatMap((p) =>
      p.elements.map((e, position) => ({ ...e, position, versionId: idOf.get(`${p.reference}\u0000${p.validFrom}`)! })),
    );
    await manager.query(
      `INSERT INTO product_elements (version_id, position, material_code, weight_g, per_unit, packaging_category, reuse_status)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::numeric[], $5::int[], $6::text[], $7::text[])`,
      [
        elements.map((e) => e.versionId),
        elements.map((e) => e.position),
        elements.map((e) => e.materialCode),
        elements.map((e) => e.weightG),
        elements.map((e) => e.perUnit),
        elements.map((e) => e.packagingCategory),
        elements.map((e) => e.reuseStatus),
      ],
    );
  }

  /** A page of the client's products by reference (after `after`), each with every version, newest `valid_from` first. */
  async listVersions({ clientId, mode }: DataScope, options: { reference?: string; after?: string; limit: number }): Promise<VersionRow[]> {
    const where = ['client_id = $1', 'mode = $2'];
    const values: unknown[] = [clientId, mode];
    if (options.reference !== undefined) where.push(`reference = $${values.push(options.reference)}`);
    if (options.after !== undefined) where.push(`reference > $${values.push(options.after)}`);
    return this.dataSource.query(
      `WITH page AS (SELECT id, reference FROM products WHERE ${where.join(' AND ')} ORDER BY reference LIMIT $${values.push(options.limit)})
       SELECT page.reference, v.valid_from AS "validFrom", v.name, v.stream, v.gtin, ${utcText('v.recorded_at')} AS "recordedAt",
              EXISTS (SELECT 1 FROM declaration_derivation_contributions c WHERE c.version_id = v.id) AS filed,
              (SELECT json_agg(json_build_object('material', e.material_code, 'weightG', trim_scale(e.weight_g)::text, 'perUnit', e.per_unit,
                                                 'packagingCategory', e.packaging_category, 'reuseStatus', e.reuse_status) ORDER BY e.position)
                 FROM product_elements e WHERE e.version_id = v.id) AS elements
         FROM page JOIN product_versions v ON v.product_id = page.id
        ORDER BY page.reference, v.valid_from DESC`,
      values,
    );
  }

  /** For each reference: whether it is a product of the client, and whether a version of it is in force in `period`. */
  async productsForSales(
    manager: EntityManager,
    { clientId, mode }: DataScope,
    period: string,
    references: string[],
  ): Promise<{ reference: string; productId: string; inForce: boolean }[]> {
    return manager.query(
      `SELECT p.reference, p.id AS "productId", EXISTS (SELECT 1 FROM product_versions v WHERE v.product_id = p.id AND v.valid_from <= $2) AS "inForce"
         FROM products p WHERE p.client_id = $1 AND p.mode = $4 AND p.reference = ANY($3::text[])`,
      [clientId, period, references, mode],
    );
  }

  /** Sets the units of these products in the period (the others are left as they are). */
  async upsertSales(manager: EntityManager, period: string, sales: (ValidSale & { productId: string })[]): Promise<void> {
    await manager.query(
      `INSERT INTO product_sales (product_id, period, units)
       SELECT product_id, $1, units FROM unnest($2::uuid[], $3::numeric[]) AS s (product_id, units)
       ON CONFLICT (product_id, period) DO UPDATE SET units = EXCLUDED.units, recorded_at = clock_timestamp()`,
      [period, sales.map((s) => s.productId), sales.map((s) => s.units)],
    );
  }

  /** The period's sales: how many products, how many units. */
  async salesSummary(manager: EntityManager, { clientId, mode }: DataScope, period: string): Promise<{ products: number; units: string }> {
    const [row] = await manager.query(
      `SELECT count(*)::int AS products, coalesce(sum(s.units), 0)::text AS units
         FROM product_sales s JOIN products p ON p.id = s.product_id WHERE p.client_id = $1 AND p.mode = $3 AND s.period = $2`,
      [clientId, period, mode],
    );
    return row;
  }

  /** Each product version's contribution to each (stream, material) of the period, by one GROUP BY in PostgreSQL. */
  async contributions({ clientId, mode }: DataScope, period: string, manager?: EntityManager): Promise<ContributionRow[]> {
    return (manager ?? this.dataSource).query(
      `WITH ${SOLD_IN_FORCE}
       SELECT version_id AS "versionId", reference, name, valid_from AS "validFrom", stream, material_code AS "materialCode",
              units::text AS units, elements::text AS elements, trim_scale(kg)::text AS kg
         FROM contributions ORDER BY stream, material_code, reference`,
      [clientId, period, mode],
    );
  }

  /** The lines of the declaration derived for the period: Σ per (stream, material), by GROUP BY in PostgreSQL. */
  async derivedLines({ clientId, mode }: DataScope, period: string, manager?: EntityManager): Promise<DerivedLineRow[]> {
    return (manager ?? this.dataSource).query(
      `WITH ${SOLD_IN_FORCE}
       SELECT stream, material_code AS "materialCode", trim_scale(sum(kg))::text AS kg, trim_scale(round(sum(kg), 3))::text AS "kgRounded",
              sum(units)::text AS uvc, count(*)::int AS products,
              (SELECT sum(v.units) FROM (SELECT DISTINCT c.version_id, c.units FROM contributions c WHERE c.stream = contributions.stream) v)::text
                AS "unitsSold"
         FROM contributions GROUP BY stream, material_code ORDER BY stream, material_code`,
      [clientId, period, mode],
    );
  }

  /** Records, in the filing's transaction, that the revision was derived and what each product version gave. */
  async recordDerivation(
    manager: EntityManager,
    declarationId: string,
    clientId: string,
    period: string,
    contributions: ContributionRow[],
  ): Promise<void> {
    await manager.query(`INSERT INTO declaration_derivations (declaration_id, client_id, period, products) VALUES ($1, $2, $3, $4)`, [
      declarationId,
      clientId,
      period,
      new Set(contributions.map((c) => c.versionId)).size,
    ]);
    await manager.query(
      `INSERT INTO declaration_derivation_contributions (declaration_id, version_id, stream, material_code, units, elements, kg)
       SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[])`,
      [
        declarationId,
        contributions.map((c) => c.versionId),
        contributions.map((c) => c.stream),
        contributions.map((c) => c.materialCode),
        contributions.map((c) => c.units),
        contributions.map((c) => c.elements),
        contributions.map((c) => c.kg),
      ],
    );
  }

  /**
   * What a filing per consumer sales unit needs, for one derived declaration (any client: the
   * operator's): each product version it used, its units, and each packaging element (the versions
   * a filing used never change, so their elements are what was filed). Undefined if not derived.
   */
  async derivationDetail(declarationId: string): Promise<DerivationDetailRow | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT x.declaration_id AS "declarationId", x.client_id AS "clientId", x.period, d.revision, d.receipt, ${utcText('x.derived_at')} AS "derivedAt",
              (SELECT coalesce(json_agg(json_build_object(
                        'reference', p.reference, 'name', v.name, 'gtin', v.gtin, 'validFrom', v.valid_from, 'stream', v.stream, 'units', u.units::text,
                        'elements', (SELECT json_agg(json_build_object('material', e.material_code, 'weightG', trim_scale(e.weight_g)::text, 'perUnit', e.per_unit,
                                                                       'packagingCategory', e.packaging_category, 'reuseStatus', e.reuse_status) ORDER BY e.position)
                                       FROM product_elements e WHERE e.version_id = v.id)) ORDER BY p.reference), '[]')
                 FROM (SELECT version_id, max(units) AS units FROM declaration_derivation_contributions WHERE declaration_id = x.declaration_id GROUP BY version_id) u
                 JOIN product_versions v ON v.id = u.version_id JOIN products p ON p.id = v.product_id) AS products
         FROM declaration_derivations x JOIN declarations d ON d.id = x.declaration_id
        WHERE x.declaration_id = $1 AND d.mode = 'live'`,
      [declarationId],
    );
    return row;
  }

  /** The latest derived filing of the period, if any. */
  async lastDerivation(
    { clientId, mode }: DataScope,
    period: string,
  ): Promise<{ declarationId: string; revision: number; receipt: string; status: string; derivedAt: string } | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT d.id AS "declarationId", d.revision, d.receipt, d.status, ${utcText('x.derived_at')} AS "derivedAt"
         FROM declaration_derivations x JOIN declarations d ON d.id = x.declaration_id
        WHERE x.client_id = $1 AND d.mode = $3 AND x.period = $2 ORDER BY x.derived_at DESC LIMIT 1`,
      [clientId, period, mode],
    );
    return row;
  }
}
