/**
 * The service's words in English; this file defines every catalogue's shape (`Messages`), which fr.ts
 * `satisfies`. Sections: `problems` (each API problem code: a title, what happened and what to do);
 * `fields` (each validation code, from its parameters, field-params.ts: what is wrong and how to fix it,
 * with an example, never a pointer or field key; where, is `common.position`); `site`; `dashboard` (its
 * generic words; the pages' are `dashboardPages`); `mail`; `files` (words written into CSV files, among
 * them `files.columns`: every CSV header, keyed by its column's stable code). Formats: ../format.ts.
 */
import type { ProblemCode } from '../../common/problem/problem.js';
import type { FieldCode, FieldParams, Names, Position, ProductFieldParams } from '../field-params.js';
import { dashboardPagesEn } from './dashboard-pages.en.js';
import { operatorPagesEn } from './operator-pages.en.js';
import { term } from '../glossary.js';
import { formatDate, formatDateTime, formatList, formatNumber, plural } from '../format.js';

type FieldMessages = { [K in FieldCode]: (p: FieldParams[K]) => string };

const n = (value: number | string) => formatNumber('en', value);
const date = (iso: string) => formatDate('en', iso);
/** `2026-S1` → "first half of 2026". */
const halfYear = (period: string) => `${period.endsWith('S1') ? 'first' : 'second'} half of ${period.slice(0, 4)}`;
const or = (items: readonly string[]) => formatList('en', items, 'or');
const and = (items: readonly string[]) => formatList('en', items, 'and');
const named = (names: Names | undefined, code?: string) => names?.en ?? code ?? '';
const quoted = (items: readonly string[]) => items.map((item) => `“${item}”`);
/** A stream as a person knows it: "Household packaging (EMB)". */
const streamOf = (p: { stream?: string; streamName?: Names }) =>
  p.streamName ? `${p.streamName.en} (${p.stream})` : (p.stream ?? 'this stream');
const theStream = (p: { stream?: string; streamName?: Names }) => (p.stream ? `the stream ${streamOf(p)}` : 'this stream');
const times = (count: number, one: string, other: string) => `${n(count)} ${plural('en', count, { one, other })}`;

/** The units allowed, each with what it is for (the streams data's `help`): "kg for a mass in kilograms or …". */
const unitChoices = (units: readonly Names[]) => or(units.map((unit) => named(unit)));

/** Columns named by their codes: `{ stream: 'stream', … }` (an English CSV header is the column's code). */
const codes = <const K extends string>(...keys: K[]): Record<K, string> =>
  Object.fromEntries(keys.map((key): [string, string] => [key, key])) as Record<K, string>;

/**
 * The header of each CSV file the service writes or reads, per column, keyed by the column's stable
 * code (`files.columns`); the writers take their header row from here, the readers accept it.
 */
const CSV_FILE_COLUMNS = {
  /** A declaration file: the template, a download, an upload. */
  declaration: codes('stream', 'material', 'unit', 'quantity'),
  /** A product catalogue file (products/csv/product-csv.ts). */
  products: codes(
    'reference',
    'name',
    'stream',
    'gtin',
    'valid_from',
    'material',
    'weight_g',
    'per_unit',
    'packaging_category',
    'reuse_status',
  ),
  /** A sales file (products/csv/product-csv.ts). */
  sales: codes('reference', 'units'),
  /** The operator's clients file (accounts/clients-import.ts). */
  clients: codes('client_id', 'company', 'email', 'country', 'plan', 'streams', 'idus', 'language'),
  /** The operator's period export (exports/period-export.service.ts). */
  periodExport: codes(
    'period',
    'client_id',
    'company',
    'country',
    'idus',
    'declaration_id',
    'revision',
    'receipt',
    'submitted_at',
    'stream',
    'material',
    'material_category',
    'unit',
    'quantity',
    'eco_organism',
  ),
  /** The operator's annual export (exports/annual-export.service.ts); `period`: the half-year of a product row. */
  annualExport: codes(
    'kind',
    'year',
    'eco_organism',
    'client_id',
    'company',
    'country',
    'idus',
    'stream',
    'material',
    'material_category',
    'unit',
    'quantity',
    's1_receipt',
    's2_receipt',
    'missing_periods',
    'period',
  ),
  /** The product columns of the exports with `detail=products` (exports/export-products.ts). */
  productDetail: codes(
    'product_reference',
    'product_name',
    'gtin',
    'product_valid_from',
    'units',
    'weight_g',
    'per_unit',
    'packaging_category',
    'reuse_status',
  ),
};

/** The columns of a declaration file, as the English template names them. */
const CSV_COLUMNS: Record<string, string> = CSV_FILE_COLUMNS.declaration;
const column = (key: string) => (Object.hasOwn(CSV_COLUMNS, key) ? CSV_COLUMNS[key]! : key);

/** The fields a person fills in, in words (a key not listed here is never shown). */
const FIELD_NAMES: Record<string, string> = {
  period: term('half_year', 'en'),
  lines: 'lines',
  stream: term('stream', 'en'),
  material: 'material',
  unit: 'unit',
  quantity: 'quantity',
  units_sold: 'units sold',
  file: 'file',
  name: 'name',
  expires: 'expiry date',
  expires_at: 'expiry date',
  email: 'e-mail address',
  company: 'company name',
  country: 'country',
  plan: 'plan',
  streams: 'streams',
  idus: 'unique identifiers (IDU)',
  client_id: 'client identifier',
};
const fieldName = (key: string | undefined) => (key !== undefined && Object.hasOwn(FIELD_NAMES, key) ? FIELD_NAMES[key] : undefined);
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The messages of a product catalogue or sales upload (src/products/): in `fields` with every code, and in `products`. */
const productFields = {
  no_products: () =>
    'The file or request holds no product or sale. Add at least one row, for example BTL-75, Red wine 75 cl, EMB, 2026-S1, glass, 410.5.',
  too_many_products: (p) =>
    `Send at most ${n(p.max ?? 1000)} at a time${p.count === undefined ? '' : `, not ${n(p.count)}`}: split the file in two.`,
  duplicate_reference: (p) =>
    `${p.value ?? 'This reference'} appears twice${p.other === undefined ? '' : ` (first as item ${n(p.other)})`}. Give each product, with its starting half-year, once only.`,
  invalid_text: (p) =>
    p.reason === 'too_long'
      ? `This text is too long: at most ${n(p.max ?? 64)} characters. Shorten it, for example BTL-75-RED.`
      : p.reason === 'characters'
        ? 'This text holds invisible or control characters. Type it again rather than pasting it.'
        : 'This cannot be left empty: fill it in, for example BTL-75-RED.',
  invalid_gtin: (p) =>
    p.reason === 'check_digit'
      ? `The last digit of ${p.value ?? 'this GTIN'} does not match the others: copy the number under the barcode again.`
      : 'A GTIN (EAN code) is 8, 12, 13 or 14 digits, without spaces, for example 3017620422003. Leave it empty if the product has none.',
  no_elements: () =>
    'Give the product at least one packaging element: a material, the weight of one element in grams, and how many per unit.',
  too_many_elements: (p) =>
    `A product has at most ${n(p.max ?? 20)} packaging elements. Group identical elements with their number per unit.`,
  catalogue_full: (p) =>
    `A catalogue holds at most ${n(p.max ?? 10000)} products${p.count === undefined ? '' : `; yours holds ${n(p.count)}`}${p.added === undefined ? '' : ` and this would add ${n(p.added)}`}. Beyond that, declare your quantities per material directly rather than from the catalogue.`,
  too_many_versions: (p) =>
    `${p.value ?? 'This product'} would have more than ${n(p.max ?? 20)} versions. Correct an existing version by sending it again with the same starting half-year.`,
  unknown_material: (p) =>
    `${p.value === undefined ? 'This material' : `“${p.value}”`} is not a material category of ${p.stream ?? 'this stream'}. Use one of the published categories${p.allowed ? `: ${or(quoted(p.allowed.map((name) => named(name))))}` : ''}.`,
  invalid_weight: (p) =>
    p.reason === 'not_positive'
      ? 'The weight of an element must be more than 0 grams, for example 410.5.'
      : p.reason === 'too_large'
        ? `The weight of one element is at most ${n(p.max ?? 10000000)} grams. Write it in grams, not in kilograms.`
        : p.reason === 'too_small'
          ? `The weight of one element is at least ${n(p.min ?? 0.001)} grams (a milligram). Write it in grams, for example ${n('2.125')}.`
          : `Write the weight of one element in grams, in figures, for example ${n('410.5')}.`,
  weight_too_precise: (p) =>
    `A weight has at most ${n(p.decimals ?? 3)} decimals (to the milligram), for example ${n('2.125')} grams. Round it.`,
  invalid_count: (p) =>
    `Write a whole number from ${n(p.min ?? 0)} to ${n(p.max ?? 1e12)}, without decimals or spaces, for example ${n(48000)}.`,
  not_applicable: (p) => `${p.stream ?? 'This stream'} publishes no packaging categories or reuse statuses: leave this cell empty.`,
  unknown_packaging_category: (p) => `Choose the packaging category among the published ones${p.allowed ? `: ${or(p.allowed)}` : ''}.`,
  unknown_reuse_status: (p) => `Choose the reuse status among the published ones${p.allowed ? `: ${or(p.allowed)}` : ''}.`,
  inconsistent_product: (p) =>
    `Every row of one product repeats the same name, stream and GTIN${p.first === undefined ? '' : `, as on row ${n(p.first)}`}. Correct this row, or give it another reference or starting half-year.`,
  product_version_filed: (p) =>
    `The packaging of ${p.value ?? 'this product'} from ${p.period ?? 'this half-year'} was used by a declaration already filed and cannot change. Send the new packaging with the half-year it applies from.`,
  unknown_product: (p) => `${p.value ?? 'This reference'} is not in your product catalogue. Add the product first, then its sales.`,
  no_version_for_period: (p) =>
    `${p.value ?? 'This product'} has no packaging in force in ${p.period ?? 'this half-year'}: its packaging applies from a later half-year. Send its packaging from ${p.period ?? 'this half-year'} or earlier.`,
  nothing_to_derive: (p) => `No sales are recorded for ${p.period ?? 'this half-year'}: send the units sold per product first.`,
  product_missing: () => 'No product is named on this row or above it: write the product’s name or reference on its first row.',
  units_missing: () => `The product’s units sold in the half-year are missing: write them on its first row, e.g. ${n(40000)}.`,
  inconsistent_units: (p) =>
    `The units sold differ from those of ${p.first === undefined ? 'another row' : `row ${n(p.first)}`} of the same product: write them once, or the same on every row.`,
} satisfies { [K in keyof ProductFieldParams]: (p: ProductFieldParams[K]) => string };

export const en = {
  language: {
    /** Read by screen readers after this language's own name (the registry's) in a language switch, in this language. */
    versionHint: 'English version of this page',
  },

  common: {
    fieldNames: FIELD_NAMES,
    /** Where a problem is, in words: "Line 3, quantity", "Row 5 of the file, quantity column"; undefined for the whole request. */
    position: (p: Position): string | undefined => {
      if (p.row !== undefined)
        return p.field !== undefined && Object.hasOwn(CSV_COLUMNS, p.field)
          ? `Row ${p.row} of the file, ${CSV_COLUMNS[p.field]} column`
          : `Row ${p.row} of the file`;
      const name = fieldName(p.field);
      if (p.line !== undefined) return name && p.field !== 'lines' ? `Line ${p.line}, ${name}` : `Line ${p.line}`;
      return name ? capital(name) : undefined;
    },
    /** `2026-S1` → "first half of 2026". */
    halfYear: (year: number, half: 1 | 2) => `${half === 1 ? 'first' : 'second'} half of ${year}`,
    /** A problem whose code this catalogue does not know (a newer service than its words). */
    unknownProblem: 'This information needs correcting: check it and send it again.',
    yes: 'yes',
    no: 'no',
  },

  problems: {
    bad_request: {
      title: 'The request could not be read',
      explanation: 'Something in the address or the form could not be read. Go back, check what you entered and try again.',
    },
    malformed_json: {
      title: 'The data sent could not be read',
      explanation:
        'The data sent is not in the expected format. If you used a form of this site, reload the page and try again; if one of your programs sent it, ask its developers to check the request.',
    },
    invalid_cursor: {
      title: 'This page of results no longer exists',
      explanation: 'The link to the next page of results is out of date. Go back to the first page of the list.',
    },
    missing_token: {
      title: 'API token missing',
      explanation:
        'This address needs an API token. Your programs send it with each request; create one in the dashboard, under API tokens.',
    },
    invalid_token: {
      title: 'This API token does not work',
      explanation:
        'The token is unknown, expired or revoked, or was not copied whole. Create a new one in the dashboard, under API tokens, and put it in your program in place of the old one.',
    },
    insufficient_scope: {
      title: 'Not allowed with this access',
      explanation: 'Your access does not open this page: it is kept for the operator of the service. Go back to your dashboard.',
    },
    admin_api_disabled: {
      title: 'Operator area switched off',
      explanation: 'The operator area is switched off on this installation. If you run the service, set ADMIN_TOKEN to switch it on.',
    },
    account_suspended: {
      title: 'Your account is suspended',
      explanation:
        'The operator has suspended your account: your API tokens and dashboard sessions do not work for now, and your declarations are kept. Contact the operator to have it reactivated.',
    },
    session_required: {
      title: 'Please sign in',
      explanation:
        'Your session has ended: you signed out, or it was idle for 30 minutes, or it is 12 hours old. Sign in again with a new link.',
    },
    csrf_failed: {
      title: 'The form has expired',
      explanation: 'The form was open for too long, or was sent from another site. Reload the page, fill in the form again and send it.',
    },
    not_found: {
      title: 'Page not found',
      explanation: 'Nothing is at this address, or it belongs to another account. Check the address, or go back to your dashboard.',
    },
    method_not_allowed: {
      title: 'This action is not possible here',
      explanation: 'This page does not take this kind of request. Go back and use the buttons and links of the page.',
    },
    conflict: {
      title: 'The record has changed',
      explanation: 'This record was changed in the meantime. Reload the page to see it as it is now, then try again.',
    },
    precondition_failed: {
      title: 'The record changed since you read it',
      explanation:
        'Someone changed this record after you opened it, and nothing was changed. Reload it, check what is there now, then make your change again.',
    },
    idempotency_key_in_flight: {
      title: 'Your declaration is still being recorded',
      explanation:
        'The same declaration is still being recorded. Wait a few seconds, then look at your list of declarations before you send it again.',
    },
    payload_too_large: {
      title: 'The file is too large',
      explanation: `What you sent is over 1 MiB. A declaration has at most ${n(1000)} lines: group the lines by material category, or delete empty rows and columns from the file, then send it again.`,
    },
    unsupported_media_type: {
      title: 'This kind of file is not accepted',
      explanation:
        'Send the declaration as a CSV file: in Excel or LibreOffice, choose Save as, then CSV UTF-8 (comma delimited) or CSV with semicolons.',
    },
    validation_failed: {
      title: 'Some information needs correcting',
      explanation: 'Nothing was recorded. Correct each point listed, then send again.',
    },
    idempotency_key_reused: {
      title: 'This submission identifier was used for other figures',
      explanation:
        'Your program reused the identifier of an earlier submission (Idempotency-Key) for different figures. Nothing was recorded: the program must send a new identifier with each new declaration.',
    },
    rate_limited: {
      title: 'Too many requests',
      explanation: 'Too many requests were made in a short time. Wait a minute, then try again.',
    },
    internal_error: {
      title: 'Something went wrong on our side',
      explanation:
        'The service met an unexpected error; nothing you did caused it. Try again in a few minutes; if it happens again, write to us with the reference shown on this page.',
    },
    service_unavailable: {
      title: 'The service is briefly unavailable',
      explanation: 'The service cannot answer for a moment, and nothing was recorded. Try again in a minute.',
    },
  } satisfies Record<ProblemCode, { title: string; explanation: string }>,

  fields: {
    unknown_field: () =>
      'The service does not expect this information. Remove it, and send only what the form or the documentation asks for, for example a half-year and its lines for a declaration.',
    required: (p) => {
      switch (p.field) {
        case 'period':
          return 'Enter the half-year you are declaring, for example 2026-S1 (January to June) or 2026-S2 (July to December).';
        case 'lines':
          return `Add at least one line: a stream, a material, a unit and a quantity, for example EMB, Glass, kg, ${n('1200.5')}.`;
        case 'stream':
          return 'Choose the stream of this line, for example EMB for household packaging.';
        case 'material':
          return 'Enter the material of this line, for example Glass or Paper and cardboard.';
        case 'unit':
          return p.units?.length ? `Choose the unit of this line: ${unitChoices(p.units)}.` : 'Choose the unit of this line.';
        case 'quantity':
          return `Enter the quantity in figures, for example ${n('1200.5')}.`;
        default:
          return 'This information is required: fill it in.';
      }
    },
    invalid_type: (p) => {
      switch (p.field) {
        case 'period':
          return 'Write the half-year as text, for example 2026-S1.';
        case 'lines':
          return 'Give the lines as a list, with one entry for each stream, material and unit.';
        case 'stream':
          return 'Write the stream as its code, for example EMB.';
        case 'material':
          return 'Write the material in words, for example Glass.';
        case 'unit':
          return p.units?.length ? `Write the unit as ${unitChoices(p.units)}.` : 'Write the unit as text, for example kg.';
        default:
          if (p.line !== undefined)
            return `Each line gives a stream, a material, a unit and a quantity, for example EMB, Glass, kg, ${n('1200.5')}.`;
          if (p.field === undefined) return 'Send a declaration: a half-year and its lines, as the documentation shows.';
          return 'This value is not of the expected kind: write it as the form or the documentation shows.';
      }
    },
    invalid_characters: () =>
      'This text holds invisible or control characters (a line break, for example) that cannot be recorded. Type it again rather than pasting it, for example Glass.',
    too_deep: (p) =>
      `The data is nested more than ${p.max ?? 32} levels deep. Send it as the documentation shows, for example a declaration with its half-year and a list of lines.`,
    more_errors: (p) => {
      const count = p.count ?? 1;
      return `${times(count, 'more problem is', 'more problems are')} not listed here. Correct the ones above, then send again to see the rest.`;
    },
    invalid_string: () => 'This must be text: write it in words or figures, for example Exemple SAS.',
    not_blank: (p) => {
      switch (p.field) {
        case 'name':
          return 'Give the token a name, for example ERP production (the program that will use it).';
        case 'company':
          return 'Enter the legal name of the company, for example Exemple SAS.';
        case 'idus':
          return 'Enter the unique identifier (IDU), for example FR000000_01ABCD, or remove the empty entry.';
        default:
          return 'This cannot be left empty: fill it in.';
      }
    },
    not_trimmed: () => 'Remove the spaces at the start and end of the unique identifier (IDU), for example FR000000_01ABCD.',
    max_length: (p) =>
      p.max === undefined
        ? 'This text is too long: shorten it.'
        : `This text is too long: shorten it to ${times(p.max, 'character', 'characters')} at most.`,
    invalid_length: (p) =>
      p.min !== undefined
        ? `Write at least ${times(p.min, 'character', 'characters')}.`
        : p.max === undefined
          ? 'This text is too long: shorten it.'
          : `This text is too long: shorten it to ${times(p.max, 'character', 'characters')} at most.`,
    invalid_email: () => 'Enter an e-mail address in the right format, for example name@example.com.',
    email_characters: () =>
      'Type the e-mail address again with plain Latin letters, digits, dots, hyphens, underscores and plus signs before the @, for example name@example.com: it holds a letter of another script that looks like a Latin one, a full-width character or a domain mixing scripts, which would send mail to another mailbox than it reads.',
    invalid_array: () => 'Give a list here, even of one item, for example the stream EMB.',
    array_max_size: (p) =>
      p.max === undefined ? 'The list is too long: shorten it.' : `The list is too long: keep ${times(p.max, 'item', 'items')} at most.`,
    matches: () =>
      'Write the client identifier with 3 to 63 lower-case letters, digits, hyphens or underscores, starting with a letter or a digit, for example exemple-sas.',
    invalid_date_time: () => 'Give a date and time with its time zone, for example 2027-01-31T00:00:00Z.',
    expiry_out_of_range: (p) => `Choose an expiry date in the future, at most ${times(p.max ?? 2, 'year', 'years')} from today.`,
    limit_out_of_range: (p) => `Ask for ${n(p.min ?? 1)} to ${n(p.max ?? 100)} results per page, for example 20.`,
    invalid_status: () => 'Choose current (the revisions in force) or superseded (the replaced ones).',
    invalid_mode: () =>
      'Choose live (a token for your real declarations) or test (a token for your sandbox, whose declarations are never filed).',
    invalid_client_id: () => 'Write a client identifier as the operator gave it, for example exemple-sas.',
    invalid_actor: () => 'Write admin, or the identifier of an operator token, for example 0f8fad5b-d9cb-469f-a165-70867728950e.',
    invalid_action: () => 'Write an action as the audit trail names it, for example client.updated.',
    invalid_stream: () => 'Write the code of a stream, for example EMB.',
    invalid_plan: () => 'Write the identifier of a plan, for example business.',
    invalid_boolean: () => 'Write true (yes) or false (no).',
    invalid_country_code: () => 'Write the country as its two-letter ISO code in capitals, for example FR for France.',
    invalid_language_code: () => 'Write fr for French or en for English.',
    duplicate: (p) =>
      p.value === undefined ? 'This is listed more than once: keep it once.' : `“${p.value}” is listed more than once: keep it once.`,
    no_clients: () => 'The file has a header but no client. Add one row per client below the header.',
    too_many_clients: (p) =>
      `A file onboards at most ${n(p.max ?? 1000)} clients: the rows from this one on are not read. Split the file in two and send each part.`,
    duplicate_client: (p) =>
      `This client is already on row ${p.other === undefined ? 'above' : n(p.other)} of the file (the same client id, or the same company and e-mail address). Keep one of the two rows.`,
    period_not_ended: (p) =>
      `${p.period ? `The half-year ${p.period}` : 'This half-year'} has not ended yet${p.end ? ` (it ends on ${date(p.end)})` : ''}: nothing of it is due. Choose a half-year that has ended.`,
    client_exists: (p) =>
      `${p.value ? `The client “${p.value}”` : 'A client'} already exists with this id, or with this company and e-mail address. Remove the row, or change the existing client instead.`,
    unknown_plan: (p) =>
      `${p.value === undefined ? 'This is not' : `“${p.value}” is not`} one of the service’s plans. ${p.plans?.length ? `Choose ${or(p.plans)}.` : 'Choose one of the plans on the pricing page, for example business.'}`,
    not_in_plan: (p) =>
      `${p.plan ? `The plan ${p.plan}` : 'This plan'} does not cover ${theStream(p)}${p.covered?.length ? ` (it covers ${and(p.covered)})` : ''}. Choose a plan that covers it, or remove the stream.`,
    invalid_idempotency_key: () =>
      'The submission identifier (Idempotency-Key) must be 1 to 255 visible characters: use a new unique identifier, for example 0f8fad5b-d9cb-469f-a165-70867728950e.',
    idempotency_key_reused: () =>
      'This submission identifier (Idempotency-Key) was used for different figures in the last 24 hours. Send the new figures with a new identifier.',

    invalid_client_status: () => 'Choose active, suspended or offboarded.',
    invalid_csv_dialect: () => 'Choose en (comma between cells, decimal point) or fr (semicolon between cells, decimal comma).',
    invalid_export_detail: (p) =>
      `Leave the detail out for the export as it always was, or choose ${p.listed?.length ? or(p.listed) : 'products'} to add the products behind each declaration derived from a catalogue.`,
    link_lifetime_out_of_range: (p) =>
      `Choose how many minutes the link works: a whole number from ${n(p.min ?? 1)} to ${n(p.max ?? 10080)} (7 days), for example ${n(2880)} for 2 days.`,
    unknown_eco_organism: (p) =>
      `${p.value === undefined ? 'This is not' : `“${p.value}” is not`} an eco-organism the published data lists for ${p.stream ?? 'this stream'}${p.period ? ` in ${p.period}` : ''}. ${p.listed?.length ? `Choose ${or(p.listed)}.` : 'None is listed for it: leave the eco-organism empty.'}`,

    account_not_confirmed: () =>
      'Your account is not confirmed yet: the operator must confirm your company’s details before you can file. Nothing was recorded; send your declaration again once you are told your account is confirmed.',
    invalid_period_format: (p) =>
      `${p.value === undefined ? '' : `“${p.value}” is not a half-year. `}Write the year, a hyphen, then S1 (January to June) or S2 (July to December), for example 2026-S1.`,
    period_too_early: (p) =>
      p.earliest
        ? `The service takes declarations from the half-year ${p.earliest} onwards. Choose ${p.earliest} or a later half-year.`
        : 'The service does not take declarations for a half-year this early. Choose a later one.',
    period_not_started: (p) =>
      `The half-year ${p.period ?? ''} has not started yet${p.start ? `: it opens on ${date(p.start)}` : ''}. Declare it once it has started, or choose a half-year that has${p.current ? `, for example ${p.current}` : ''}.`,
    too_few_lines: (p) =>
      `The declaration has no line.${p.comments ? ` The file’s ${p.comments === 1 ? 'row that starts' : `${n(p.comments)} rows that start`} with # (the template’s notes and examples) ${p.comments === 1 ? 'is' : 'are'} never read: take the # away from an example you keep, or write your lines under the header.` : ''} Add at least one: a stream, a material, a unit and a quantity, for example EMB, Glass, kg, ${n('1200.5')}.`,
    too_many_lines: (p) =>
      `${p.count !== undefined ? `The declaration has ${n(p.count)} lines, and ${n(p.max ?? 1000)} at most are allowed.` : `A declaration has at most ${n(p.max ?? 1000)} lines: the lines of the file from this row on are not read.`} Group close materials under their category of the eco-organism’s grid, for example all glass bottles and jars under Glass.`,
    unknown_stream: (p) =>
      `${p.value === undefined ? 'This is not' : `“${p.value}” is not`} a stream of the service. ${p.streams?.length ? `Write the code of one of the streams: ${or(p.streams)}.` : 'Write the code of a stream, for example EMB.'}`,
    stream_not_registered: (p) =>
      `Your account is not registered for ${theStream(p)}. ${p.registered?.length ? `Declare only your streams (${and(p.registered)}); to add one, ask the operator.` : 'Your account has no stream yet: ask the operator to add the ones you declare.'}`,
    stream_not_declarable_for_period: (p) =>
      p.from
        ? `${capital(theStream(p))} is declared from ${date(p.from)}: ${p.period ? `the half-year ${p.period}` : 'this half-year'} ends before that date. Choose a later half-year, or another stream.`
        : `${capital(theStream(p))} is not declared for this half-year yet. Choose a later half-year, or another stream.`,
    stream_ended: (p) =>
      `${p.until ? `${capital(theStream(p))} is no longer declared after ${date(p.until)}: ${p.period ? `the half-year ${p.period}` : 'this half-year'} starts after that date.` : `${capital(theStream(p))} is no longer declared for this half-year.`} ${p.replacedBy ? `Declare ${p.period ?? 'it'} under the stream ${p.replacedBy} instead.` : 'Choose an earlier half-year.'}`,
    material_retired: (p) =>
      `${p.material ? `The category “${named(p.material)}”` : 'This category'} is no longer used for ${streamOf(p)}${p.version !== undefined ? ` since version ${p.version} of the reference data` : ''}. ${p.replacedBy?.length ? `Declare it under ${or(quoted(p.replacedBy.map((name) => named(name))))}.` : 'Choose a current category of the stream, or write the material in your own words.'}`,
    invalid_material: (p) => {
      switch (p.reason) {
        case 'too_long':
          return `The material is ${times(p.length ?? 0, 'character', 'characters')} long: write it in ${n(p.max ?? 120)} at most, for example Glass or PET trays.`;
        case 'characters':
          return 'Write the material on one line, without invisible characters: type it again rather than pasting it, for example Glass.';
        default:
          return 'Enter the material of this line, for example Glass.';
      }
    },
    unit_not_allowed: (p) =>
      `${p.value === undefined ? 'This unit is not accepted' : `“${p.value}” is not an accepted unit`}${p.stream ? ` for ${p.stream}` : ''}.${p.units?.length ? ` Write ${unitChoices(p.units)}.` : p.allowed?.length ? ` Write ${or(p.allowed)}.` : ''}`,
    quantity_not_a_number: (p) =>
      p.value === undefined
        ? `Write the quantity in figures, for example ${n('1200.5')}.`
        : `“${p.value}” is not a number. Write the quantity in figures only, without unit or thousands separator, for example ${p.delimiter === ';' ? '1200,5 or 1200.5' : '1200.5 (in a comma-separated file, a decimal comma would split the cell)'}.`,
    quantity_negative: () =>
      `The quantity cannot be negative. Write the quantity placed on the market, for example ${n('1200.5')}; to correct an earlier declaration, file it again with the right figures.`,
    quantity_too_large: (p) =>
      `The quantity is over ${n(p.max ?? 1e12)}. Check the unit: a mass is written in kilograms, for example ${n(1200)} for 1.2 tonnes.`,
    quantity_too_precise: (p) => {
      const unit = p.unit ? `in ${p.unit}` : 'in this unit';
      if (p.decimals === 0) return `A quantity ${unit} is a count: write a whole number, for example ${n(4800)}.`;
      const decimals = p.decimals ?? 3;
      return `A quantity ${unit} has at most ${times(decimals, 'decimal', 'decimals')}${p.unit === 'kg' && decimals === 3 ? ' (to the gram)' : ''}, for example ${n(`1200.${'125'.padEnd(decimals, '0').slice(0, decimals)}`)}.`;
    },
    duplicate_line: (p) => {
      const others = p.rows ? { list: p.rows, what: 'row', of: ' of the file' } : { list: p.lines ?? [], what: 'line', of: '' };
      const where =
        others.list.length === 0
          ? 'another line'
          : `${plural('en', others.list.length + (p.more ?? 0), { one: others.what, other: `${others.what}s` })} ${and([...others.list.map((i) => n(i)), ...(p.more ? [times(p.more, 'other', 'others')] : [])])}${others.of}`;
      return `This line repeats the stream, material and unit of ${where}. Add their quantities together on one line, for example ${n('1200.5')} rather than ${n(1000)} and ${n('200.5')}.`;
    },
    companion_line_missing: (p) =>
      `For ${theStream(p)}, each material is declared both in ${p.unit ?? 'kg'} and in ${p.requires ?? 'uvc'}. Add a line for ${p.material ? `“${p.material}”` : 'this material'} in ${p.requires ?? 'uvc'}: ${p.requires === 'uvc' || p.requires === undefined ? `the number of consumer sales units placed on the market, for example ${n(4800)}` : `for example ${n(4800)}`}.`,
    too_many_units_sold: (p) =>
      `Units sold are stated once per stream: at most ${n(p.max ?? 20)}${p.count === undefined ? '' : `, not ${n(p.count)}`}.`,
    units_sold_not_counted: (p) =>
      `${capital(theStream(p))} is declared in kilograms only: it has no units sold to state. Remove them, or state them for household packaging (EMB).`,
    duplicate_units_sold: (p) =>
      `The units sold of ${p.stream ?? 'this stream'} are already stated${p.other === undefined ? '' : ` (at position ${n(p.other)})`}. State them once: the total number of consumer sales units of the half-year, for example ${n(90000)}.`,
    units_sold_without_lines: (p) =>
      `The declaration has no line for ${theStream(p)}. State its units sold with its lines (materials in kg and in UVC), or remove them.`,
    units_sold_below_material_count: (p) =>
      `${p.value === undefined ? 'These units sold are' : `${n(p.value)} units sold is`} fewer than ${p.count === undefined ? 'the units of one material' : `the ${n(p.count)} units`}${p.material ? ` whose packaging contains “${p.material}”` : ''}. A material’s count is part of the units sold, never more: state every unit sold in the half-year, each once, or correct the material’s line.`,

    material_uncategorised: (p) =>
      `${p.value ? `“${p.value}”` : 'This material'} is not a material category of ${streamOf(p)}: it is kept as written, but it will not match a line of the eco-organism’s grid. If one fits, choose a published category from the list instead, for example ${p.allowed?.length ? `“${named(p.allowed[0])}”` : '“Glass”'}; keep it if none does.`,
    quantity_maybe_tonnes: (p) =>
      `${p.value !== undefined ? `${n(p.value)} kg` : 'This mass'}${p.count !== undefined ? ` for ${times(p.count, 'consumer sales unit', 'consumer sales units')}` : ''} makes ${p.grams !== undefined ? `${n(Number(p.grams.toPrecision(2)))} g` : 'less than 0.1 g'} per unit: is it in tonnes? Write kilograms (for example ${n('1.2')} t = ${n(1200)} kg); if the figure is right, keep it.`,

    invalid_csv_header: (p) =>
      p.reason === 'both_separators'
        ? 'The first row splits into column names both with commas and with semicolons. Use one separator only, for example stream,material,unit,quantity.'
        : `The first row of the file must name the columns stream, material, unit and quantity (or in French filière, matériau, unité, quantité), separated by commas or semicolons. Start from the template, or add this row above your figures.${p.tabs ? ' The file looks tab-separated: save it as CSV instead.' : ''}`,
    unknown_column: (p) =>
      `${p.name === undefined ? 'This column is not' : `The column “${p.name}”${p.column !== undefined ? ` (column ${p.column})` : ''} is not`} one the service reads. Rename it stream, material, unit or quantity (for example “Qty” becomes quantity), or delete it.`,
    missing_column: (p) =>
      p.column
        ? `The file has no ${column(p.column)} column. Add it to the first row, for example stream,material,unit,quantity.`
        : 'A column is missing from the file. Name them all in the first row, for example stream,material,unit,quantity.',
    duplicate_column: (p) =>
      `${p.column ? `The ${column(p.column)} column` : 'A column'} is named ${p.count === undefined ? 'more than once' : times(p.count, 'time', 'times')}. Keep one, and delete or rename the others, so that the first row reads, for example, stream,material,unit,quantity.`,
    invalid_csv: (p) =>
      p.reason === 'quote_not_closed'
        ? 'A cell opens a quotation mark that is never closed. Close it or remove it, for example "Glass, bottles" (not "Glass, bottles). A spreadsheet places quotation marks for you when it saves the file.'
        : 'A cell holds quotation marks in a way spreadsheets do not write. Put the whole cell in quotation marks and double those inside it, for example "Tray ""PET""", or save the file again from Excel or LibreOffice, which does it for you.',
    too_many_rows: (p) =>
      `The file has more than ${n(p.max ?? 2001)} rows, counting blank ones. Delete the blank rows at its end (a spreadsheet sometimes saves thousands of them: select them from the first blank row down and delete them), or group materials under their category, for example every glass bottle and jar under Glass.`,
    too_many_cells: (p) =>
      `${p.cells !== undefined && p.columns !== undefined ? `This row has ${times(p.cells, 'cell', 'cells')}, but the first row names ${times(p.columns, 'column', 'columns')}.` : 'This row has more cells than the first row names columns.'} A cell that holds the separator (${p.delimiter === ';' ? 'a semicolon' : 'a comma'}) must be in quotation marks, for example ${p.delimiter === ';' ? '"Trays; PET"' : '"Trays, PET"'}: save the file from a spreadsheet, which does it for you.`,

    file_missing: () => 'Choose a CSV file to upload, for example the template filled in and saved as CSV.',

    number_empty: () => `Enter a number in figures, for example ${n('1200.5')}.`,
    number_has_unit: (p) => {
      const bare = (p.value ?? '').replace(/[^\d.,\s-]/g, '').trim();
      return `Write the number only, without unit or symbol${bare ? `: ${bare} rather than “${p.value}”` : `, for example ${n('1200.5')}`}. The unit is chosen on its own.`;
    },
    number_scientific: (p) =>
      `${p.value === undefined ? 'This number is' : `“${p.value}” is`} in scientific notation, which a spreadsheet writes, rounded, when a column is too narrow. Widen the column or give the cells the Number format, then save again; or write the number in full, for example ${n(1200000)}.`,
    number_grouping: (p) =>
      `${p.value === undefined ? 'This number is not written correctly' : `“${p.value}” is not written as a number`}: thousands go in groups of three digits, for example ${n('1200000.5')} or 1200000.5.`,
    number_ambiguous: (p) => {
      const reading = p.asDecimal ?? '';
      // What to write: in the file's own notation when the file uses this separator for its decimals.
      const written = p.reason === 'other_places' && p.separator ? reading.replace('.', p.separator) : reading;
      const why =
        p.reason === 'mixed'
          ? 'and the file writes decimals both with a comma and with a point'
          : p.reason === 'other_places'
            ? 'and the other decimal numbers of the file do not have three decimals'
            : 'and nothing around it tells which';
      const notation = written === reading ? '' : ` (with a ${p.separator === '.' ? 'point' : 'comma'}, as in the rest of the file)`;
      return `“${p.value ?? ''}” can be read as ${p.asThousands ?? ''} or as ${reading}, ${why}. Write ${p.asThousands ?? ''} for the first, or ${written}${notation} for the second, without thousands separator.`;
    },
    number_invalid: (p) =>
      `${p.value === undefined ? 'This is not a number.' : `“${p.value}” is not a number.`} Write figures only, with a decimal point or comma, for example ${n('1200.5')}.`,
    ...productFields,
  } satisfies FieldMessages as FieldMessages,

  dashboard: {
    brand: 'EPR declarations',
    skip: 'Skip to content',
    /** The document title of a page; an error page's is prefixed (GOV.UK: "Error: …"). */
    documentTitle: (title: string, error = false) => `${error ? 'Error: ' : ''}${title} · Dashboard`,
    nav: {
      label: 'Dashboard',
      overview: 'Overview',
      tokens: 'API tokens',
      declarations: 'Declarations',
      products: 'Products',
    },
    signOut: 'Sign out',
    /** The corner of the header for developer material: API tokens, test tokens, the test environment. */
    software: 'For your software',
    languageSwitch: 'Language',
    footer: {
      dashboard: 'Client dashboard',
      site: 'Public site',
      developers: 'Developers',
      api: 'API reference',
    },
    buttons: {
      continue: 'Continue',
      cancel: 'Cancel',
      back: 'Back',
      backToDashboard: 'Back to the dashboard',
      change: 'Change',
    },
    errorSummary: {
      title: 'There is a problem',
      nothingStored: 'Nothing was recorded.',
      count: (count: number) => `${times(count, 'point', 'points')} to correct:`,
    },
    problemPage: {
      whatThisMeans: 'What this means',
      reference: 'Reference',
    },
    signIn: {
      title: 'Sign in',
      lead: 'The dashboard is where your company’s people get API tokens, see what is due and file declarations.',
      signedOut: 'You are signed out.',
      sessionEnded: 'Please sign in to continue.',
      emailLabel: 'E-mail address of your account',
      emailInvalid: 'Enter the e-mail address of your account, for example name@example.com.',
      submit: 'E-mail me a sign-in link',
      sent: (email: string, minutes: number) =>
        `If ${email} is the address of a confirmed account, a sign-in link is on its way. It works once, within ${times(minutes, 'minute', 'minutes')}.`,
      mailOff: (minutes: number) =>
        `E-mail sign-in is off on this installation (no mail server is set up). Ask the operator for a sign-in link: it works once, within ${times(minutes, 'minute', 'minutes')}.`,
      operatorLink: 'A sign-in link from the operator opens your dashboard directly.',
    },
    link: {
      lead: 'You are about to sign in to your company’s dashboard.',
      continue: 'Continue to the dashboard',
      once: 'The link works once: after this, sign in again with a new link.',
      failed: (minutes: number) =>
        `This sign-in link does not work: it was already used, it is more than ${times(minutes, 'minute', 'minutes')} old, or it was not copied whole.`,
      askNew: 'Ask for a new link',
      orOperator: 'or ask the operator for one.',
    },
  },

  /** Words written into CSV files for people: the template's note, the upload's error report, every file's column headers. */
  files: {
    templateNote:
      'Rows starting with # are notes and examples: they are never filed. Write one row per stream, material and unit under the header (copy an example without its #), then upload the file.',
    report: {
      row: 'row',
      type: 'type',
      message: 'message',
      error: 'error',
      warning: 'warning',
      column: 'column',
      fileName: (name: string) => `error-report-${name}.csv`,
    },
    /** Every CSV file's header, per column code: the words of its header row in this language. */
    columns: CSV_FILE_COLUMNS,
  },

  mail: {
    /** After a declaration is filed from the dashboard, to the account's confirmed address. */
    filed: {
      subject: (p: { period: string; receipt: string }) => `Declaration ${p.period} filed: receipt ${p.receipt}`,
      text: (p: {
        company: string;
        period: string;
        revision: number;
        receipt: string;
        name: string;
        at: string;
        lines: number;
        totals: readonly string[];
        /** Per stream whose units sold are stated: "EMB 90 000 UVC". */
        unitsSold: readonly string[];
        /** Per material count line of a stream whose units sold are not stated: "EMB, Verre : 95 000 UVC". */
        counts: readonly string[];
        url: string;
        /** The operator's address (CONTACT_EMAIL), when set. */
        contact: string | null;
        /** What happens next, as the reference data states who files what with the eco-organism. */
        next: readonly string[];
      }) =>
        [
          'Hello,',
          '',
          `The declaration of ${p.company} for the half-year ${p.period} was filed on the EPR declarations dashboard.`,
          '',
          `Receipt: ${p.receipt}`,
          `Revision: ${p.revision}`,
          `Declared by: ${p.name}`,
          `Filed on: ${p.at}`,
          `Lines: ${n(p.lines)}`,
          ...p.totals.map((total) => `Total: ${total}`),
          ...p.unitsSold.map((units) => `Units sold: ${units}`),
          ...(p.counts.length > 0
            ? [
                'Units sold not stated; consumer sales units (UVC) per material, which do not add up (a unit whose packaging combines several materials counts for each):',
                ...p.counts.map((count) => `- ${count}`),
              ]
            : []),
          '',
          'The two half-years of a year (S1 and S2) are added together for the annual declaration. To correct this one, file it again: the new revision replaces it, and it stays readable.',
          '',
          ...p.next,
          '',
          p.url,
          '',
          p.contact
            ? `If you did not expect this message, write to the operator: ${p.contact}`
            : 'If you did not expect this message, tell the operator.',
          '',
        ].join('\n'),
    },
    signIn: {
      subject: 'Your sign-in link to the EPR declarations dashboard',
      text: (p: { clientId: string; minutes: number; url: string }) =>
        [
          'Hello,',
          '',
          `Someone (we hope you) asked to sign in to the EPR declarations dashboard of the account “${p.clientId}”.`,
          '',
          `Open this link to sign in. It works once, within ${times(p.minutes, 'minute', 'minutes')}:`,
          '',
          p.url,
          '',
          'If you did not ask for it, ignore this message: nothing happens without the link.',
          '',
        ].join('\n'),
    },
  },

  /** The operator's e-mails to clients: invitations. */
  operator: {
    invitation: {
      subject: (p: { company: string }) => `Your access to the EPR declarations dashboard of ${p.company}`,
      text: (p: { company: string; clientId: string; url: string; until: string }) =>
        [
          'Hello,',
          '',
          `Your EPR declarations service invites you to the dashboard of ${p.company} (account “${p.clientId}”): there you file your half-yearly declarations of packaging placed on the market, and manage your API tokens.`,
          '',
          `Open this link to sign in. It works once, until ${formatDateTime('en', p.until)}:`,
          '',
          p.url,
          '',
          'The page it opens asks you to confirm before signing you in. If you were not expecting this message, ignore it: nothing happens without the link.',
          '',
        ].join('\n'),
    },
    /** A reminder before a filing deadline (POST /admin/reminders): what is missing, and a sign-in link. */
    reminder: {
      subject: (p: { company: string; period: string; due: string | null }) =>
        `Reminder: the EPR declaration of ${p.company} for the ${halfYear(p.period)}${p.due ? `, due by ${date(p.due)}` : ''}`,
      text: (p: {
        company: string;
        clientId: string;
        period: string;
        missing: { name: string; stream: string; due: string | null }[];
        url: string;
        until: string;
      }) =>
        [
          'Hello,',
          '',
          `Unless we are mistaken, ${p.company} (account “${p.clientId}”) has not yet filed its declaration of packaging placed on the market in the ${halfYear(p.period)} (${p.period}) for:`,
          '',
          ...p.missing.map((m) => `- ${m.name} (${m.stream})${m.due ? `: to file by ${date(m.due)}` : ''}`),
          '',
          `To file it, sign in to your dashboard with this link. It works once, until ${formatDateTime('en', p.until)}:`,
          '',
          p.url,
          '',
          'If you have filed it since, please disregard this message.',
          '',
        ].join('\n'),
    },
  },

  site: {
    /** French puts a (non-breaking) space before a colon. */
    colon: ':',
    langName: 'English',
    /** The service's name in this language (page titles, the header). */
    serviceName: 'EPR packaging declarations',
    skip: 'Skip to content',
    header: {
      signIn: 'Sign in to your dashboard',
      nav: 'Main',
    },
    contact: {
      write: 'Write to us',
      none: 'The operator of this service has given no contact address yet.',
    },
    nav: {
      notFound: 'Page not found',
      home: 'Home',
      start: 'Getting started',
      pricing: 'Pricing',
      streams: 'Streams',
      law: 'Law',
      obligations: 'Obligations',
      abroad: 'Selling from abroad',
      glossary: 'Glossary',
      developers: 'Developers',
      problems: 'Errors',
      problem: 'Error',
    },
    titles: {
      notFound: 'Page not found',
      home: 'EPR packaging declarations for France',
      start: 'Getting started',
      pricing: 'Pricing',
      streams: 'EPR streams',
      law: 'Legal texts',
      obligations: 'What a packaging producer must do',
      abroad: 'Selling to France from abroad',
      glossary: 'Glossary',
      developers: 'Developers',
      problems: 'Error types',
      problem: 'Error',
    },
    intros: {
      start:
        'You place packaged products on the French market: what the service does for you, how to become a client and what to have ready.',
      pricing: "The service's own plans. Prices are per year, VAT excluded. They are not eco-organism tariffs.",
      streams:
        'The extended producer responsibility (EPR, in French REP) streams a client can declare, with their units, material categories, eco-organisms and legal basis.',
      law: 'French and EU texts on packaging EPR, each with its reference, date, status, official address and sources.',
      obligations: 'What a producer placing packaged products on the French market must do, with the legal basis, deadlines and sources.',
      glossary:
        'The words of the service, one term per concept, with their French counterpart: the pages, the dashboard and the e-mails use these and no others.',
      developers: 'How to get a token, and the API in short, with examples you can copy.',
      problems: 'Every error of the API is an application/problem+json document whose `type` is the address of one of these pages.',
    },
    home: {
      lead: 'Submit your French packaging EPR declarations through an API, and read the rules they rest on as open data.',
      forWhom: 'For whom',
      forWhomText:
        'Producers that place packaged products on the French market, foreign sellers shipping to France and online marketplaces, through their ERP or seller tools.',
      howToStart: 'How to start',
      startButton: 'Getting started',
      startObligations: 'See what a packaging producer must do',
      startPlans: 'Choose a plan',
      startClient: 'Become a client',
      startApi: 'Connect your system to the API (developers)',
      json: 'the data (JSON)',
      plans: 'Plans',
      streams: 'Streams accepted',
      data: 'Reference data',
      dataText: 'Each page below is built from the JSON file it links to, at the same time and from the same sources.',
      perYear: 'per year',
    },
    facts: {
      code: 'Code',
      name: 'Name',
      nameOther: 'French name',
      price: 'Price',
      vat: 'VAT',
      billing: 'Billing period',
      streams: 'Streams',
      included: 'Included',
      declarationsPerYear: 'Declarations per year',
      apiAccess: 'API access',
      support: 'Support',
      legalItem: 'Legal item',
      ademeCode: 'ADEME code',
      status: 'Status',
      startDate: 'Start date',
      declarableFrom: 'Declarable from',
      declarableFromBasis: 'Why from this date',
      units: 'Units',
      materials: 'Material categories',
      ecoOrganisms: 'Eco-organisms',
      role: 'Role',
      approval: 'Approval',
      from: 'from',
      to: 'to',
      law: 'Legal texts',
      reference: 'Reference',
      date: 'Date',
      summary: 'Summary',
      officialUrl: 'Official address',
      appliesTo: 'Applies to',
      legalBasis: 'Legal basis',
      periodicity: 'Periodicity',
      deadline: 'Deadline',
      consequence: 'If missed',
      notes: 'Notes',
      verification: 'Verification',
      sources: 'Sources',
      other: 'Other fields',
      id: 'Id',
      checked: 'Checked on',
      description: 'Description',
      filing: 'Filing',
      tiers: 'Filing tiers by yearly count',
      countUnit: 'Counted in',
      perYear: 'a year',
      tierFrom: 'from',
      tierBelow: 'to under',
      tierUp: 'and more',
      fee: 'Fee',
      openToSmaller: 'Open to smaller producers',
      tradeOptions: 'Options for some trades',
      trades: 'For',
      calendar: 'Calendar',
      invoicing: 'Invoicing',
      packagingCategories: 'Packaging categories',
      reuseStatuses: 'Reuse statuses',
      idu: 'Unique identifier (IDU): its usual shape',
      pattern: 'Pattern',
      example: 'Example',
      use: 'Use',
    },
    values: {
      true: 'yes',
      false: 'no',
      producer: 'Done by the producer',
      eco_organism: 'Done by the eco-organism',
      null: 'not set',
      unlimited: 'unlimited',
      noDate: 'no date',
      noDeadline: 'no fixed deadline',
      official_text: 'official text',
      secondary_source: 'secondary source',
      unverified: 'unverified',
      active: 'active',
      upcoming: 'upcoming',
      approved: 'Approved eco-organism',
      candidate: 'Applicant for approval',
      in_force: 'in force',
      annulled: 'annulled',
      once: 'once',
      annual: 'every year',
      ongoing: 'at all times',
      per_sale: 'per sale',
      excluded: 'excl. VAT',
      year: 'a year',
      notPublished: 'not published',
      coordinating_body: 'Coordinating body',
      approval_not_verified: 'Applicant for approval (approval not verified)',
      flat_fee: 'flat fee',
      simplified_declaration: 'simplified declaration',
      detailed_declaration: 'detailed declaration',
      declaration: 'declaration',
      per_transaction_rate: 'rate per checkout transaction',
      collective_contract: 'collective contract',
      warning: 'a warning, never a refusal',
    } as Record<string, string>,
    about: {
      heading: 'About this data',
      dataBehind: 'Everything on this page comes from one open file:',
      dataLink: 'the data behind this page',
      licenceLink: 'the licence',
      file: 'File',
      version: 'Version',
      updated: 'updated on',
      licence: 'Licence:',
      sources: 'Main sources',
      disclaimer: 'Disclaimer',
      verificationHelp:
        'Each fact carries a verification label: official text (read in an official text), secondary source (read in a secondary source only) or unverified.',
    },
    footer: {
      data: 'Data of',
      licence: 'Reference data under',
      contact: 'Contact',
      notAdvice: 'Not legal advice: check against the official texts.',
    },
    dev: {
      token: 'Get a token',
      signIn: 'Once you are a client, tokens are created in the dashboard:',
      authText:
        'Each client system sends its own token in the header "Authorization: Bearer <token>" (RFC 6750). A token is shown once; the service keeps only its SHA-256 hash.',
      tokenText:
        'The operator onboards your company and sends you a sign-in link to your dashboard, where you create a token for each client system (the operator can issue them too). A token is shown once: keep it in your secret store. The service keeps only its SHA-256 hash.',
      tokenShape:
        'A token looks like eprc_ followed by 32 letters and digits, an underscore and a 6-character checksum, so secret scanners can find it.',
      inShort: 'The API in short',
      clientApi: 'Client API',
      base: 'Base address',
      auth: 'Authentication',
      endpoints: 'Endpoints',
      publicData: 'Public files (no key)',
      examples: 'Examples',
      exRead: 'Read a reference file (no key):',
      exMe: 'Your account:',
      exPost: 'Submit a declaration for a half-year (retry safely with the same Idempotency-Key):',
      exList: 'Your declarations, newest first:',
      errors: 'Errors',
      errorsText: 'Every error is application/problem+json with a stable code; its type is the address of a page that explains it.',
      links: 'Documentation',
      swagger: 'Swagger UI: every route, schema and error',
      openapi: 'OpenAPI document',
      index: 'Index document',
      llms: 'llms.txt: the service in Markdown, for people and language models',
      name: 'Service',
      /** Before the API's name (an English proper name) on the French page. */
      apiNamed: 'API named',
      description: 'Description',
      markdown: 'Markdown summary',
      contact: 'Contact',
    },
    start: {
      whatHeading: 'What the service does for you',
      what: [
        'It keeps your figures per stream and per half-year: for each material, the weight in kilograms and, for household packaging, the number of consumer sales units (UVC).',
        'It checks them against the published rules (streams, materials, units) before storing them, and keeps every revision with its receipt.',
        'It shows what is still to be declared, half-year by half-year, with the deadlines that follow.',
        'You find every declaration again as a spreadsheet (CSV) or through the API.',
      ],
      becomeHeading: 'How to become a client',
      become: [
        'Choose the plan that covers your streams.',
        'Write to us with your company’s name and country, the plan you chose, your streams, your unique identifiers (IDU) and the e-mail address of the person who will sign in.',
        'We open your account and confirm it; the person who signs in then receives an invitation to the dashboard by e-mail, which works once, for 7 days. Later, a sign-in link asked for on the sign-in page works once, for 15 minutes.',
        'In the dashboard you see what is due, file your declarations by form or spreadsheet, and create API tokens if your own software sends them.',
      ],
      seePricing: 'See the plans and prices',
      needHeading: 'What you will need',
      need: [
        'Your unique identifier (IDU) for each stream.',
        'The streams your packaging falls under (household, professional).',
        'For each half-year and each stream, your figures per material: the weight in kilograms and, for household packaging, the number of consumer sales units (UVC).',
        'The work e-mail address of the person who will sign in.',
      ],
      seeIdu: 'How to obtain an IDU',
      seeStreams: 'The streams, their materials and deadlines',
      alreadyHeading: 'Already a client?',
      developers: 'Connecting your ERP or seller tools? Everything is on the page',
    },
    streamPage: {
      toc: 'Streams on this page',
      inForce: 'In force.',
      inForceSince: 'In force since',
      upcoming: 'Coming into force',
      ended: 'This stream has ended: it takes quantities up to',
      thenDeclareIn: '; later quantities are declared under',
      code: 'Code in your files',
      legalItem: 'Legal basis',
      ofCode: 'of the Code de l’environnement',
      ademeCode: 'Code at ADEME',
      whoFor: 'About this stream',
      when: 'When to declare',
      declarableFrom: 'The service takes this stream’s quantities from',
      upTo: 'up to',
      forQuantitiesOf: 'For the quantities of',
      byDate: 'by',
      noDeadlines: 'No deadline is published for this stream yet.',
      changes: 'What changed, and when',
      eventStart: 'the stream comes into force',
      eventFirst: 'first quantities the service takes for this stream',
      eventLast: 'last day of the quantities the stream covers',
      eventThen: '; later quantities are declared under',
      eventApproval: 'approved until',
      eventRenewal: 'approval renewed until',
      eventRetired: (version: number) => `Catalogue version ${version}, materials replaced by finer ones`,
      runBy: 'Who runs it',
      approvedFrom: 'from',
      approvedTo: 'to',
      filingAt: 'Filing with',
      tiersBy: (unit: string) => `What you file depends on the number of ${unit} you place on the market each year:`,
      filingKind: 'Kind of filing',
      unitCode: 'in your files',
      tierFrom: 'from',
      tierUnder: 'under',
      tierBetween: 'from',
      tierToUnder: 'to under',
      perYear: 'a year',
      fee: 'Fee',
      tradeOptions: 'Options for some trades:',
      calendar: 'Calendar',
      invoicing: 'Invoicing',
      units: 'What you declare',
      materials: 'Materials',
      retired: 'No longer accepted:',
      replacedBy: 'replaced by',
      packagingCategories: 'Packaging categories',
      reuseStatuses: 'Reuse statuses',
      law: 'Legal texts',
      iduExample: 'For example',
      iduWarning: 'The service warns about an identifier of another shape but never refuses it.',
      unitHelp: 'In a declaration line, write',
    },
    abroadPage: {
      toc: 'Questions on this page',
      why: 'What this rests on',
      law: 'Under which text',
      next: 'Next steps',
      obligations: 'Every obligation of a packaging producer, with its deadlines',
      start: 'Becoming a client of this service',
    },
    obligationPage: {
      toc: 'Obligations on this page',
      abroad: 'Selling to France from abroad? The questions in order, with a plain answer per case',
      what: 'What to do',
      who: 'Who it concerns',
      streams: 'Streams',
      when: 'By when',
      noDeadline: 'No fixed deadline.',
      periodicity: 'How often',
      law: 'Under which text',
      noLaw: 'No legal text is published for this obligation.',
      otherwise: 'What happens otherwise',
    },
    pricingPage: {
      streams: 'Streams',
      declarationsPerYear: 'declarations a year',
      unlimitedDeclarations: 'Unlimited declarations',
      apiAccess: 'API access included',
      noApiAccess: 'No API access',
      howToBuy: 'To subscribe, see',
      endedUntil: 'for periods up to',
    },
    /** The one statement of who files what with the eco-organism (pricing.json `who_files`). */
    whoFiles: {
      heading: 'Who files what with your eco-organism',
      youGive: 'What you give the service',
      operatorDoes: 'What the operator does',
      youStillDo: 'What you still do yourself',
      byWhen: 'By when',
    },
    lawPage: {
      toc: 'Texts on this page',
      dated: 'dated',
      streams: 'Streams',
      official: 'Where to read it',
      status: { in_force: 'In force', annulled: 'Annulled' } as Record<string, string>,
    },
    notFound: {
      title: 'Page not found',
      lead: 'There is no page at this address. It may have been mistyped, or the page has moved.',
      links: 'You can go to:',
    },
    problems: {
      status: 'HTTP status',
      code: 'Code',
      type: 'Type',
      title: 'Title',
      what: 'What it means',
      todo: 'What to do',
      all: 'All error types',
      shape: 'Example',
    },
    /** What each problem type means and what to do, for the developers reading its page (/problems/<code>). */
    problemTypes: {
      bad_request: {
        what: 'The request could not be understood, for example a path that is not correctly encoded.',
        todo: 'Read the detail, fix the request and send it again.',
      },
      malformed_json: {
        what: 'The body is not valid JSON.',
        todo: 'Send a JSON document (check quotes, commas and brackets) with Content-Type: application/json.',
      },
      invalid_cursor: {
        what: 'The cursor query parameter is not one this service gave.',
        todo: 'Use the next_cursor value of the previous page as it is, or start again without a cursor.',
      },
      missing_token: {
        what: 'The route needs a bearer token and none was sent.',
        todo: 'Send the header Authorization: Bearer <token>. The WWW-Authenticate header names the realm.',
      },
      invalid_token: {
        what: 'The token is unknown, malformed, expired or revoked.',
        todo: 'Check that the whole token was copied; ask the operator for a new one if it was revoked or has expired.',
      },
      insufficient_scope: {
        what: 'The token is valid but not for this route (a client token on an operator route).',
        todo: 'Use the routes of the client API, or the operator credential for operator routes.',
      },
      admin_api_disabled: {
        what: 'The operator API is switched off on this instance (no operator credential is configured).',
        todo: 'The operator configures ADMIN_TOKEN to use it.',
      },
      session_required: {
        what: 'The dashboard page needs you to be signed in, and you are not (or your session ended: signed out, idle for 30 minutes, or 12 hours old).',
        todo: 'Sign in again at /dashboard/sign-in: with a link from the operator, or by e-mail.',
      },
      csrf_failed: {
        what: 'A dashboard form was sent without the security token of the page it came from, or with an old one.',
        todo: 'Reload the page and send the form again. Forms only work from this site’s own pages.',
      },
      not_found: {
        what: 'Nothing is at this address, or the record is not yours (another client’s record is reported the same way).',
        todo: 'Check the path and the id.',
      },
      method_not_allowed: { what: 'The path exists but not with this method.', todo: 'Use one of the methods in the Allow header.' },
      conflict: {
        what: 'The request conflicts with the current state of a record.',
        todo: 'Read the record again and decide whether to retry.',
      },
      precondition_failed: {
        what: 'The If-Match header does not match the current ETag of the record: it changed since it was read. Nothing was changed.',
        todo: 'GET the record again, reapply the change to what it is now, and send it with the new ETag.',
      },
      account_suspended: {
        what: 'The token or session is valid, but the operator has suspended the client’s account.',
        todo: 'Contact the operator; the same tokens work again once the account is reactivated.',
      },
      idempotency_key_in_flight: {
        what: 'A request with the same Idempotency-Key is still running.',
        todo: 'Wait the number of seconds in Retry-After and send the same request again: you will get the first response.',
      },
      payload_too_large: {
        what: 'The body is over 1 MiB, or holds too many JSON objects and arrays.',
        todo: 'Split the data into smaller requests (a declaration holds at most 1,000 lines).',
      },
      unsupported_media_type: { what: 'The body is not JSON.', todo: 'Send Content-Type: application/json.' },
      validation_failed: {
        what: 'The body or the query breaks one or more rules. The errors array lists every problem at once, each with a JSON pointer, a detail and a stable code. Nothing was stored.',
        todo: 'Fix every listed field and send the request again.',
      },
      idempotency_key_reused: {
        what: 'The Idempotency-Key was already used with a different body in the last 24 hours.',
        todo: 'Use a new key for a new request; reuse a key only to retry the same request.',
      },
      rate_limited: {
        what: 'Too many requests with this token in the current minute.',
        todo: 'Wait the number of seconds in Retry-After; the RateLimit headers show your budget.',
      },
      internal_error: {
        what: 'An unexpected error on our side. The response carries only the request id.',
        todo: 'Retry later; if it persists, send the instance (request id) to the contact address.',
      },
      service_unavailable: {
        what: 'The service cannot reach its database for a moment.',
        todo: 'Retry after the number of seconds in Retry-After.',
      },
    } satisfies Record<ProblemCode, { what: string; todo: string }>,
    /** The sandbox: test tokens, wiping, and the examples that work with them (/developers). */
    sandbox: {
      title: 'Try everything in your sandbox first',
      text: 'Create a test token on the API tokens page of your dashboard (choose “Test token”), or ask the operator for one: it starts with eprt_ instead of eprc_, so you and your secret scanner can tell it at a glance, and its answers, like your test declarations, say "mode": "test". With a test token every call works exactly as with a live one, against your sandbox only. Your test declarations persist between calls, so you can test whole journeys (submit, correct, list, download); their receipts start with TEST-; they are never filed, the operator never sees them, and your live tokens never see them (nor does a test token see your live declarations). The sandbox has its own rate-limit budget: a test run never slows your live traffic.',
      issue:
        'The operator issues a test token with the body {"mode": "test"} on POST /api/v1/admin/clients/{client_id}/tokens. The dashboard shows your live data only.',
      wipe: 'Start again from nothing: wipe your test data (with a test token only; a live token gets a 403 and nothing is deleted).',
      examplesIntro: 'Every command below works as it stands: set EPR_TOKEN to your test token and run it.',
      exPost:
        'Submit a declaration for a half-year. Household packaging is declared, for each material, in kilograms (kg) and in consumer sales units (uvc). Sent again with the same Idempotency-Key, it returns the first answer:',
      exCsv:
        'The same from a spreadsheet saved as CSV, with the half-year in the address (here corrected figures: revision 2 of the half-year):',
    },
  },

  /** The dashboard's product pages (src/dashboard/products.page.controller.ts, views/dashboard/products*.eta). */
  products: {
    nav: 'Products',
    title: 'Products and packaging',
    lead: 'Your products with their packaging, and the units sold each half-year: the service computes the declaration from them. Each product version applies from a half-year until a later one.',
    uploadProducts: 'Upload the product catalogue',
    uploadProductsHint:
      'A CSV file, one row per packaging element: reference, name, stream, gtin (optional), valid_from (the half-year, for example 2026-S1), material, weight_g, per_unit, and for professional packaging packaging_category and reuse_status. Comma or semicolon separated; French headers accepted.',
    uploadSales: 'Upload the sales of a half-year',
    uploadSalesHint: 'A CSV file with the columns reference and units: the sales units placed on the French market in the half-year.',
    file: 'CSV file',
    period: 'Half-year',
    periodHint: 'YYYY-S1 (January–June) or YYYY-S2 (July–December).',
    send: 'Upload',
    nothingStored: 'Nothing was stored.',
    problems: (count: number) => (count === 1 ? 'One problem to fix:' : `${n(count)} problems to fix:`),
    imported: (created: number, replaced: number, unchanged: number) =>
      `Catalogue updated: ${n(created)} new, ${n(replaced)} replaced, ${n(unchanged)} unchanged.`,
    salesRecorded: (count: number, period: string) =>
      `Sales recorded for ${period}: ${n(count)} ${plural('en', count, { one: 'product', other: 'products' })}.`,
    empty: 'No product yet: upload your catalogue.',
    reference: 'Reference',
    name: 'Name',
    stream: 'Stream',
    validFrom: 'Applies from',
    packaging: 'Packaging (one unit)',
    filed: 'used by a filed declaration',
    element: (material: string, grams: string, perUnit: number) => `${perUnit} × ${material}, ${grams} g`,
    derivedTitle: (period: string) => `Declaration computed for ${period}`,
    derivedLink: 'See the declaration computed for a half-year',
    unitsSold: (stream: string, quantity: string) =>
      `Units sold (UVC), ${stream}: ${quantity}, each product once whatever its materials; this figure, not the sum of the UVC column, is filed as the units sold.`,
    derivedLead:
      'Computed from your catalogue and sales: for each material, kg = units × elements per unit × grams ÷ 1,000, rounded to the gram on the line; the sales units carrying the material are counted once per unit. Nothing is filed until you confirm below.',
    noSales: 'No sales are recorded for this half-year.',
    material: 'Material',
    kg: 'kg',
    kgExact: 'exact kg',
    uvc: 'consumer sales units (UVC)',
    products: 'Products',
    contribution: (reference: string, units: string, kg: string) => `${reference}: ${units} units, ${kg} kg`,
    contributionsOmitted: (products: string, max: string) =>
      `${products} products give these lines: beyond ${max}, this page shows the totals only. Your software can read each product’s share from the API (derived-declaration/contributions).`,
    fileDeclaration: 'Check this declaration',
    fileHint:
      'It becomes a new revision of the half-year, like a declaration entered by hand; the products and sales it used are recorded with it.',
    lastFiled: (revision: number, receipt: string) => `Last filed from the catalogue: revision ${revision}, receipt ${receipt}.`,
    show: 'Show',
    located: (position: string | null, message: string) => (position ? `${position}: ${message}` : message),
  },

  /** The dashboard's pages: dashboard-pages.en.ts. */
  dashboardPages: dashboardPagesEn,

  /** The operator's console: operator-pages.en.ts. */
  operatorPages: operatorPagesEn,
};

export type Messages = typeof en;
