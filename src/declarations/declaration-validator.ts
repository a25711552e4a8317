import { Injectable } from '@nestjs/common';
import { isExactNumber } from '../common/http/json-body.js';
import type { FieldError, FieldErrorParams } from '../common/problem/problem.js';
import { escapePointer } from '../common/problem/json-pointer.js';
import type { LocalizedName, StreamUnit, UnitRequirement } from '../reference/reference-documents.js';
import { foldText, ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { canonicalJson, sha256Hex } from './canonical-json.js';
import { parsePeriod, periodOf, type Period } from '../calendar/half-year.js';

/** Bounds of a declaration (documented in the OpenAPI description of the request body). */
export const MIN_LINES = 1;
export const MAX_LINES = 1000;
export const MAX_MATERIAL_LENGTH = 120;
export const MAX_QUANTITY = 1e12;
/** Past this many, the list of problems is cut (a 1 MiB body can hold hundreds of thousands of mistakes). */
export const MAX_REPORTED_ERRORS = 1000;
/** How many other lines of a duplicate group its problem names. */
const NAMED_DUPLICATES = 5;

const BODY_FIELDS = ['period', 'lines', 'units_sold'];
const LINE_FIELDS = ['stream', 'material', 'unit', 'quantity'];
const UNITS_SOLD_FIELDS = ['stream', 'quantity'];
/** At most this many `units_sold` entries (one per stream; far more than the published streams). */
export const MAX_UNITS_SOLD = 20;
// C0/C1 controls (DEL included), invisible format characters (U+200B, U+202E…) and line/paragraph
// separators: a material is one line of text that reads as what it is.
const CONTROL_CHARACTER = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
// Half of a UTF-16 surrogate pair: JSON allows it (`"\ud800"`), text in the database cannot hold it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A line that passed every rule, normalised as it is stored. */
export interface ValidLine {
  stream: string;
  /** Trimmed. */
  material: string;
  /** The published material category the material names, if any. */
  materialCode: string | null;
  unit: StreamUnit;
  /** Exact decimal text of the quantity (the JSON number's shortest form, e.g. `"0.1"`). */
  quantity: string;
}

export interface ValidDeclaration {
  period: string;
  /** The reference catalogue version the declaration was validated against. */
  catalogueVersion: number;
  lines: ValidLine[];
  /** The consumer sales units stated per stream (a whole number as decimal text), in stream order; empty when not stated. */
  unitsSold: ValidUnitsSold[];
  /** SHA-256 of the canonical lines and units sold, independent of their order: equal hashes = identical content. */
  contentHash: string;
  /** `declarationIdentity` of its lines and units sold: equal for the same figures however written. */
  identityHash: string;
}

/** The consumer sales units of one stream, as stated. */
export interface ValidUnitsSold {
  stream: string;
  /** A whole number as decimal text. */
  quantity: string;
}

/** What the rules need to know about the declarant and the moment. */
export interface DeclarantContext {
  /** The account's confirmed streams; null when the profile was never confirmed. */
  confirmedStreams: readonly string[] | null;
  /** Today's date in France, `YYYY-MM-DD`. */
  today: string;
}

export type ValidationResult =
  | { ok: true; declaration: ValidDeclaration }
  /** `errors` lists the first MAX_REPORTED_ERRORS of `total` problems. */
  | { ok: false; errors: FieldError[]; total: number };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const fold = foldText;
const typeName = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : isExactNumber(value) ? 'number' : typeof value;

/**
 * The rules of a declaration, on the raw parsed JSON body (so that structure and domain
 * problems are reported together, every one with a JSON pointer and a stable code).
 * Pure: the reference data, the account's streams and today's date come in as inputs.
 */
@Injectable()
export class DeclarationValidator {
  /** Earliest year the service accepts: the year of the earliest `declarable_from` in the streams data. */
  readonly earliestYear: number;
  private readonly knownUnits: Set<string>;

  constructor(private readonly catalogue: ReferenceCatalogue) {
    const streams = catalogue.streamCodes().map((code) => catalogue.stream(code)!);
    this.earliestYear = Math.min(...streams.map((stream) => Number(stream.declarable_from.slice(0, 4))));
    this.knownUnits = new Set(streams.flatMap((stream) => stream.units));
  }

  validate(body: unknown, context: DeclarantContext): ValidationResult {
    const errors: FieldError[] = [];
    const fail: Fail = (pointer, code, detail, params = {}) =>
      errors.push({ pointer, code, detail, params: { ...positionOf(pointer), ...params } });

    if (context.confirmedStreams === null) {
      fail(
        '',
        'account_not_confirmed',
        'your account has not been confirmed yet: declarations are accepted once the operator has confirmed your profile (GET /api/v1/me/obligations answers account_status "pending" until then)',
      );
    }
    if (!isPlainObject(body)) {
      fail('', 'invalid_type', `the body must be a JSON object with period and lines, not ${typeName(body)}`, {
        expected: 'object',
        actual: typeName(body),
      });
      return { ok: false, errors, total: errors.length };
    }
    for (const key of Object.keys(body)) {
      if (!BODY_FIELDS.includes(key)) fail(`/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
    }

    const period = this.checkPeriod(body.period, context.today, fail);
    const lines = this.checkLines(body.lines, period, context, fail);
    const unitsSold = this.checkUnitsSold(body.units_sold, lines, period, context, fail);

    if (errors.length > 0) return { ok: false, errors: errors.slice(0, MAX_REPORTED_ERRORS), total: errors.length };
    let hash: string | undefined;
    let identity: string | undefined;
    return {
      ok: true,
      declaration: {
        period: period!.code,
        catalogueVersion: this.catalogue.catalogueVersion,
        lines: lines!,
        unitsSold: unitsSold!,
        // Worked out when first read: a filing reads it, a check page does not.
        get contentHash() {
          return (hash ??= contentHash(lines!, unitsSold!));
        },
        get identityHash() {
          return (identity ??= declarationIdentity(lines!, unitsSold!));
        },
      },
    };
  }

  private checkPeriod(value: unknown, today: string, fail: Fail): Period | undefined {
    if (value === undefined) return void fail('/period', 'required', 'period is required, e.g. "2025-S1"');
    if (typeof value !== 'string')
      return void fail('/period', 'invalid_type', `period must be a string, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
      });
    const period = parsePeriod(value);
    if (!period) {
      return void fail(
        '/period',
        'invalid_period_format',
        'period must be a half-year written YYYY-S1 (1 Jan–30 Jun) or YYYY-S2 (1 Jul–31 Dec)',
        { value: shown(value) },
      );
    }
    if (period.year < this.earliestYear) {
      fail('/period', 'period_too_early', `the service accepts periods from ${this.earliestYear}-S1`, {
        earliest: `${this.earliestYear}-S1`,
      });
    } else if (period.start > today) {
      fail('/period', 'period_not_started', `${period.code} has not started: it opens on ${period.start}`, {
        period: period.code,
        start: period.start,
        current: periodOf(today).code,
      });
    }
    // Still usable for the per-stream date rule, whatever the outcome above.
    return period;
  }

  private checkLines(value: unknown, period: Period | undefined, context: DeclarantContext, fail: Fail): ValidLine[] | undefined {
    if (value === undefined) return void fail('/lines', 'required', 'lines is required: 1 to 1000 lines');
    if (!Array.isArray(value))
      return void fail('/lines', 'invalid_type', `lines must be an array, not ${typeName(value)}`, {
        expected: 'array',
        actual: typeName(value),
      });
    if (value.length < MIN_LINES)
      return void fail('/lines', 'too_few_lines', `a declaration has at least ${MIN_LINES} line`, { min: MIN_LINES });
    if (value.length > MAX_LINES) {
      fail(
        '/lines',
        'too_many_lines',
        `a declaration has at most ${MAX_LINES} lines, not ${value.length} (only the first ${MAX_LINES} were checked)`,
        { max: MAX_LINES, count: value.length },
      );
    }
    const checked = value.slice(0, MAX_LINES);
    const lines = checked.map((line, index) => this.checkLine(line, `/lines/${index}`, period, context, fail));
    this.checkDuplicates(lines, fail);
    this.checkUnitRequirements(lines, fail);
    return lines.every((line) => line?.complete) ? lines.map((line) => line!.valid) : undefined;
  }

  /**
   * The optional `units_sold`: per stream that has a count unit (`uvc`) and lines in the declaration,
   * once, a whole number of units at least as large as each of the stream's per-material counts (a
   * material's count is the units whose packaging contains it: part of the units sold). Undefined when
   * it has a problem; checked against `lines` only when they are valid.
   */
  private checkUnitsSold(
    value: unknown,
    lines: ValidLine[] | undefined,
    period: Period | undefined,
    context: DeclarantContext,
    fail: Fail,
  ): ValidUnitsSold[] | undefined {
    if (value === undefined) return [];
    if (!Array.isArray(value))
      return void fail('/units_sold', 'invalid_type', `units_sold must be an array, not ${typeName(value)}`, {
        expected: 'array',
        actual: typeName(value),
      });
    let ok = true;
    const bad: Fail = (pointer, code, detail, params) => {
      ok = false;
      fail(pointer, code, detail, params);
    };
    if (value.length > MAX_UNITS_SOLD) {
      bad(
        '/units_sold',
        'too_many_units_sold',
        `units_sold states each stream once: at most ${MAX_UNITS_SOLD} entries, not ${value.length}`,
        {
          max: MAX_UNITS_SOLD,
          count: value.length,
        },
      );
    }
    const seen = new Map<string, number>();
    const result: ValidUnitsSold[] = [];
    value.slice(0, MAX_UNITS_SOLD).forEach((entry: unknown, index) => {
      const at = `/units_sold/${index}`;
      if (!isPlainObject(entry)) {
        return void bad(at, 'invalid_type', `each units_sold entry must be an object with stream and quantity, not ${typeName(entry)}`, {
          expected: 'object',
          actual: typeName(entry),
        });
      }
      for (const key of Object.keys(entry)) {
        if (!UNITS_SOLD_FIELDS.includes(key)) bad(`${at}/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
      }
      const stream = this.checkStream(entry.stream, at, period, context, bad);
      const unit = stream === undefined ? undefined : this.catalogue.countUnitOf(stream);
      if (stream !== undefined && unit === undefined) {
        bad(
          `${at}/stream`,
          'units_sold_not_counted',
          `${stream} is declared in ${this.catalogue.unitsFor(stream).join(', ')} only: it has no count of sales units to state`,
          {
            stream,
            streamName: names(this.catalogue.stream(stream)!.name),
          },
        );
      }
      const quantity = this.checkQuantity(entry.quantity, at, unit ?? 'uvc', bad);
      if (stream === undefined || quantity === undefined) return void (ok = false);
      const first = seen.get(stream);
      if (first !== undefined) {
        return void bad(
          `${at}/stream`,
          'duplicate_units_sold',
          `the units sold of ${stream} are already stated at /units_sold/${first}: state them once per stream`,
          {
            stream,
            other: first + 1,
          },
        );
      }
      seen.set(stream, index);
      if (lines && unit) {
        const counts = lines.filter((line) => line.stream === stream && line.unit === unit);
        if (!lines.some((line) => line.stream === stream)) {
          bad(`${at}/stream`, 'units_sold_without_lines', `the declaration has no line of ${stream}: state its units sold with its lines`, {
            stream,
            streamName: names(this.catalogue.stream(stream)!.name),
          });
        }
        const largest = counts.reduce<ValidLine | undefined>(
          (max, line) => (max && compareDecimal(max.quantity, line.quantity) >= 0 ? max : line),
          undefined,
        );
        if (largest && compareDecimal(quantity, largest.quantity) < 0) {
          bad(
            `${at}/quantity`,
            'units_sold_below_material_count',
            `${quantity} units sold is fewer than the ${largest.quantity} units whose packaging contains "${largest.material}" (line ${lines.indexOf(largest) + 1}): a material's ${unit} line counts part of the units sold, never more`,
            { stream, value: quantity, count: largest.quantity, material: shown(largest.material), line: lines.indexOf(largest) + 1 },
          );
        }
      }
      result.push({ stream, quantity });
    });
    return ok ? result.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0)) : undefined;
  }

  private checkLine(
    value: unknown,
    at: string,
    period: Period | undefined,
    context: DeclarantContext,
    fail: Fail,
  ): CheckedLine | undefined {
    if (!isPlainObject(value)) {
      return void fail(at, 'invalid_type', `each line must be an object with stream, material, unit and quantity, not ${typeName(value)}`, {
        expected: 'object',
        actual: typeName(value),
      });
    }
    let complete = true;
    const bad: Fail = (pointer, code, detail, params) => {
      complete = false;
      fail(pointer, code, detail, params);
    };
    for (const key in value) {
      if (!LINE_FIELDS.includes(key)) bad(`${at}/${escapePointer(key)}`, 'unknown_field', `unknown field "${key}"`);
    }
    const stream = this.checkStream(value.stream, at, period, context, bad);
    const material = this.checkMaterial(value.material, at, bad);
    // Folded once for the rules below: the category lookups, one line per material.
    const folded = material === undefined ? undefined : fold(material);
    if (stream && folded !== undefined) {
      const retired = this.catalogue.retiredMaterialFor(stream, folded, true);
      if (retired) {
        const instead = retired.replaced_by.length ? `; use ${retired.replaced_by.join(', ')}` : '';
        bad(
          `${at}/material`,
          'material_retired',
          `"${retired.code}" left the ${stream} materials in catalogue version ${retired.retired_in_catalogue_version}${instead} (see /api/v1/streams.json)`,
          {
            stream,
            streamName: names(this.catalogue.stream(stream)!.name),
            material: names(retired.name),
            version: retired.retired_in_catalogue_version,
            replacedBy: retired.replaced_by.map((code) => names(this.catalogue.categoryName(stream, code)) ?? { fr: code, en: code }),
          },
        );
      }
    }
    const unit = this.checkUnit(value.unit, at, stream, bad);
    const quantity = this.checkQuantity(value.quantity, at, unit, bad);

    const key =
      typeof value.stream === 'string' && typeof value.unit === 'string' && folded !== undefined
        ? `${value.stream}\u0000${value.unit}\u0000${folded}`
        : undefined;
    const valid: ValidLine = {
      stream: stream!,
      material: material!,
      materialCode: stream && folded ? (this.catalogue.materialFor(stream, folded, true)?.code ?? null) : null,
      unit: unit as StreamUnit,
      quantity: quantity!,
    };
    // One material is one category when it names one (`glass` and `Verre` alike), else its text.
    const group = stream !== undefined && folded !== undefined ? `${stream}\u0000${valid.materialCode ?? folded}` : undefined;
    return { at, key, group, complete: complete && stream !== undefined && unit !== undefined, valid };
  }

  /**
   * The stream code if it is published; the account and date rules are reported but do not hide it. `at`
   * is the line's (or units sold entry's) pointer, as in the next three: a problem points at its field.
   */
  private checkStream(value: unknown, at: string, period: Period | undefined, context: DeclarantContext, bad: Fail): string | undefined {
    if (value === undefined) return void bad(`${at}/stream`, 'required', 'stream is required');
    if (typeof value !== 'string')
      return void bad(`${at}/stream`, 'invalid_type', `stream must be a string, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
      });
    const stream = this.catalogue.stream(value);
    if (!stream) {
      return void bad(
        `${at}/stream`,
        'unknown_stream',
        `"${value}" is not a published stream; streams: ${this.catalogue.streamCodes().join(', ')}`,
        {
          value: shown(value),
          streams: this.catalogue.streamCodes(),
        },
      );
    }
    if (context.confirmedStreams !== null && !context.confirmedStreams.includes(value)) {
      const registered = context.confirmedStreams.length ? context.confirmedStreams.join(', ') : 'none';
      bad(`${at}/stream`, 'stream_not_registered', `the account is not registered for ${value} (registered streams: ${registered})`, {
        stream: value,
        streamName: names(stream.name),
        registered: context.confirmedStreams,
      });
    }
    if (period && period.end < stream.declarable_from) {
      bad(
        `${at}/stream`,
        'stream_not_declarable_for_period',
        `${value} can be declared for periods ending on or after ${stream.declarable_from}, not ${period.code}`,
        {
          stream: value,
          streamName: names(stream.name),
          period: period.code,
          from: stream.declarable_from,
        },
      );
    } else if (period && stream.declarable_until !== null && period.start > stream.declarable_until) {
      const instead = stream.replaced_by ? `: declare ${period.code} under ${stream.replaced_by}` : '';
      bad(
        `${at}/stream`,
        'stream_ended',
        `${value} can be declared for periods starting on or before ${stream.declarable_until}, not ${period.code}${instead}`,
        {
          stream: value,
          streamName: names(stream.name),
          period: period.code,
          until: stream.declarable_until,
          replacedBy: stream.replaced_by,
        },
      );
    }
    return value;
  }

  /** The trimmed material (`at`'s), if acceptable. */
  private checkMaterial(value: unknown, at: string, bad: Fail): string | undefined {
    if (value === undefined) return void bad(`${at}/material`, 'required', 'material is required');
    if (typeof value !== 'string')
      return void bad(`${at}/material`, 'invalid_type', `material must be a string, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
      });
    const material = value.trim();
    // In code points (an emoji is one); never more than the UTF-16 units.
    const length = material.length <= MAX_MATERIAL_LENGTH ? material.length : [...material].length;
    if (length === 0) return void bad(`${at}/material`, 'invalid_material', 'material must not be empty', { reason: 'empty' });
    if (length > MAX_MATERIAL_LENGTH) {
      return void bad(`${at}/material`, 'invalid_material', `material must be at most ${MAX_MATERIAL_LENGTH} characters, not ${length}`, {
        reason: 'too_long',
        max: MAX_MATERIAL_LENGTH,
        length,
      });
    }
    if (CONTROL_CHARACTER.test(material) || LONE_SURROGATE.test(material)) {
      return void bad(
        `${at}/material`,
        'invalid_material',
        'material must be one line of text without control or invisible format characters',
        {
          reason: 'characters',
        },
      );
    }
    return material;
  }

  /** The unit (`at`'s) if it is allowed for the stream (or, for an unknown stream, if it is a published unit at all). */
  private checkUnit(value: unknown, at: string, stream: string | undefined, bad: Fail): string | undefined {
    const allowed: string[] = stream ? this.catalogue.unitsFor(stream) : [...this.knownUnits];
    if (typeof value === 'string' && allowed.includes(value)) return value;
    // What each allowed unit is for, in the streams data's words: a message says which to write.
    const help = allowed.flatMap((code) => names(this.catalogue.unit(code)?.help) ?? []);
    const units = help.length > 0 ? { units: help } : {};
    if (value === undefined) return void bad(`${at}/unit`, 'required', 'unit is required', units);
    if (typeof value !== 'string')
      return void bad(`${at}/unit`, 'invalid_type', `unit must be a string, not ${typeName(value)}`, {
        expected: 'string',
        actual: typeName(value),
        ...units,
      });
    return void bad(
      `${at}/unit`,
      'unit_not_allowed',
      `unit must be ${allowed.map((u) => `"${u}"`).join(' or ')}${stream ? ` for ${stream}` : ''}, not "${value}"`,
      {
        value: shown(value),
        allowed,
        ...units,
        ...(stream ? { stream } : {}),
      },
    );
  }

  /**
   * The exact decimal text of the quantity (`at`'s), if acceptable. Judged on the number as written in the
   * JSON text (a number a double cannot hold arrives as an ExactNumber), so that what is stored is
   * exactly what was sent: `0.0009999999999999999999` is too precise, not 0.001.
   */
  private checkQuantity(value: unknown, at: string, unit: string | undefined, bad: Fail): string | undefined {
    if (value === undefined) return void bad(`${at}/quantity`, 'required', 'quantity is required');
    if (typeof value !== 'number' && !isExactNumber(value)) {
      const what = typeof value === 'string' ? 'a string (send the number without quotes)' : typeName(value);
      return void bad(`${at}/quantity`, 'quantity_not_a_number', `quantity must be a JSON number, not ${what}`, {
        actual: typeName(value),
      });
    }
    // A double's shortest text has the digits that were written (the parser keeps the others as text).
    const quantity =
      Number.isFinite(value) || isExactNumber(value)
        ? exactDecimal(String(value))
        : { negative: (value as number) < 0, overMaximum: true, decimals: 0, text: '' };
    if (quantity.negative) return void bad(`${at}/quantity`, 'quantity_negative', 'quantity must not be negative');
    if (quantity.overMaximum)
      return void bad(`${at}/quantity`, 'quantity_too_large', `quantity must be at most 10^12 (${MAX_QUANTITY})`, { max: MAX_QUANTITY });
    const definition = unit === undefined ? undefined : this.catalogue.unit(unit);
    if (definition && quantity.decimals > definition.decimals) {
      return void bad(
        `${at}/quantity`,
        'quantity_too_precise',
        definition.decimals === 0
          ? `quantity in ${unit} (${definition.name.en}) is a count: it must be a whole number`
          : `quantity in ${unit} has at most ${definition.decimals} decimals`,
        { unit: unit!, decimals: definition.decimals },
      );
    }
    return quantity.text;
  }

  /**
   * One line per (stream, unit, material): one problem per duplicate group, at its first line,
   * naming a few of the others (a problem per line naming every other grew as the square of the group).
   */
  private checkDuplicates(lines: (CheckedLine | undefined)[], fail: Fail): void {
    // Each key's first line, and the other lines of the keys that have some (no array for a line alone).
    const firsts = new Map<string, CheckedLine>();
    const duplicates = new Map<CheckedLine, CheckedLine[]>();
    for (const line of lines) {
      if (!line?.key) continue;
      const first = firsts.get(line.key);
      if (first === undefined) firsts.set(line.key, line);
      else if (duplicates.has(first)) duplicates.get(first)!.push(line);
      else duplicates.set(first, [line]);
    }
    if (duplicates.size === 0) return;
    for (const first of firsts.values()) {
      const others = duplicates.get(first);
      if (others === undefined) continue;
      for (const line of [first, ...others]) line.complete = false;
      const named = others.slice(0, NAMED_DUPLICATES).map((other) => other.at);
      const more = others.length > NAMED_DUPLICATES ? ` and ${others.length - NAMED_DUPLICATES} more lines` : '';
      fail(
        first.at,
        'duplicate_line',
        `same stream, unit and material (compared normalised, ignoring case) as ${named.join(', ')}${more}`,
        {
          lines: others.slice(0, NAMED_DUPLICATES).map((other) => positionOf(other.at).line!),
          more: Math.max(0, others.length - NAMED_DUPLICATES),
        },
      );
    }
  }

  /** The stream's published unit requirements: a line in `unit` needs a line in `requires` for the same material. */
  private checkUnitRequirements(lines: (CheckedLine | undefined)[], fail: Fail): void {
    // The lines a requirement is about (household packaging's kg lines; none in most streams), and what each material has.
    const bound: { line: CheckedLine; requirements: UnitRequirement[] }[] = [];
    for (const line of lines) {
      if (!line?.group || line.valid.unit === undefined) continue;
      const requirements = (this.catalogue.stream(line.valid.stream)?.unit_requirements ?? []).filter((r) => r.unit === line.valid.unit);
      if (requirements.length > 0) bound.push({ line, requirements });
    }
    if (bound.length === 0) return;
    const present = new Set(
      lines.flatMap((line) => (line?.group && line.valid.unit !== undefined ? [`${line.group}\u0000${line.valid.unit}`] : [])),
    );
    for (const { line, requirements } of bound) {
      for (const requirement of requirements) {
        if (present.has(`${line.group}\u0000${requirement.requires}`)) continue;
        line.complete = false;
        const meaning = this.catalogue.unit(requirement.requires)?.name.en ?? requirement.requires;
        fail(
          `${line.at}/unit`,
          'companion_line_missing',
          `${line.valid.stream} needs, for each material declared in ${requirement.unit}, a line in ${requirement.requires} (${meaning}) for the same material: add {"stream": "${line.valid.stream}", "material": ${JSON.stringify(line.valid.material)}, "unit": "${requirement.requires}", "quantity": …}`,
          {
            stream: line.valid.stream,
            streamName: names(this.catalogue.stream(line.valid.stream)!.name),
            unit: requirement.unit,
            requires: requirement.requires,
            material: shown(line.valid.material),
          },
        );
      }
    }
  }
}

type Fail = (pointer: string, code: string, detail: string, params?: FieldErrorParams) => void;

/**
 * Where a pointer of these rules is, for a message in a person's language: `/lines/3/unit` → line 4
 * (counted from 1), field `unit`; `/period` → field `period`; `` → nothing. Only lines have an index.
 */
function positionOf(pointer: string): { line?: number; field?: string } {
  const [, first, index, field] = pointer.split('/');
  // The units sold are no line: they are said by the field alone.
  if (first === 'units_sold') return { field: first };
  if (index !== undefined) return field === undefined ? { line: Number(index) + 1 } : { line: Number(index) + 1, field };
  return first === undefined ? {} : { field: first };
}

/** A name of the reference data, as a message parameter. */
const names = (name: LocalizedName | undefined) => name && { fr: name.fr, en: name.en };

/** A value as a person wrote it, for a message (at most 40 characters). */
const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

interface CheckedLine {
  at: string;
  /** Stream and folded material, when both are usable: the lines of one material of one stream. */
  group: string | undefined;
  /** Identity of the line for the duplicate rule, when stream, unit and material are usable. */
  key: string | undefined;
  complete: boolean;
  valid: ValidLine;
}

/** A JSON number's exact value, from its text. */
export interface ExactDecimal {
  /** Below zero (`-0` is zero). */
  negative: boolean;
  /** Above MAX_QUANTITY (10^12). */
  overMaximum: boolean;
  /** Decimal places of the exact value, trailing zeros aside (`1.50` → 1, `1e-7` → 7). */
  decimals: number;
  /** Plain decimal text without exponent or superfluous zeros (`1.50e3` → `1500`); empty past 30 digits either side. */
  text: string;
}

const SMALL_WHOLE = /^[1-9]\d{0,11}$/;

/** Exact arithmetic on the digits of a JSON number (`-?int(.frac)?(e±exp)?`), never through a double. */
export function exactDecimal(json: string): ExactDecimal {
  // Most quantities: a whole number of at most 12 digits, as written.
  if (SMALL_WHOLE.test(json)) return { negative: false, overMaximum: false, decimals: 0, text: json };
  const [, sign, int, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(json) ?? [];
  if (int === undefined) throw new TypeError(`not a JSON number: ${json}`);
  let digits = int + fraction;
  // The decimal point sits after `point` digits (negative: that many zeros before the digits).
  let point = int.length + Number(exponent);
  const leadingZeros = /^0*/.exec(digits)![0].length;
  digits = digits.slice(leadingZeros).replace(/0+$/, '');
  point -= leadingZeros;
  if (digits === '') return { negative: false, overMaximum: false, decimals: 0, text: '0' };
  const decimals = Math.max(0, digits.length - point);
  const integerDigits = Math.log10(MAX_QUANTITY) + 1;
  const overMaximum = point > integerDigits || (point === integerDigits && digits !== '1');
  let text = '';
  if (Math.abs(point) <= 30 && decimals <= 30) {
    const whole = point <= 0 ? '0' : digits.slice(0, point).padEnd(point, '0');
    const part = point >= 0 ? digits.slice(point) : '0'.repeat(-point) + digits;
    text = part ? `${whole}.${part}` : whole;
  }
  return { negative: sign === '-', overMaximum, decimals, text };
}

/** What a line declares, for comparing declarations: the material by its category when it names one, else its folded text. */
export interface DeclaredLine {
  stream: string;
  unit: string;
  material: string;
  materialCode: string | null;
  /** Exact decimal text, trailing zeros of the decimals allowed (`1200.500`, as PostgreSQL's numeric gives it). */
  quantity: string;
}

/**
 * The same declaration, whichever way its lines came: one material is one identity (its published
 * category: `paper_cardboard`, "Paper and cardboard" and "Papier-carton" alike; an uncategorised
 * material by its folded text), quantities by value, lines in any order. Equal identities = the
 * same figures (and the same units sold): filing them again makes no new revision.
 */
export function declarationIdentity(
  lines: readonly DeclaredLine[],
  unitsSold: readonly { stream: string; quantity: string }[] = [],
): string {
  const canonical = [
    ...lines.map((line) =>
      canonicalJson([
        line.stream,
        line.unit,
        line.materialCode === null ? `text:${foldText(line.material)}` : `category:${line.materialCode}`,
        byValue(line.quantity),
      ]),
    ),
    ...unitsSold.map((entry) => canonicalJson([entry.stream, 'units_sold', byValue(entry.quantity)])),
  ].sort();
  return sha256Hex(`[${canonical.join(',')}]`);
}

/** A decimal text by its value: `1200.500` and `1200.5` alike. */
function byValue(quantity: string): string {
  return quantity.includes('.') ? quantity.replace(/\.?0+$/, '') : quantity;
}

/** The order of two whole or decimal non-negative numbers written as plain decimal text. */
function compareDecimal(a: string, b: string): number {
  const [ai, af = ''] = a.split('.') as [string, string?];
  const [bi, bf = ''] = b.split('.') as [string, string?];
  if (ai.length !== bi.length) return ai.length - bi.length;
  const width = Math.max(af.length, bf.length);
  const x = ai + af.padEnd(width, '0');
  const y = bi + bf.padEnd(width, '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Order-independent hash of the content as stored: SHA-256 of the canonical JSON of the lines'
 * `[stream, unit, material, quantity]` arrays and the units sold's `["units_sold", stream, quantity]`
 * arrays, in the order of their own canonical JSON (each serialised once). Without units sold the hash
 * is the lines' alone: the hashes stored since the first release are unchanged.
 */
export function contentHash(lines: ValidLine[], unitsSold: readonly ValidUnitsSold[] = []): string {
  const canonical = [
    // An array of strings: its canonical JSON is JSON.stringify's.
    ...lines.map((line) => JSON.stringify([line.stream, line.unit, line.material, line.quantity])),
    ...unitsSold.map((entry) => canonicalJson(['units_sold', entry.stream, entry.quantity])),
  ].sort();
  return sha256Hex(`[${canonical.join(',')}]`);
}
