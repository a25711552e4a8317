import type { DerivedLineRow } from './products.repository.js';

/** A product of a file: its stream, its packaging elements and its units sold in the half-year (whole number as text). */
export interface CountedProduct {
  stream: string;
  units: string;
  elements: readonly { materialCode: string; weightG: string; perUnit: number }[];
}

const MICRO = 1_000_000n;

/** Grams with at most three decimals (the catalogue's rule) as milligrams. */
function milligrams(weightG: string): bigint {
  const [int = '0', frac = ''] = weightG.split('.');
  return BigInt(int) * 1000n + BigInt(frac.padEnd(3, '0').slice(0, 3) || '0');
}

/** A whole number of millionths as decimal text, trailing zeros trimmed. */
function decimal(value: bigint, scale: bigint, places: number): string {
  const int = value / scale;
  const frac = (value % scale).toString().padStart(places, '0').replace(/0+$/, '');
  return frac === '' ? int.toString() : `${int}.${frac}`;
}

/**
 * The derived declaration's lines, as products.repository.ts's derivedLines computes them in
 * PostgreSQL from a stored catalogue, here from products held in memory (a per-product file):
 * per stream and material, kg = Σ units × per unit × grams / 1000 (exact, in integers) and rounded to
 * the gram half away from zero; uvc = Σ units of the products whose packaging holds the material;
 * the stream's units sold = Σ units of its products, each once. In stream then material order.
 */
export function deriveLines(products: readonly CountedProduct[]): DerivedLineRow[] {
  const lines = new Map<string, { stream: string; materialCode: string; micro: bigint; uvc: bigint; products: number }>();
  const sold = new Map<string, bigint>();
  for (const product of products) {
    const units = BigInt(product.units);
    sold.set(product.stream, (sold.get(product.stream) ?? 0n) + units);
    const seen = new Set<string>();
    for (const element of product.elements) {
      const key = `${product.stream}\u0000${element.materialCode}`;
      let line = lines.get(key);
      if (!line) lines.set(key, (line = { stream: product.stream, materialCode: element.materialCode, micro: 0n, uvc: 0n, products: 0 }));
      // grams × 1000 = milligrams; kg = mg / 10^6.
      line.micro += units * BigInt(element.perUnit) * milligrams(element.weightG);
      if (!seen.has(key)) {
        seen.add(key);
        line.uvc += units;
        line.products++;
      }
    }
  }
  return [...lines.values()]
    .sort((a, b) => (a.stream === b.stream ? (a.materialCode < b.materialCode ? -1 : 1) : a.stream < b.stream ? -1 : 1))
    .map((line) => ({
      stream: line.stream,
      materialCode: line.materialCode,
      kg: decimal(line.micro, MICRO, 6),
      kgRounded: decimal(((line.micro + 500n) / 1000n) * 1000n, MICRO, 6),
      uvc: line.uvc.toString(),
      unitsSold: (sold.get(line.stream) ?? 0n).toString(),
      products: line.products,
    }));
}
