import type { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import type { DerivedLineRow } from './products.repository.js';

/** A line of a declaration derived from the product catalogue. */
export interface DerivedDeclarationLine {
  stream: string;
  material: string;
  unit: string;
  quantity: number;
}

/** What each `from_products` of the streams data takes from a derived line. */
const FROM_PRODUCTS = {
  /** kg rounded to the gram (half away from zero). */
  mass_kg: (line: DerivedLineRow) => line.kgRounded,
  /** The sales units whose packaging contains the material. */
  units_sold: (line: DerivedLineRow) => line.uvc,
} as const;

/**
 * The lines a derived declaration holds, per material in the stream's order of units: one for each
 * unit the streams data says products derive (`from_products`), none for the others. A stream or a
 * unit added to the data derives without code.
 */
export function derivedDeclarationLines(lines: readonly DerivedLineRow[], catalogue: ReferenceCatalogue): DerivedDeclarationLine[] {
  return lines.flatMap((line) =>
    catalogue.unitsFor(line.stream).flatMap((unit) => {
      const from = catalogue.unit(unit)?.from_products;
      return from ? [{ stream: line.stream, material: line.materialCode, unit, quantity: Number(FROM_PRODUCTS[from](line)) }] : [];
    }),
  );
}

/** Whether the stream's declarations count the sales units of each material (a unit derived as `units_sold`). */
export const countsUnitsSold = (catalogue: ReferenceCatalogue, stream: string): boolean =>
  catalogue.unitsFor(stream).some((unit) => catalogue.unit(unit)?.from_products === 'units_sold');
