import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { remove as confusableSkeleton } from 'confusables';
import { emailKey } from '../common/email-address.js';
import { type CsvCharset, type CsvColumns, decodeCsv, readCsvTable } from '../common/csv/read-csv.js';
import type { FieldError } from '../common/problem/problem.js';
import { csvHeaderNames } from '../i18n/csv-columns.js';
import { textProblems, toFieldErrors } from '../common/validation.js';
import type { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { ClientInputDto } from './dto/client-input.dto.js';
import { type ProfilePatch, profileValueErrors } from './profile.js';
import { type Language } from '../i18n/language.js';

/** The most clients one file onboards (a book of a few hundred producers fits; more is several files). */
export const MAX_IMPORT_CLIENTS = 1_000;

/** The columns of a clients file, in the order the service names them: the fields of `POST /admin/clients`. */
export const IMPORT_CSV_COLUMNS = ['client_id', 'company', 'email', 'country', 'plan', 'streams', 'idus', 'language'] as const;
type ImportColumn = (typeof IMPORT_CSV_COLUMNS)[number];

/** Header names, English then French from the catalogues (compared ignoring case and accents), then other spellings accepted. */
export const IMPORT_COLUMNS: CsvColumns<ImportColumn> = {
  columns: IMPORT_CSV_COLUMNS,
  optional: ['client_id', 'country', 'plan', 'streams', 'idus', 'language'],
  names: csvHeaderNames('clients', IMPORT_CSV_COLUMNS, {
    client_id: ['identifiant'],
    company: ['société', 'entreprise'],
    email: ['courriel', 'adresse e-mail'],
    plan: ['formule'],
    idus: ['identifiants uniques', 'idu'],
  }),
};

/** Items of a list cell (`streams`, `idus`): separated by `|`, e.g. `EMB|EMB_PRO`. */
const LIST_SEPARATOR = '|';

/** One row of the file as the body of `POST /admin/clients` it stands for. */
export interface ImportRow {
  row: number;
  input: ProfilePatch & { clientId: string | null; language: Language | null };
}

/** A clients file read and checked row by row (without the database: duplicates against existing clients are the service's). */
export interface ImportSheet {
  rows: ImportRow[];
  errors: FieldError[];
}

/** `/email` → `/rows/3/email`, `/streams/1` → `/rows/3/streams` (the cell), with the row in the detail. */
function atCell(row: number, error: FieldError): FieldError {
  const [, column = '', item] = /^\/([^/]*)(?:\/(\d+))?/.exec(error.pointer) ?? [];
  const detail = item === undefined ? error.detail : `item ${Number(item) + 1} of the list: ${error.detail}`;
  return {
    pointer: `/rows/${row}${column ? `/${column}` : ''}`,
    code: error.code,
    detail: `row ${row}: ${column ? `${column} ` : ''}${detail}`,
    row,
    params: { ...error.params, row },
  };
}

const listOf = (cell: string | undefined) =>
  cell === undefined
    ? undefined
    : cell
        .split(LIST_SEPARATOR)
        .map((item) => item.trim())
        .filter((item) => item !== '');

/**
 * A clients file (either CSV dialect, French or English headers) as the `POST /admin/clients`
 * bodies it stands for, each checked by the same rules as that route (its DTO, then the published
 * plans and streams), plus: `company` and `email` are required (a client to onboard has both, and
 * they tell a duplicate), and duplicates within the file are refused. Problems point at cells
 * (`/rows/3/email`, header = row 1). A file that cannot be read as such a table is refused whole.
 */
export function readClientsCsv(file: { bytes: Buffer; charset: CsvCharset | undefined }, catalogue: ReferenceCatalogue): ImportSheet {
  const text = decodeCsv(file.bytes, file.charset, 'text/csv');
  const table = readCsvTable(text, IMPORT_COLUMNS, MAX_IMPORT_CLIENTS);
  const sheet: ImportSheet = { rows: [], errors: [...table.errors] };
  if (table.records.length === 0) {
    sheet.errors.push({
      pointer: '/rows',
      code: 'no_clients',
      detail: 'the file has a header but no client: add one row per client',
      params: {},
    });
    return sheet;
  }
  const byId = new Map<string, number>();
  const byContact = new Map<string, number>();
  for (const { row, cells } of table.records) {
    if (sheet.rows.length === MAX_IMPORT_CLIENTS) {
      sheet.errors.push({
        pointer: `/rows/${row}`,
        code: 'too_many_clients',
        detail: `row ${row}: a file onboards at most ${MAX_IMPORT_CLIENTS.toLocaleString('en')} clients; split it`,
        row,
        params: { row, max: MAX_IMPORT_CLIENTS },
      });
      break;
    }
    const body: Record<string, unknown> = { ...cells, streams: listOf(cells.streams), idus: listOf(cells.idus) };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const textErrors = textProblems(body);
    if (textErrors.length > 0) {
      sheet.errors.push(...textErrors.map((error) => atCell(row, error)));
      continue;
    }
    const dto = plainToInstance(ClientInputDto, body);
    const errors = toFieldErrors(
      validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: true } }),
    );
    for (const field of ['company', 'email'] as const) {
      if (dto[field] === undefined)
        errors.push({ pointer: `/${field}`, code: 'required', detail: 'is required to onboard a client', params: { field } });
    }
    errors.push(...profileValueErrors(dto, catalogue));
    sheet.errors.push(...errors.map((error) => atCell(row, error)));
    if (errors.length > 0) continue;

    const { client_id, language, ...profile } = dto;
    if (client_id) {
      const first = byId.get(client_id);
      if (first !== undefined) {
        sheet.errors.push({
          pointer: `/rows/${row}/client_id`,
          code: 'duplicate_client',
          detail: `row ${row}: client_id "${client_id}" is also on row ${first}`,
          row,
          params: { row, value: client_id, other: first },
        });
      } else byId.set(client_id, row);
    }
    const contact = contactKey(dto.email!, dto.company!);
    const first = byContact.get(contact);
    if (first !== undefined) {
      sheet.errors.push({
        pointer: `/rows/${row}/email`,
        code: 'duplicate_client',
        detail: `row ${row}: the same company and e-mail address are on row ${first}`,
        row,
        params: { row, value: dto.email!, other: first },
      });
    } else byContact.set(contact, row);
    sheet.rows.push({ row, input: { clientId: client_id ?? null, language: language ?? null, ...profile } });
  }
  sheet.errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  return sheet;
}

/**
 * A company name as compared for duplicates: compatibility characters made plain (NFKC: full-width
 * letters), letters that look alike made one (a Cyrillic `Е` and a Latin `E`, `é` and `e`: the
 * `confusables` package's table), case and runs of white space ignored.
 */
export function companyKey(company: string): string {
  return confusableSkeleton(company.normalize('NFKC')).toLowerCase().replace(/\s+/g, ' ').trim();
}

/** What tells two clients apart besides their id: the same company (`companyKey`) at the same address (`emailKey`: the service's rule, A–Z folded). */
export function contactKey(email: string, company: string): string {
  return `${emailKey(email)}\u0000${companyKey(company)}`;
}
