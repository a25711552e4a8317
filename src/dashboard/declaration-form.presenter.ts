import type { Account } from '../accounts/account.js';
import type { Period } from '../calendar/half-year.js';
import { ExactNumber } from '../common/http/json-body.js';
import type { FormBody } from '../common/http/request-body.js';
import type { FieldError } from '../common/problem/problem.js';
import { unitSymbol } from '../i18n/format.js';
import type { Language } from '../i18n/language.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { numberContext, numberConvention, readNumber } from '../i18n/read-number.js';
import type { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { localizeErrors } from './dashboard-views.js';
import { field, fields } from './form-fields.js';

/** Rows a new form starts with (a household declaration's materials fit), and the most it takes. */
export const FORM_ROWS = 8;
export const MAX_FORM_ROWS = 100;

/**
 * One row of the form: a material of a stream, with its quantity in each unit the form offers
 * (kg and UVC side by side); each filled quantity is one line of the declaration.
 */
export interface FormRow {
  stream: string;
  material: string;
  /** By unit code: the text typed. */
  quantities: Record<string, string>;
}

/** A problem of the form as the page shows it: where in words, what to do, and the row and cell it sits by. */
export interface FormError {
  where: string | undefined;
  message: string;
  /** The row's index (0-based); null for the period, the units sold or the whole form. */
  line: number | null;
  /** `stream`, `material`, `quantity_<unit>`, `period`, `units_sold_<stream>`; null for the whole row or form. */
  field: string | null;
}

/** A line as the service checks it: one unit of one material. */
interface SubmittedLine {
  stream: string;
  material: string;
  unit: string;
  quantity: ExactNumber | string;
}

/** What the person sent, read: the rows, the declaration they make, and how to put the service's problems back by the cells. */
export interface ReadForm {
  period: string;
  action: 'add' | 'submit';
  rows: FormRow[];
  /** How many rows came (past MAX_FORM_ROWS the form is refused, never cut short). */
  sent: number;
  /** The units sold as typed, by stream. */
  soldValues: Record<string, string>;
  /** The declaration the filled rows make, in the shape of the API's body (quantities read as people write them). */
  submitted: { period: string; lines: SubmittedLine[]; units_sold?: { stream: string; quantity: ExactNumber | string }[] };
  /** The row (1-based, as the page numbers them) a submitted line comes from. */
  rowOf: (at: number) => number;
  /** The service's problems as the page shows them, by their row and cell; numbers that could not be read said as such. */
  errors: (problems: readonly FieldError[]) => FormError[];
}

export const quantityField = (unit: string) => `quantity_${unit}`;

export function blankRows(n: number, stream = ''): FormRow[] {
  return Array.from({ length: n }, () => ({ stream, material: '', quantities: {} }));
}

const isBlank = (row: FormRow) =>
  row.stream.trim() === '' && row.material.trim() === '' && Object.values(row.quantities).every((q) => q.trim() === '');

/**
 * Declaration lines (one unit each, as stored or checked) back as rows: the lines of one material
 * of one stream share a row, each in its unit's cell; blank lines are left out.
 */
export function rowsOfLines(lines: readonly { stream: string; material: string; unit: string; quantity: string }[]): FormRow[] {
  const rows: FormRow[] = [];
  for (const line of lines) {
    if (line.stream === '' && line.material === '' && line.unit === '' && line.quantity === '') continue;
    const same = rows.find((r) => r.stream === line.stream && r.material === line.material && r.quantities[line.unit] === undefined);
    if (same) same.quantities[line.unit] = line.quantity;
    else rows.push({ stream: line.stream, material: line.material, quantities: { [line.unit]: line.quantity } });
  }
  return rows;
}

/** The rows to show: the given ones, then blank rows up to FORM_ROWS (one blank row at least with `oneMore`). */
export function padRows(rows: readonly FormRow[], stream: string, oneMore = false): FormRow[] {
  return [...rows, ...blankRows(Math.max(FORM_ROWS - rows.length, oneMore ? 1 : 0), stream)];
}

/**
 * Reads the form: a row per material with a quantity per unit (`quantity_kg`, `quantity_uvc`),
 * repeated in row order, and one units-sold field per counted stream. Blank rows and cells are
 * left out; numbers are read with the evidence of the whole form ("1 200,5", "4 800").
 */
export function readDeclarationForm(
  body: FormBody,
  options: { language: Language; units: readonly string[]; countStreams: readonly string[] },
): ReadForm {
  const { language, units } = options;
  const period = field(body, 'period').trim();
  const streams = fields(body, 'stream');
  const materials = fields(body, 'material');
  const columns = Object.fromEntries(units.map((unit) => [unit, fields(body, quantityField(unit))]));
  const sent = Math.max(streams.length, materials.length, ...units.map((unit) => columns[unit]!.length));
  const rows: FormRow[] = Array.from({ length: Math.min(MAX_FORM_ROWS, sent) }, (_, i) => ({
    stream: streams[i] ?? '',
    material: materials[i] ?? '',
    quantities: Object.fromEntries(units.map((unit) => [unit, columns[unit]![i] ?? ''])),
  }));

  // One line per filled cell, in row order then unit order; `origin` says which row and unit each came from.
  const origin: { row: number; unit: string }[] = [];
  const texts: string[] = [];
  rows.forEach((row, index) => {
    for (const unit of units) {
      const text = row.quantities[unit] ?? '';
      if (text.trim() === '') continue;
      origin.push({ row: index, unit });
      texts.push(text);
    }
    // A row with a stream or material but no quantity is still checked: the service says what is missing.
    if (!units.some((unit) => (row.quantities[unit] ?? '').trim() !== '') && !isBlank({ ...row, stream: '' })) {
      origin.push({ row: index, unit: units[0] ?? '' });
      texts.push('');
    }
  });
  const context = { ...numberContext(texts.filter((text) => text !== '')), convention: numberConvention(language) };
  const unread = new Map<number, FieldError>();
  const lines = origin.map(({ row, unit }, at): SubmittedLine => {
    const text = texts[at]!;
    const base = { stream: rows[row]!.stream, material: rows[row]!.material, unit };
    if (text === '') return { ...base, quantity: text };
    const read = readNumber(text, context);
    if (read.ok) return { ...base, quantity: new ExactNumber(read.value) };
    unread.set(at, {
      pointer: `/lines/${at}/quantity`,
      code: read.code,
      detail: read.code,
      params: { ...read.params, line: row + 1, field: 'quantity' },
    });
    return { ...base, quantity: text };
  });

  // The units sold, one field per stream that counts them; left blank, not stated.
  const sold = options.countStreams
    .map((stream) => ({ stream, text: field(body, `units_sold_${stream}`).trim() }))
    .filter(({ text }) => text !== '');
  const soldContext = { ...numberContext(sold.map(({ text }) => text)), convention: numberConvention(language) };
  const unreadSold = new Map<number, FieldError>();
  const soldQuantities = sold.map(({ stream, text }, at) => {
    const read = readNumber(text, soldContext);
    if (read.ok) return new ExactNumber(read.value);
    unreadSold.set(at, {
      pointer: `/units_sold/${at}/quantity`,
      code: read.code,
      detail: read.code,
      params: { ...read.params, field: 'units_sold', stream },
    });
    return text;
  });

  const localize = (error: FieldError) => localizeErrors(language, [error])[0]!;
  const errors = (problems: readonly FieldError[]): FormError[] =>
    problems
      .map((e): FormError => {
        const soldAt = /^\/units_sold\/(\d+)/.exec(e.pointer);
        if (soldAt) {
          const position = Number(soldAt[1]);
          return { ...localize(unreadSold.get(position) ?? e), line: null, field: `units_sold_${sold[position]!.stream}` };
        }
        const at = /^\/lines\/(\d+)(?:\/(\w+))?$/.exec(e.pointer);
        if (!at || origin[Number(at[1])] === undefined)
          return { ...localize(e), line: null, field: e.pointer === '/period' ? 'period' : null };
        const position = Number(at[1]);
        const { row, unit: own } = origin[position]!;
        // A missing companion (kg without UVC) is the empty cell of the same row: the problem is said there.
        const requires = e.code === 'companion_line_missing' && typeof e.params?.requires === 'string' ? e.params.requires : undefined;
        const unit = requires && units.includes(requires) ? requires : own;
        const cell = at[2] === 'quantity' || at[2] === 'unit' ? quantityField(unit) : (at[2] ?? null);
        const found =
          at[2] === 'quantity' && unread.has(position)
            ? unread.get(position)!
            : { ...e, params: { ...e.params, line: row + 1, ...(unit !== own ? { field: 'quantity' } : {}) } };
        const shown = localize(found);
        // Two quantities share a row: the position names the unit's column.
        const where =
          shown.where !== undefined && cell === quantityField(unit) ? `${shown.where} (${unitSymbol(language, unit)})` : shown.where;
        return { ...shown, where, line: row, field: cell };
      })
      .filter((e, i, all) => all.findIndex((o) => o.line === e.line && o.field === e.field && o.message === e.message) === i);

  return {
    period,
    action: field(body, 'action') === 'add' ? 'add' : 'submit',
    rows,
    sent,
    soldValues: Object.fromEntries(options.countStreams.map((code) => [code, field(body, `units_sold_${code}`)])),
    submitted: {
      period,
      lines,
      ...(sold.length > 0 ? { units_sold: sold.map(({ stream }, at) => ({ stream, quantity: soldQuantities[at]! })) } : {}),
    },
    rowOf: (at) => (origin[at]?.row ?? at) + 1,
    errors,
  };
}

/** The error of a form past its rows: the same words whichever button was pressed. */
export function tooManyRows(language: Language): FormError {
  return { where: undefined, message: MESSAGES[language].dashboardPages.form.tooManyLines(MAX_FORM_ROWS), line: null, field: null };
}

/** The quantity columns of the form: the units the account's streams accept (every unit while it has none), in the catalogue's order. */
export function formUnits(catalogue: ReferenceCatalogue, account: Account): string[] {
  const own = account.profile.streams.map((code) => catalogue.stream(code)).filter((stream) => stream !== undefined);
  const streams = own.length > 0 ? own : catalogue.streamCodes().map((code) => catalogue.stream(code)!);
  return [...new Set(streams.flatMap((stream) => stream.units))];
}

/** The account's streams that count consumer sales units (household packaging): one units-sold field each. */
export function countStreams(catalogue: ReferenceCatalogue, account: Account): string[] {
  return account.profile.streams.filter((code) => catalogue.countUnitOf(code) !== undefined);
}

/**
 * What the « Nouvelle déclaration » page shows. `data.rows` are the form's rows as typed;
 * `data.lines` (declaration lines, from the check page's "Change") become rows, one per material;
 * `data.added` means "Add a line" was pressed: a blank row is added and gets `autofocus`, so the
 * page comes back at it (no fragment in the address: a fragment makes browsers skip autofocus).
 * The other keys (errors, the upload's) pass through.
 */
export function formPage(
  catalogue: ReferenceCatalogue,
  account: Account,
  language: Language,
  today: Period,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const {
    rows: given,
    lines,
    added,
    ...rest
  } = data as {
    rows?: FormRow[];
    lines?: { stream: string; material: string; unit: string; quantity: string }[];
    added?: boolean;
  };
  const streams = account.profile.streams
    .map((code) => catalogue.stream(code))
    .filter((stream) => stream !== undefined)
    .map((stream) => ({ code: stream.code, name: stream.name[language], materials: stream.materials.map((m) => m.name[language]) }));
  // A client with one stream has it chosen on every row.
  const only = streams.length === 1 ? streams[0]!.code : '';
  const typed = given ?? (lines ? rowsOfLines(lines) : []);
  const soldValues = (data.soldValues ?? {}) as Record<string, string>;
  return {
    confirmed: account.confirmedAt !== null,
    streams,
    only,
    units: formUnits(catalogue, account).map((code) => ({ code, symbol: unitSymbol(language, code) })),
    materials: [...new Set(streams.flatMap((s) => s.materials))],
    suggestedPeriod: today.half === 1 ? `${today.year - 1}-S2` : `${today.year}-S1`,
    period: '',
    errors: [],
    uploadErrors: [],
    uploadPeriod: '',
    fileName: null,
    report: null,
    ...rest,
    rows: padRows(typed, only, added === true || (lines !== undefined && typed.length > 0)),
    focusRow: added === true ? typed.length : null,
    unitsSold: countStreams(catalogue, account).map((code) => ({
      stream: code,
      name: catalogue.stream(code)!.name[language],
      value: soldValues[code] ?? '',
    })),
  };
}
