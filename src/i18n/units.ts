/**
 * How each unit of the reference data is written after a number: its `symbol` and `intl_unit`, read
 * once from `reference-data/streams.yaml` when the code loads (as glossary.ts reads the glossary), so
 * a unit added to the data is written right in every page, e-mail and message without code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../common/repo-root.js';

export interface UnitWriting {
  symbol: string;
  /** `Intl.NumberFormat`'s unit (`kilogram`), which writes the symbol and its space the language's way; null: symbol after a no-break space. */
  intlUnit: string | null;
}

/**
 * The top-level `units:` block of a streams file, up to the next top-level key: parsing it alone takes a
 * twentieth of the whole file's 0.12 s, paid by every process at load.
 */
const UNITS_BLOCK = /^units:.*\n(?:(?:[- \t#].*)?\n)*/m;

/** The writing of each unit of a streams file (its `units`); a unit without a symbol is left out. */
export function readUnitWritings(text: string): ReadonlyMap<string, UnitWriting> {
  const data = parse(UNITS_BLOCK.exec(text)?.[0] ?? '') as { units?: { code?: unknown; symbol?: unknown; intl_unit?: unknown }[] } | null;
  const units = new Map<string, UnitWriting>();
  for (const unit of data?.units ?? []) {
    if (typeof unit.code === 'string' && typeof unit.symbol === 'string')
      units.set(unit.code, { symbol: unit.symbol, intlUnit: typeof unit.intl_unit === 'string' ? unit.intl_unit : null });
  }
  return units;
}

export const UNIT_WRITINGS = readUnitWritings(readFileSync(join(REPO_ROOT, 'reference-data', 'streams.yaml'), 'utf8'));
