import type { DerivedLineRow } from './products.repository.js';

/** A product of a file: its stream, its packaging elements and its units sold in the half-year (whole number as text). */
export interface CountedProduct {
  stream: string;
  units: string;
  elements: readonly { materialCode: string; weightG: string; perUnit: number }[];
}

const MICRO = 1_000_000n;

/** A whole number the rules bound (units sold ≤ 10^12, per unit ≤ 10^4, milligrams ≤ 10^10) as a double, exact. */
function safe(value: number): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is past the bounds of the catalogue's rules`);
  return value;
}

/** Grams with at most three decimals (the catalogue's rule) as milligrams. */
function milligrams(weightG: string): number {
  const point = weightG.indexOf('.');
  if (point === -1) return safe(Number(weightG) * 1000);
  return safe(Number(weightG.slice(0, point)) * 1000 + Number(weightG.slice(point + 1, point + 4).padEnd(3, '0')));
}

/** a × b × c, exact: a double while it is a safe integer, else a bigint. */
function times(a: number, b: number, c: number): number | bigint {
  const product = a * b * c;
  return Number.isSafeInteger(a * b) && Number.isSafeInteger(product) ? product : BigInt(a) * BigInt(b) * BigInt(c);
}

/** A sum of whole numbers, exact: in a double while it stays a safe integer, the rest in a bigint. */
class ExactSum {
  private small = 0;
  private big = 0n;

  add(value: number | bigint): void {
    if (typeof value === 'number' && Number.isSafeInteger(this.small + value)) this.small += value;
    else this.big += BigInt(value);
  }

  value(): bigint {
    return BigInt(this.small) + this.big;
  }
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
  type Line = { stream: string; materialCode: string; micro: ExactSum; uvc: ExactSum; products: number; lastProduct: number };
  // Per stream, per material: found without making a key per element.
  const streams = new Map<string, { sold: ExactSum; lines: Map<string, Line> }>();
  products.forEach((product, index) => {
    const units = safe(Number(product.units));
    let stream = streams.get(product.stream);
    if (!stream) streams.set(product.stream, (stream = { sold: new ExactSum(), lines: new Map() }));
    stream.sold.add(units);
    for (const element of product.elements) {
      let line = stream.lines.get(element.materialCode);
      if (!line) {
        line = {
          stream: product.stream,
          materialCode: element.materialCode,
          micro: new ExactSum(),
          uvc: new ExactSum(),
          products: 0,
          lastProduct: -1,
        };
        stream.lines.set(element.materialCode, line);
      }
      // grams × 1000 = milligrams; kg = mg / 10^6.
      line.micro.add(times(units, safe(element.perUnit), milligrams(element.weightG)));
      // The product's units once per material, however many of its elements are of it.
      if (line.lastProduct !== index) {
        line.lastProduct = index;
        line.uvc.add(units);
        line.products++;
      }
    }
  });
  return [...streams.values()]
    .flatMap((stream) => [...stream.lines.values()])
    .sort((a, b) => (a.stream === b.stream ? (a.materialCode < b.materialCode ? -1 : 1) : a.stream < b.stream ? -1 : 1))
    .map((line) => {
      const micro = line.micro.value();
      return {
        stream: line.stream,
        materialCode: line.materialCode,
        kg: decimal(micro, MICRO, 6),
        kgRounded: decimal(((micro + 500n) / 1000n) * 1000n, MICRO, 6),
        uvc: line.uvc.value().toString(),
        unitsSold: streams.get(line.stream)!.sold.value().toString(),
        products: line.products,
      };
    });
}
