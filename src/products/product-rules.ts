import { Injectable } from '@nestjs/common';
import { isExactNumber } from '../common/http/json-body.js';
import { escapePointer } from '../common/problem/json-pointer.js';
import type { FieldError, FieldErrorParams } from '../common/problem/problem.js';
import { sha256Hex } from '../declarations/canonical-json.js';
import { type ExactDecimal, exactDecimal } from '../declarations/declaration-validator.js';
import { parsePeriod, periodOf, type Period } from '../calendar/half-year.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';

/** Bounds of one upload (documented in the OpenAPI description of the request bodies). */
export const MAX_PRODUCTS = 1000;
/**
 * Packaging elements of one product version. A sales unit's packaging is a handful of parts
 * (bottle, cap, capsule, label, carton, insert, film: under ten for most goods, about fifteen for
 * a gift box); 20 leaves room, and identical parts are one element with their number per unit.
 * Every derived figure costs products × elements: this bound and the catalogue's keep it finite.
 */
export const MAX_ELEMENTS = 20;
export const MAX_SALES = 10_000;

/**
 * Bounds of a client's catalogue, per mode (live and the sandbox's test data each have their own).
 *
 * Products: a producer's or a marketplace seller's consumer references that it places on the
 * French market under its own name are counted in hundreds to a few thousands for most, and a large
 * seller's in thousands (an order of magnitude, not a published figure); 10,000 references leaves
 * that room, and equals the sales one request can record. Beyond it, the catalogue is no longer the
 * tool: a declaration is filed per material directly (POST /api/v1/declarations, or its
 * spreadsheet), which no catalogue bound limits.
 *
 * Versions: one per half-year the packaging changes from; 20 is ten years of a change every
 * half-year. With MAX_ELEMENTS, a derived declaration reads at most 10,000 × 20 = 200,000 packaging
 * elements, computed in chunks (products.repository.ts) so that no request holds the process.
 */
export const MAX_CATALOGUE_PRODUCTS = 10_000;
export const MAX_VERSIONS_PER_PRODUCT = 20;
export const MAX_REFERENCE_LENGTH = 64;
export const MAX_NAME_LENGTH = 200;
/** Grams of one element: more than zero, at most 10 tonnes, to the milligram (3 decimals). */
export const MAX_WEIGHT_G = 10_000_000;
/** The lightest element: a milligram (weights are kept to the milligram). */
export const MIN_WEIGHT_G = 0.001;
export const WEIGHT_DECIMALS = 3;
export const MAX_PER_UNIT = 10_000;
/** Units of one product in one half-year, as a declaration line's quantity. */
export const MAX_UNITS = 1e12;

const PRODUCT_FIELDS = ['reference', 'name', 'stream', 'gtin', 'valid_from', 'elements'];
const ELEMENT_FIELDS = ['material', 'weight_g', 'per_unit', 'packaging_category', 'reuse_status'];
const SALE_FIELDS = ['reference', 'units'];
const CONTROL_CHARACTER = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface ValidElement {
  materialCode: string;
  /** Exact decimal text, e.g. `"410.5"`. */
  weightG: string;
  perUnit: number;
  packagingCategory: string | null;
  reuseStatus: string | null;
}

export interface ValidProduct {
  reference: string;
  name: string;
  stream: string;
  gtin: string | null;
  validFrom: string;
  elements: ValidElement[];
}

/** SHA-256 of a product version's canonical content: equal = nothing to change. */
export function contentHashOf(product: ValidProduct): string {
  // Strings, numbers and nulls only: their canonical JSON is JSON.stringify's.
  const { name, stream, gtin, elements } = product;
  return sha256Hex(
    JSON.stringify([name, stream, gtin, elements.map((e) => [e.materialCode, e.weightG, e.perUnit, e.packagingCategory, e.reuseStatus])]),
  );
}

export interface ValidSale {
  reference: string;
  /** Whole number as text. */
  units: string;
}

export type RulesResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const typeName = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : isExactNumber(value) ? 'number' : typeof value;
const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

type Fail = (pointer: string, code: string, detail: string, params?: FieldErrorParams) => void;

/** A short plain decimal (`45.5`, `0.125`, `45.50`, `410`): what most weights are. */
const SHORT_DECIMAL = /^(?:0|[1-9]\d{0,8})(?:\.\d{1,9})?$/;

/** exactDecimal's reading of a number's text, a short plain decimal read without its general case (nor an allocation when it is canonical). */
export function exactNumber(text: string): ExactDecimal {
  if (!SHORT_DECIMAL.test(text)) return exactDecimal(text);
  const point = text.indexOf('.');
  if (point === -1) return { negative: false, overMaximum: false, decimals: 0, text };
  let end = text.length;
  while (text.charCodeAt(end - 1) === 0x30) end--;
  if (end === point + 1) end = point;
  return {
    negative: false,
    overMaximum: false,
    decimals: Math.max(0, end - point - 1),
    text: end === text.length ? text : text.slice(0, end),
  };
}

/** `/products/3/elements/1/weight_g` → product 4, element 2, field `weight_g` (for a message in a person's language). */
function positionOf(pointer: string): { line?: number; element?: number; field?: string } {
  const parts = pointer.split('/').slice(1);
  const position: { line?: number; element?: number; field?: string } = {};
  if (parts[1] !== undefined && /^\d+$/.test(parts[1])) position.line = Number(parts[1]) + 1;
  if (parts[2] === 'elements' && parts[3] !== undefined) position.element = Number(parts[3]) + 1;
  const field = parts.at(-1);
  if (field !== undefined && !/^\d+$/.test(field)) position.field = field;
  return position;
}

/** GS1's check digit (GTIN-8, -12, -13, -14): from the right, weights 3, 1, 3, … on the digits before it. */
export function gtinCheckDigitOk(gtin: string): boolean {
  const digits = [...gtin].map(Number);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce((total, digit, index) => total + digit * (index % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/**
 * The rules of a product catalogue upload and of a sales upload, on the raw parsed JSON body (every
 * problem at once, each with a JSON pointer and a stable code). Pure: the reference data comes in.
 */
@Injectable()
export class ProductRules {
  readonly earliestYear: number;

  constructor(private readonly catalogue: ReferenceCatalogue) {
    this.earliestYear = Math.min(...catalogue.streamCodes().map((code) => Number(catalogue.stream(code)!.declarable_from.slice(0, 4))));
  }

  products(body: unknown): RulesResult<ValidProduct[]> {
    const errors: FieldError[] = [];
    const fail: Fail = (pointer, code, detail, params = {}) =>
      errors.push({ pointer, code, detail, params: { ...positionOf(pointer), ...params } });
    if (!isPlainObject(body)) {
      fail('', 'invalid_type', `the body must be a JSON object with products, not ${typeName(body)}`, {
        expected: 'object',
        actual: typeName(body),
      });
      return { ok: false, errors };
    }
    for (const key of Object.keys(body)) if (key !== 'products') fail(`/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
    const list = body.products;
    if (list === undefined) fail('/products', 'required', `products is required: 1 to ${MAX_PRODUCTS} products`);
    else if (!Array.isArray(list))
      fail('/products', 'invalid_type', `products must be an array, not ${typeName(list)}`, { expected: 'array', actual: typeName(list) });
    else if (list.length === 0) fail('/products', 'no_products', 'send at least one product', { min: 1 });
    else if (list.length > MAX_PRODUCTS)
      fail('/products', 'too_many_products', `at most ${MAX_PRODUCTS} products per request, not ${list.length}`, {
        max: MAX_PRODUCTS,
        count: list.length,
      });
    if (errors.length > 0 || !Array.isArray(list)) return { ok: false, errors };

    const products = list.map((value, index) => this.product(value, `/products/${index}`, fail));
    const seen = new Map<string, number>();
    products.forEach((product, index) => {
      if (!product) return;
      const key = `${product.reference}\u0000${product.validFrom}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, index);
      else {
        fail(
          `/products/${index}/reference`,
          'duplicate_reference',
          `product ${product.reference} valid from ${product.validFrom} is already product ${first + 1} of this request`,
          {
            value: shown(product.reference),
            other: first + 1,
          },
        );
      }
    });
    if (errors.length > 0) return { ok: false, errors };
    return { ok: true, value: products as ValidProduct[] };
  }

  sales(body: unknown, period: string | undefined, today: string): RulesResult<{ period: string; sales: ValidSale[] }> {
    const errors: FieldError[] = [];
    const fail: Fail = (pointer, code, detail, params = {}) =>
      errors.push({ pointer, code, detail, params: { ...positionOf(pointer), ...params } });
    const checked = this.salesPeriod(period, today, fail);
    if (!isPlainObject(body)) {
      fail('', 'invalid_type', `the body must be a JSON object with sales, not ${typeName(body)}`, {
        expected: 'object',
        actual: typeName(body),
      });
      return { ok: false, errors };
    }
    for (const key of Object.keys(body)) if (key !== 'sales') fail(`/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
    const list = body.sales;
    if (list === undefined) fail('/sales', 'required', `sales is required: 1 to ${MAX_SALES} sales`);
    else if (!Array.isArray(list))
      fail('/sales', 'invalid_type', `sales must be an array, not ${typeName(list)}`, { expected: 'array', actual: typeName(list) });
    else if (list.length === 0) fail('/sales', 'no_products', 'send at least one sale', { min: 1 });
    else if (list.length > MAX_SALES)
      fail('/sales', 'too_many_products', `at most ${MAX_SALES} sales per request, not ${list.length}`, {
        max: MAX_SALES,
        count: list.length,
      });
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_SALES) return { ok: false, errors };

    const sales: (ValidSale | undefined)[] = list.map((value, index) => {
      const at = `/sales/${index}`;
      if (!isPlainObject(value))
        return void fail(at, 'invalid_type', `each sale must be an object with reference and units, not ${typeName(value)}`, {
          expected: 'object',
          actual: typeName(value),
        });
      let ok = true;
      for (const key of Object.keys(value)) {
        if (!SALE_FIELDS.includes(key)) {
          ok = false;
          fail(`${at}/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
        }
      }
      const reference = this.text(value.reference, `${at}/reference`, MAX_REFERENCE_LENGTH, fail);
      const units = this.whole(value.units, `${at}/units`, 0, MAX_UNITS, fail);
      return ok && reference !== undefined && units !== undefined ? { reference, units } : undefined;
    });
    const seen = new Map<string, number>();
    sales.forEach((sale, index) => {
      if (!sale) return;
      const first = seen.get(sale.reference);
      if (first === undefined) seen.set(sale.reference, index);
      else
        fail(
          `/sales/${index}/reference`,
          'duplicate_reference',
          `product ${sale.reference} already has a sale in this request (sale ${first + 1})`,
          { value: shown(sale.reference), other: first + 1 },
        );
    });
    if (errors.length > 0) return { ok: false, errors };
    return { ok: true, value: { period: checked!.code, sales: sales as ValidSale[] } };
  }

  /** A half-year that has started (sales are counted, not forecast). */
  private salesPeriod(value: string | undefined, today: string, fail: Fail): Period | undefined {
    if (value === undefined) return void fail('/query/period', 'required', 'period is required in the address: ?period=2026-S1');
    const period = parsePeriod(value);
    if (!period)
      return void fail('/query/period', 'invalid_period_format', 'period must be a half-year written YYYY-S1 or YYYY-S2', {
        value: shown(value),
      });
    if (period.year < this.earliestYear)
      return void fail('/query/period', 'period_too_early', `the service accepts periods from ${this.earliestYear}-S1`, {
        earliest: `${this.earliestYear}-S1`,
      });
    if (period.start > today) {
      return void fail('/query/period', 'period_not_started', `${period.code} has not started: it opens on ${period.start}`, {
        period: period.code,
        start: period.start,
        current: periodOf(today).code,
      });
    }
    return period;
  }

  private product(value: unknown, at: string, fail: Fail): ValidProduct | undefined {
    if (!isPlainObject(value)) {
      return void fail(
        at,
        'invalid_type',
        `each product must be an object with reference, name, stream, valid_from and elements, not ${typeName(value)}`,
        { expected: 'object', actual: typeName(value) },
      );
    }
    let complete = true;
    const bad: Fail = (pointer, code, detail, params) => {
      complete = false;
      fail(pointer, code, detail, params);
    };
    for (const key of Object.keys(value))
      if (!PRODUCT_FIELDS.includes(key)) bad(`${at}/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
    const reference = this.text(value.reference, `${at}/reference`, MAX_REFERENCE_LENGTH, bad);
    const name = this.text(value.name, `${at}/name`, MAX_NAME_LENGTH, bad);
    const stream = this.stream(value.stream, `${at}/stream`, bad);
    const gtin = this.gtin(value.gtin, `${at}/gtin`, bad);
    const validFrom = this.validFrom(value.valid_from, `${at}/valid_from`, bad);
    const elements = this.elements(value.elements, `${at}/elements`, stream, bad);
    if (
      !complete ||
      reference === undefined ||
      name === undefined ||
      stream === undefined ||
      gtin === undefined ||
      validFrom === undefined ||
      !elements
    )
      return undefined;
    return { reference, name, stream, gtin, validFrom, elements };
  }

  /** Trimmed one-line text of 1 to `max` characters. */
  private text(value: unknown, at: string, max: number, bad: Fail): string | undefined {
    if (value === undefined) return void bad(at, 'required', `${at.split('/').at(-1)} is required`);
    if (typeof value !== 'string')
      return void bad(at, 'invalid_type', `must be a string, not ${typeName(value)}`, { expected: 'string', actual: typeName(value) });
    const text = value.trim();
    if (text === '') return void bad(at, 'invalid_text', 'must not be empty', { reason: 'empty' });
    // Characters are code points: never more than the UTF-16 length, counted only past it.
    const length = text.length > max ? [...text].length : text.length;
    if (length > max)
      return void bad(at, 'invalid_text', `must be at most ${max} characters, not ${length}`, { reason: 'too_long', max, length });
    if (CONTROL_CHARACTER.test(text) || LONE_SURROGATE.test(text))
      return void bad(at, 'invalid_text', 'must be one line of text without control or invisible format characters', {
        reason: 'characters',
      });
    return text;
  }

  private stream(value: unknown, at: string, bad: Fail): string | undefined {
    if (value === undefined) return void bad(at, 'required', 'stream is required');
    if (typeof value !== 'string')
      return void bad(at, 'invalid_type', `stream must be a string, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
      });
    if (!this.catalogue.stream(value)) {
      return void bad(at, 'unknown_stream', `"${value}" is not a published stream; streams: ${this.catalogue.streamCodes().join(', ')}`, {
        value: shown(value),
        streams: this.catalogue.streamCodes(),
      });
    }
    return value;
  }

  /** null when absent; the digits of a GTIN-8, -12, -13 or -14 with a right check digit. */
  private gtin(value: unknown, at: string, bad: Fail): string | null | undefined {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string')
      return void bad(at, 'invalid_type', `gtin must be a string of digits, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
      });
    const gtin = value.trim();
    if (!/^(\d{8}|\d{12,14})$/.test(gtin))
      return void bad(at, 'invalid_gtin', 'a GTIN is 8, 12, 13 or 14 digits (EAN-13: 13 digits)', { reason: 'format', value: shown(gtin) });
    if (!gtinCheckDigitOk(gtin))
      return void bad(at, 'invalid_gtin', `the check digit of ${gtin} is wrong: check the number on the barcode`, {
        reason: 'check_digit',
        value: gtin,
      });
    return gtin;
  }

  private validFrom(value: unknown, at: string, bad: Fail): string | undefined {
    if (value === undefined)
      return void bad(at, 'required', 'valid_from is required: the half-year this packaging applies from, e.g. "2026-S1"');
    if (typeof value !== 'string')
      return void bad(at, 'invalid_type', `valid_from must be a string, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
      });
    const period = parsePeriod(value);
    if (!period)
      return void bad(at, 'invalid_period_format', 'valid_from must be a half-year written YYYY-S1 or YYYY-S2, e.g. "2026-S1"', {
        value: shown(value),
      });
    if (period.year < this.earliestYear)
      return void bad(at, 'period_too_early', `the service accepts periods from ${this.earliestYear}-S1`, {
        earliest: `${this.earliestYear}-S1`,
      });
    return period.code;
  }

  private elements(value: unknown, at: string, stream: string | undefined, bad: Fail): ValidElement[] | undefined {
    if (value === undefined) return void bad(at, 'required', 'elements is required: the packaging elements of one unit');
    if (!Array.isArray(value))
      return void bad(at, 'invalid_type', `elements must be an array, not ${typeName(value)}`, {
        expected: 'array',
        actual: typeName(value),
      });
    if (value.length === 0) return void bad(at, 'no_elements', 'a product has at least one packaging element', { min: 1 });
    if (value.length > MAX_ELEMENTS)
      return void bad(at, 'too_many_elements', `a product has at most ${MAX_ELEMENTS} packaging elements, not ${value.length}`, {
        max: MAX_ELEMENTS,
        count: value.length,
      });
    const elements = value.map((element, index) => this.element(element, `${at}/${index}`, stream, bad));
    return elements.every((element) => element !== undefined) ? elements : undefined;
  }

  private element(value: unknown, at: string, stream: string | undefined, bad: Fail): ValidElement | undefined {
    if (!isPlainObject(value)) {
      return void bad(at, 'invalid_type', `each element must be an object with material, weight_g and per_unit, not ${typeName(value)}`, {
        expected: 'object',
        actual: typeName(value),
      });
    }
    let complete = true;
    const mark: Fail = (pointer, code, detail, params) => {
      complete = false;
      bad(pointer, code, detail, params);
    };
    for (const key of Object.keys(value))
      if (!ELEMENT_FIELDS.includes(key)) mark(`${at}/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
    const material = this.material(value.material, `${at}/material`, stream, mark);
    const weightG = this.weight(value.weight_g, `${at}/weight_g`, mark);
    const perUnit = value.per_unit === undefined ? '1' : this.whole(value.per_unit, `${at}/per_unit`, 1, MAX_PER_UNIT, mark);
    const packagingCategory = this.packagingClass(value.packaging_category, `${at}/packaging_category`, stream, 'packaging_category', mark);
    const reuseStatus = this.packagingClass(value.reuse_status, `${at}/reuse_status`, stream, 'reuse_status', mark);
    if (
      !complete ||
      material === undefined ||
      weightG === undefined ||
      perUnit === undefined ||
      packagingCategory === undefined ||
      reuseStatus === undefined
    )
      return undefined;
    return { materialCode: material, weightG, perUnit: Number(perUnit), packagingCategory, reuseStatus };
  }

  /** The code of the stream's published material category the text names (by code, French or English name). */
  private material(value: unknown, at: string, stream: string | undefined, bad: Fail): string | undefined {
    if (value === undefined) return void bad(at, 'required', 'material is required');
    if (typeof value !== 'string')
      return void bad(at, 'invalid_type', `material must be a string, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
      });
    if (stream === undefined) return undefined;
    const material = this.catalogue.materialFor(stream, value);
    if (!material) {
      const published = this.catalogue.stream(stream)!.materials;
      return void bad(
        at,
        'unknown_material',
        `"${shown(value.trim())}" is not a material category of ${stream}; categories: ${published.map((m) => m.code).join(', ')} (see /api/v1/streams.json)`,
        {
          value: shown(value.trim()),
          stream,
          allowed: published.map((m) => ({ fr: m.name.fr, en: m.name.en })),
        },
      );
    }
    return material.code;
  }

  /** Grams as exact decimal text: > 0, ≤ MAX_WEIGHT_G, at most WEIGHT_DECIMALS decimals. */
  private weight(value: unknown, at: string, bad: Fail): string | undefined {
    if (value === undefined) return void bad(at, 'required', 'weight_g is required: the weight of one element in grams');
    if ((typeof value !== 'number' || !Number.isFinite(value)) && !isExactNumber(value)) {
      return void bad(
        at,
        'invalid_weight',
        `weight_g must be a JSON number of grams, not ${typeof value === 'string' ? 'a string (send the number without quotes)' : typeName(value)}`,
        { reason: 'not_a_number' },
      );
    }
    const exact = exactNumber(String(value));
    if (exact.negative || exact.text === '0')
      return void bad(at, 'invalid_weight', 'weight_g must be more than 0 grams', { reason: 'not_positive' });
    if (exact.overMaximum || (exact.text !== '' && Number(exact.text) > MAX_WEIGHT_G))
      return void bad(at, 'invalid_weight', `weight_g must be at most ${MAX_WEIGHT_G} grams (10 tonnes)`, {
        reason: 'too_large',
        max: MAX_WEIGHT_G,
      });
    // Below a milligram (1e-999999999 too: too many decimals to write out, never too large).
    if (exact.text === '' || Number(exact.text) < MIN_WEIGHT_G) {
      return void bad(at, 'invalid_weight', `weight_g must be at least ${MIN_WEIGHT_G} grams (a milligram)`, {
        reason: 'too_small',
        min: MIN_WEIGHT_G,
      });
    }
    if (exact.decimals > WEIGHT_DECIMALS) {
      return void bad(
        at,
        'weight_too_precise',
        `weight_g has at most ${WEIGHT_DECIMALS} decimals (to the milligram), not ${exact.decimals}`,
        { decimals: WEIGHT_DECIMALS, actual: exact.decimals },
      );
    }
    return exact.text;
  }

  /** A whole number from `min` to `max`, as text. */
  private whole(value: unknown, at: string, min: number, max: number, bad: Fail): string | undefined {
    if (value === undefined) return void bad(at, 'required', `${at.split('/').at(-1)} is required`);
    if ((typeof value !== 'number' || !Number.isFinite(value)) && !isExactNumber(value)) {
      return void bad(at, 'invalid_count', `must be a whole number from ${min} to ${max}, not ${typeName(value)}`, { min, max });
    }
    const exact = exactDecimal(String(value));
    if (exact.negative || exact.decimals > 0 || exact.text === '' || Number(exact.text) < min || Number(exact.text) > max) {
      return void bad(at, 'invalid_count', `must be a whole number from ${min} to ${max}`, { min, max });
    }
    return exact.text;
  }

  /** For a stream that publishes them (EPRO): required and one of the published codes; for others: absent (null). */
  private packagingClass(
    value: unknown,
    at: string,
    stream: string | undefined,
    kind: 'packaging_category' | 'reuse_status',
    bad: Fail,
  ): string | null | undefined {
    if (stream === undefined) return undefined;
    const published = kind === 'packaging_category' ? this.catalogue.packagingCategories(stream) : this.catalogue.reuseStatuses(stream);
    if (published.length === 0) {
      if (value === undefined || value === null) return null;
      return void bad(at, 'not_applicable', `${stream} publishes no ${kind.replace('_', ' ')}: leave it out`, { stream });
    }
    const codes = published.map((c) => c.code);
    if (value === undefined || value === null)
      return void bad(at, 'required', `${kind} is required for ${stream}: one of ${codes.join(', ')}`, { allowed: codes });
    if (typeof value !== 'string' || !codes.includes(value)) {
      return void bad(
        at,
        kind === 'packaging_category' ? 'unknown_packaging_category' : 'unknown_reuse_status',
        `${kind} must be one of ${codes.join(', ')} for ${stream}`,
        {
          value: typeof value === 'string' ? shown(value) : typeName(value),
          allowed: codes,
          stream,
        },
      );
    }
    return value;
  }
}
