import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { PreparedStatements } from '../database/prepared-statements.js';
import { type DataScope, DeclarationsRepository, periodLockKey, utcText } from '../declarations/declarations.repository.js';
import { contentHashOf, type ValidProduct, type ValidSale } from './product-rules.js';

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

/** What one product sold in a period gives each material (a page of the derived declaration's detail). */
export interface ProductContributionRow {
  reference: string;
  name: string;
  validFrom: string;
  stream: string;
  units: string;
  materials: { material: string; elements: string; kg: string }[];
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

/** One derived declaration, as the operator reads it. */
export interface DerivationHeadRow {
  declarationId: string;
  clientId: string;
  period: string;
  revision: number;
  receipt: string;
  derivedAt: string;
}

/** A product version a derived declaration used, with its units and packaging. */
export interface FiledProductRow {
  reference: string;
  name: string;
  gtin: string | null;
  validFrom: string;
  stream: string;
  units: string;
  elements: { material: string; weightG: string; perUnit: number; packagingCategory: string | null; reuseStatus: string | null }[];
}

/**
 * Products per chunk of a derived declaration's work: at the bounds (product-rules.ts, 20 elements
 * each) 2,000 element rows, under 10 ms of the embedded database's time on a quiet machine, which
 * runs in this process: between two chunks the event loop serves other requests (`/health/live`).
 */
export const CHUNK_PRODUCTS = 100;

/** A range of the catalogue's references, (after, until]: `until` null for the last. */
export interface ChunkRange {
  after: string;
  until: string | null;
}

/**
 * The product versions in force for a period (the latest `valid_from` ≤ period) of the client's
 * products sold in it with a reference in ($4, $5] ($5 null: no upper end), and what each gives
 * each material. Lateral lookups by key from the products' index, so that a chunk costs its own
 * products only whatever the planner knows (the embedded database never gathers statistics).
 */
const SOLD_IN_CHUNK = `
  sold AS (
    SELECT p.id AS product_id, p.reference, v.id AS version_id, v.valid_from, v.name, v.stream, s.units
      FROM products p
      CROSS JOIN LATERAL (SELECT units FROM product_sales WHERE product_id = p.id AND period = $2 AND units > 0 LIMIT 1) s
      CROSS JOIN LATERAL (SELECT id, valid_from, name, stream FROM product_versions
                           WHERE product_id = p.id AND valid_from <= $2 ORDER BY valid_from DESC LIMIT 1) v
     WHERE p.client_id = $1 AND p.mode = $3 AND p.reference > $4 AND ($5::text IS NULL OR p.reference <= $5)
  ),
  contributions AS (
    SELECT sold.version_id, sold.reference, sold.name, sold.valid_from, sold.stream, e.material_code, sold.units, e.elements, e.kg
      FROM sold
      CROSS JOIN LATERAL (SELECT material_code, sum(sold.units * per_unit) AS elements, sum(sold.units * per_unit * weight_g) / 1000 AS kg
                            FROM product_elements WHERE version_id = sold.version_id GROUP BY material_code) e
  )`;

/** One chunk's sums per (stream, material), exact, to be summed over the chunks. */
interface PartialLine {
  stream: string;
  materialCode: string;
  kg: string;
  uvc: string;
  products: number;
}

/**
 * The SQL of products, sales and derivations. Every read is scoped by client id and mode (live or the sandbox's test data); the operator's reads are live only. Writes take the
 * transaction's EntityManager.
 */
@Injectable()
export class ProductsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statements: PreparedStatements,
    private readonly declarations: DeclarationsRepository,
  ) {}

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

  /** How many products the catalogue holds, and how many versions each of these references has (absent: no such product). */
  async catalogueSize(
    manager: EntityManager,
    { clientId, mode }: DataScope,
    references: string[],
  ): Promise<{ products: number; versions: Map<string, number> }> {
    const [{ products }] = await manager.query(`SELECT count(*)::int AS products FROM products WHERE client_id = $1 AND mode = $2`, [
      clientId,
      mode,
    ]);
    const rows: { reference: string; versions: number }[] = await manager.query(
      `SELECT p.reference, (SELECT count(*)::int FROM product_versions v WHERE v.product_id = p.id) AS versions
         FROM products p WHERE p.client_id = $1 AND p.mode = $2 AND p.reference = ANY($3::text[])`,
      [clientId, mode, [...new Set(references)]],
    );
    return { products, versions: new Map(rows.map((r) => [r.reference, r.versions])) };
  }

  /** Deletes versions (their elements go with them); a version a filing used is kept by the database (fk RESTRICT). */
  async deleteVersions(manager: EntityManager, versionIds: string[]): Promise<void> {
    if (versionIds.length > 0) await manager.query(`DELETE FROM product_versions WHERE id = ANY($1::uuid[])`, [versionIds]);
  }

  /** Deletes what was recorded of these declarations of the client (their derivations and contributions), in `manager`'s transaction. */
  async deleteDerivations(manager: EntityManager, clientId: string, declarationIds: string[]): Promise<void> {
    if (declarationIds.length === 0) return;
    await manager.query(`DELETE FROM declaration_derivations WHERE client_id = $1 AND declaration_id = ANY($2::uuid[])`, [
      clientId,
      declarationIds,
    ]);
  }

  /** Deletes the client's test products (versions, elements and sales go with them); how many. Their derivations must be gone first. */
  async deleteTestProducts(manager: EntityManager, clientId: string): Promise<number> {
    const [row] = (await manager.query(
      `WITH wiped AS (DELETE FROM products WHERE client_id = $1 AND mode = 'test' RETURNING 1) SELECT count(*)::int AS n FROM wiped`,
      [clientId],
    )) as { n: number }[];
    return row!.n;
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
        products.map(contentHashOf),
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

  /**
   * A page of the client's products by reference (after `after`), each with every version, newest
   * `valid_from` first: at most `limit` products, and no more than `versions` versions in all (the
   * first product whatever its count), so that a page's size does not grow with the versions.
   */
  async listVersions(
    { clientId, mode }: DataScope,
    options: { reference?: string; after?: string; limit: number; versions: number },
  ): Promise<VersionRow[]> {
    const where = ['client_id = $1', 'mode = $2'];
    const values: unknown[] = [clientId, mode];
    if (options.reference !== undefined) where.push(`reference = $${values.push(options.reference)}`);
    if (options.after !== undefined) where.push(`reference > $${values.push(options.after)}`);
    return this.dataSource.query(
      `WITH first AS (SELECT id, reference FROM products WHERE ${where.join(' AND ')} ORDER BY reference LIMIT $${values.push(options.limit)}),
       page AS (SELECT id, reference FROM (SELECT f.id, f.reference, n.versions, sum(n.versions) OVER (ORDER BY f.reference) AS upto
                                              FROM first f CROSS JOIN LATERAL (SELECT count(*) AS versions FROM product_versions WHERE product_id = f.id) n) x
                 WHERE upto <= $${values.push(options.versions)} OR upto = versions)
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

  /** Whether the client has a product after `reference` (a page's `has_more`). */
  async hasProductAfter({ clientId, mode }: DataScope, reference: string): Promise<boolean> {
    const [row] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM products WHERE client_id = $1 AND mode = $2 AND reference > $3) AS more`,
      [clientId, mode, reference],
    );
    return row.more;
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

  /**
   * Runs `work` in one REPEATABLE READ, READ ONLY transaction: the chunks of a preview read one
   * snapshot. It lasts the computation only, never the writing of the answer. On the embedded
   * database a transaction would hold every other request's queries until it ends (one session):
   * there the chunks run each on its own, other requests' queries between them, and a write that
   * lands between two chunks can tear a preview; filing computes the lines again under the
   * catalogue lock and refuses (409) when they differ, so nothing torn is ever filed.
   */
  inSnapshot<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.statements.oneSession) return work(this.dataSource.manager);
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      await manager.query('SET TRANSACTION READ ONLY');
      return work(manager);
    });
  }

  /** The ranges of references that cut the client's catalogue into chunks of CHUNK_PRODUCTS products (one index scan). */
  async chunkRanges(manager: EntityManager, { clientId, mode }: DataScope): Promise<ChunkRange[]> {
    const ends: { reference: string }[] = await manager.query(
      `SELECT reference FROM (SELECT reference, row_number() OVER (ORDER BY reference) AS n FROM products WHERE client_id = $1 AND mode = $2) x
        WHERE n % $3 = 0 ORDER BY reference`,
      [clientId, mode, CHUNK_PRODUCTS],
    );
    return [...ends.map((e) => e.reference), null].map((until, i) => ({ after: i === 0 ? '' : ends[i - 1]!.reference, until }));
  }

  /** Each product version's contribution to each (stream, material) of the period, for the products of one chunk, by reference. */
  async contributions(
    manager: EntityManager,
    { clientId, mode }: DataScope,
    period: string,
    range: ChunkRange,
  ): Promise<ContributionRow[]> {
    return manager.query(
      `WITH ${SOLD_IN_CHUNK}
       SELECT version_id AS "versionId", reference, name, valid_from AS "validFrom", stream, material_code AS "materialCode",
              units::text AS units, elements::text AS elements, trim_scale(kg)::text AS kg
         FROM contributions ORDER BY reference, stream, material_code`,
      [clientId, period, mode, range.after, range.until],
    );
  }

  /**
   * The lines of the declaration derived for the period, Σ per (stream, material), and how many
   * product versions gave them: summed by PostgreSQL chunk by chunk, then the chunks' exact sums
   * summed and rounded by PostgreSQL too (numeric, never floating point).
   */
  async derivedLines(manager: EntityManager, scope: DataScope, period: string): Promise<{ lines: DerivedLineRow[]; products: number }> {
    const partials: PartialLine[] = [];
    // Units sold per stream, each product once whatever its materials (whole numbers: exact as BigInt).
    const unitsSold = new Map<string, bigint>();
    let products = 0;
    for (const range of await this.chunkRanges(manager, scope)) {
      const [chunk]: { versions: number; partials: PartialLine[]; sold: { stream: string; units: string }[] }[] = await manager.query(
        `WITH ${SOLD_IN_CHUNK}
         SELECT (SELECT count(DISTINCT version_id)::int FROM contributions) AS versions,
                coalesce((SELECT json_agg(json_build_object('stream', stream, 'materialCode', material_code, 'kg', kg::text, 'uvc', uvc::text, 'products', n))
                            FROM (SELECT stream, material_code, sum(kg) AS kg, sum(units) AS uvc, count(*) AS n FROM contributions GROUP BY stream, material_code) x),
                         '[]') AS partials,
                coalesce((SELECT json_agg(json_build_object('stream', stream, 'units', units::text))
                            FROM (SELECT stream, sum(units) AS units FROM (SELECT DISTINCT version_id, stream, units FROM contributions) v GROUP BY stream) y),
                         '[]') AS sold`,
        [scope.clientId, period, scope.mode, range.after, range.until],
      );
      products += chunk!.versions;
      partials.push(...chunk!.partials);
      for (const { stream, units } of chunk!.sold) unitsSold.set(stream, (unitsSold.get(stream) ?? 0n) + BigInt(units));
    }
    if (partials.length === 0) return { lines: [], products };
    const summed: Omit<DerivedLineRow, 'unitsSold'>[] = await manager.query(
      `SELECT stream, material_code AS "materialCode", trim_scale(sum(kg))::text AS kg, trim_scale(round(sum(kg), 3))::text AS "kgRounded",
              sum(uvc)::text AS uvc, sum(n)::int AS products
         FROM unnest($1::text[], $2::text[], $3::numeric[], $4::numeric[], $5::int[]) AS x (stream, material_code, kg, uvc, n)
        GROUP BY stream, material_code ORDER BY stream, material_code`,
      [
        partials.map((p) => p.stream),
        partials.map((p) => p.materialCode),
        partials.map((p) => p.kg),
        partials.map((p) => p.uvc),
        partials.map((p) => p.products),
      ],
    );
    const lines = summed.map((line) => ({ ...line, unitsSold: String(unitsSold.get(line.stream) ?? 0n) }));
    return { lines, products };
  }

  /**
   * A page of the products sold in the period with a version in force, by reference after
   * `after`, each with what it gives each material: the products' index walked in order, stopped
   * at `limit`, so that a page costs its own products (and those skipped) only.
   */
  async contributionPage({ clientId, mode }: DataScope, period: string, after: string, limit: number): Promise<ProductContributionRow[]> {
    return this.dataSource.query(
      `SELECT p.reference, v.name, v.valid_from AS "validFrom", v.stream, s.units::text AS units,
              (SELECT json_agg(json_build_object('material', m.material_code, 'elements', m.elements::text, 'kg', trim_scale(m.kg)::text) ORDER BY m.material_code)
                 FROM (SELECT e.material_code, sum(s.units * e.per_unit) AS elements, sum(s.units * e.per_unit * e.weight_g) / 1000 AS kg
                         FROM product_elements e WHERE e.version_id = v.id GROUP BY e.material_code) m) AS materials
         FROM products p
         CROSS JOIN LATERAL (SELECT units FROM product_sales WHERE product_id = p.id AND period = $2 AND units > 0 LIMIT 1) s
         CROSS JOIN LATERAL (SELECT id, name, valid_from, stream FROM product_versions
                              WHERE product_id = p.id AND valid_from <= $2 ORDER BY valid_from DESC LIMIT 1) v
        WHERE p.client_id = $1 AND p.mode = $3 AND p.reference > $4
        ORDER BY p.reference LIMIT $5`,
      [clientId, period, mode, after, limit],
    );
  }

  /**
   * The first `limit` products sold in the period with a version in force, by reference, each with
   * its name, stream, units sold and packaging elements (material code, grams, per unit) in order:
   * what the check page shows of a derived declaration, in `manager`'s snapshot.
   */
  async soldProducts(
    manager: EntityManager,
    { clientId, mode }: DataScope,
    period: string,
    limit: number,
  ): Promise<{ name: string; stream: string; units: string; elements: [string, string, number][] }[]> {
    return manager.query(
      `SELECT v.name, v.stream, s.units::text AS units,
              (SELECT coalesce(json_agg(json_build_array(e.material_code, trim_scale(e.weight_g)::text, e.per_unit) ORDER BY e.position), '[]')
                 FROM product_elements e WHERE e.version_id = v.id) AS elements
         FROM products p
         CROSS JOIN LATERAL (SELECT units FROM product_sales WHERE product_id = p.id AND period = $2 AND units > 0 LIMIT 1) s
         CROSS JOIN LATERAL (SELECT id, name, stream FROM product_versions
                              WHERE product_id = p.id AND valid_from <= $2 ORDER BY valid_from DESC LIMIT 1) v
        WHERE p.client_id = $1 AND p.mode = $3 AND EXISTS (SELECT 1 FROM product_elements e WHERE e.version_id = v.id)
        ORDER BY p.reference LIMIT $4`,
      [clientId, period, mode, limit],
    );
  }

  /**
   * Records, in the filing's transaction, that the revision was derived and what each product
   * version gave (copied by PostgreSQL chunk by chunk, never through this process); returns how
   * many product versions it used.
   */
  async recordDerivation(manager: EntityManager, declarationId: string, scope: DataScope, period: string): Promise<number> {
    await manager.query(`INSERT INTO declaration_derivations (declaration_id, client_id, period, products) VALUES ($1, $2, $3, 0)`, [
      declarationId,
      scope.clientId,
      period,
    ]);
    let products = 0;
    for (const range of await this.chunkRanges(manager, scope)) {
      const [{ versions }] = await manager.query(
        `WITH ${SOLD_IN_CHUNK},
         copied AS (INSERT INTO declaration_derivation_contributions (declaration_id, version_id, stream, material_code, units, elements, kg)
                    SELECT $6, version_id, stream, material_code, units, elements, kg FROM contributions RETURNING version_id)
         SELECT count(DISTINCT version_id)::int AS versions FROM copied`,
        [scope.clientId, period, scope.mode, range.after, range.until, declarationId],
      );
      products += versions;
    }
    await manager.query(`UPDATE declaration_derivations SET products = $2 WHERE declaration_id = $1`, [declarationId, products]);
    return products;
  }

  /** A derived declaration (any client: the operator's), live only; undefined if not derived. */
  async derivationHead(declarationId: string): Promise<DerivationHeadRow | undefined> {
    const [row]: Omit<DerivationHeadRow, 'revision' | 'receipt'>[] = await this.dataSource.query(
      `SELECT declaration_id AS "declarationId", client_id AS "clientId", period, ${utcText('derived_at')} AS "derivedAt"
         FROM declaration_derivations WHERE declaration_id = $1`,
      [declarationId],
    );
    if (!row) return undefined;
    const [filing] = await this.declarations.filings(row.clientId, [row.declarationId]);
    return filing?.mode === 'live' ? { ...row, revision: filing.revision, receipt: filing.receipt } : undefined;
  }

  /**
   * What a filing per consumer sales unit needs, for one derived declaration: the product versions
   * it used with a reference after `after`, at most `limit`, by reference, each with its units and
   * packaging elements (the versions a filing used never change, so their elements are what was
   * filed). The client's products' index is walked in order and stopped at `limit`.
   */
  async derivationProducts(head: DerivationHeadRow, after: string, limit: number): Promise<FiledProductRow[]> {
    return this.dataSource.query(
      `SELECT p.reference, v.name, v.gtin, v.valid_from AS "validFrom", v.stream, v.units::text AS units,
              (SELECT json_agg(json_build_object('material', e.material_code, 'weightG', trim_scale(e.weight_g)::text, 'perUnit', e.per_unit,
                                                 'packagingCategory', e.packaging_category, 'reuseStatus', e.reuse_status) ORDER BY e.position)
                 FROM product_elements e WHERE e.version_id = v.id) AS elements
         FROM products p
         CROSS JOIN LATERAL (SELECT v.id, v.name, v.gtin, v.valid_from, v.stream,
                                    (SELECT max(c.units) FROM declaration_derivation_contributions c WHERE c.declaration_id = $1 AND c.version_id = v.id) AS units
                               FROM product_versions v WHERE v.product_id = p.id) v
        WHERE p.client_id = $2 AND p.mode = 'live' AND p.reference > $3 AND v.units IS NOT NULL
        ORDER BY p.reference LIMIT $4`,
      [head.declarationId, head.clientId, after, limit],
    );
  }

  /** The latest derived filing of the period, if any. */
  async lastDerivation(
    { clientId, mode }: DataScope,
    period: string,
  ): Promise<{ declarationId: string; revision: number; receipt: string; status: string; derivedAt: string } | undefined> {
    const rows: { declarationId: string; derivedAt: string }[] = await this.dataSource.query(
      `SELECT declaration_id AS "declarationId", ${utcText('derived_at')} AS "derivedAt"
         FROM declaration_derivations WHERE client_id = $1 AND period = $2 ORDER BY derived_at DESC`,
      [clientId, period],
    );
    const filings = new Map(
      (
        await this.declarations.filings(
          clientId,
          rows.map((row) => row.declarationId),
        )
      ).map((f) => [f.id, f]),
    );
    const last = rows.find((row) => filings.get(row.declarationId)?.mode === mode);
    const filing = last && filings.get(last.declarationId)!;
    return last && filing
      ? {
          declarationId: last.declarationId,
          revision: filing.revision,
          receipt: filing.receipt,
          status: filing.status,
          derivedAt: last.derivedAt,
        }
      : undefined;
  }
}
