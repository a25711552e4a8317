import type { SnapshotQuery } from '../database/streamed-query.js';

// What other modules may read of the product tables, in their own snapshot: the operator's exports
// list the products a derived declaration used. The versions a filing used never change (products/
// refuses to replace them; foreign keys RESTRICT their deletion), so what is read is what was filed.

/** One packaging element of a product version a derived declaration used. */
export interface ProductElementRow {
  reference: string;
  name: string;
  gtin: string | null;
  validFrom: string;
  stream: string;
  /** Units sold in the period (whole number as text). */
  units: string;
  position: number;
  materialCode: string;
  /** Grams of one element, exact, trailing zeros trimmed. */
  weightG: string;
  perUnit: number;
  /** units × per_unit × grams / 1000, exact (up to 6 decimals), trailing zeros trimmed. */
  kg: string;
  packagingCategory: string | null;
  reuseStatus: string | null;
}

/** Product versions read per statement: at most 100 × 20 elements in the process, and no statement sorts more. */
export const PRODUCTS_PER_CHUNK = 100;

/**
 * The packaging elements of the product versions the derived declaration `$1` of the client `$2`
 * used, for the products with a reference after `$3`, at most `$4` of them: one row per element (by
 * reference, then position; a version without elements gives one row with a null position). The
 * client's products' index is walked in order and stopped at `$4`, so that no statement sorts the
 * whole catalogue (as the operator's derivation). Units are the same on every contribution of a
 * version (one per material): max() takes them once. kg multiplies by 0.001 rather than dividing by
 * 1000: numeric multiplication is exact.
 */
const PRODUCT_ELEMENTS_CHUNK = `
  WITH used AS (
    SELECT p.reference, v.id, v.name, v.gtin, v.valid_from, v.stream, v.units
      FROM products p
      CROSS JOIN LATERAL (SELECT v.id, v.name, v.gtin, v.valid_from, v.stream,
                                 (SELECT max(c.units) FROM declaration_derivation_contributions c WHERE c.declaration_id = $1 AND c.version_id = v.id) AS units
                            FROM product_versions v WHERE v.product_id = p.id) v
     WHERE p.client_id = $2 AND p.mode = 'live' AND p.reference > $3 AND v.units IS NOT NULL
     ORDER BY p.reference LIMIT $4)
  SELECT u.reference, u.name, u.gtin, u.valid_from AS "validFrom", u.stream, u.units::text AS units, e.position,
         e.material_code AS "materialCode", trim_scale(e.weight_g)::text AS "weightG", e.per_unit AS "perUnit",
         trim_scale(u.units * e.per_unit * e.weight_g * 0.001)::text AS kg,
         e.packaging_category AS "packagingCategory", e.reuse_status AS "reuseStatus"
    FROM used u
    LEFT JOIN product_elements e ON e.version_id = u.id
   ORDER BY u.reference, e.position`;

/** A row of PRODUCT_ELEMENTS_CHUNK. */
type ChunkRow = Omit<ProductElementRow, 'position'> & { position: number | null };

/**
 * The packaging elements of the product versions the derived declaration `declarationId` of the
 * client `clientId` used, by reference then position, read PRODUCTS_PER_CHUNK products a statement
 * in the snapshot of `query`. Returns whether it found any element at all.
 */
export async function* usedProductElements(
  query: SnapshotQuery,
  declarationId: string,
  clientId: string,
): AsyncGenerator<ProductElementRow, boolean> {
  let after = '';
  let any = false;
  for (;;) {
    const rows = await query<ChunkRow>(PRODUCT_ELEMENTS_CHUNK, [declarationId, clientId, after, PRODUCTS_PER_CHUNK]);
    let products = 0;
    for (const row of rows) {
      if (row.reference !== after) {
        products++;
        after = row.reference;
      }
      if (row.position === null) continue;
      any = true;
      yield row as ProductElementRow;
    }
    if (products < PRODUCTS_PER_CHUNK) return any;
  }
}
