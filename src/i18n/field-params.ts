/**
 * The parameters each validation code's message needs, as the code that finds the problem sets them in
 * `FieldError.params` (src/common/problem/problem.ts): one entry per `code` of `errors[]`, one message
 * per entry in each catalogue. A parameter is optional where some source cannot give it (the message then
 * goes without the detail); names of reference data come in every language (`{ fr, en }`), codes as a
 * person writes them in a file (`EMB`, `kg`).
 */
import type { NumberProblemParams } from './read-number.js';

/** A name of the reference data in each language, as the streams data holds it. */
export type Names = Readonly<Record<string, string>>;

/** Where the problem is: set on every problem of a declaration line or CSV cell. */
export interface Position {
  /** The declaration's line, counted from 1 (form and JSON body). */
  line?: number;
  /** The spreadsheet row of a CSV file, header = 1. */
  row?: number;
  /** The key of the field or column (`quantity`); messages name it in words, never as the key. */
  field?: string;
}

type Bounds = { min?: number; max?: number };

/** A product catalogue or sales upload, and the declaration derived from them (src/products/). */
export interface ProductFieldParams {
  no_products: Position & { min?: number };
  too_many_products: Position & { max?: number; count?: number };
  duplicate_reference: Position & { value?: string; other?: number };
  invalid_text: Position & { reason?: 'empty' | 'too_long' | 'characters'; max?: number; length?: number };
  invalid_gtin: Position & { reason?: 'format' | 'check_digit'; value?: string };
  no_elements: Position & { min?: number };
  too_many_elements: Position & { max?: number; count?: number };
  catalogue_full: Position & { max?: number; count?: number; added?: number };
  too_many_versions: Position & { max?: number; value?: string };
  unknown_material: Position & { value?: string; stream?: string; allowed?: readonly Names[] };
  invalid_weight: Position & { reason?: 'not_a_number' | 'not_positive' | 'too_large' | 'too_small'; max?: number; min?: number };
  weight_too_precise: Position & { decimals?: number; actual?: number };
  invalid_count: Position & { min?: number; max?: number };
  not_applicable: Position & { stream?: string };
  unknown_packaging_category: Position & { value?: string; allowed?: readonly string[]; stream?: string };
  unknown_reuse_status: Position & { value?: string; allowed?: readonly string[]; stream?: string };
  inconsistent_product: Position & { first?: number };
  product_version_filed: Position & { value?: string; period?: string };
  unknown_product: Position & { value?: string };
  no_version_for_period: Position & { value?: string; period?: string };
  nothing_to_derive: Position & { period?: string };
  /** A per-product file of the dashboard (src/products/spreadsheet/product-sheet.ts); `column`: her header. */
  product_missing: Position & { column?: string };
  units_missing: Position & { column?: string };
  inconsistent_units: Position & { column?: string; first?: number };
}

export interface FieldParams extends ProductFieldParams {
  // Any request (validation pipe, declaration rules, profile rules)
  unknown_field: Position;
  /** `units`: for a line's unit, what each unit it may use is for (the streams data's `help`). */
  required: Position & { units?: readonly Names[] };
  invalid_type: Position & { expected?: 'object' | 'string' | 'array'; actual?: string; units?: readonly Names[] };
  invalid_characters: Position;
  too_deep: { max?: number };
  more_errors: { count?: number };
  invalid_string: Position;
  not_blank: Position;
  not_trimmed: Position;
  max_length: Position & Bounds;
  invalid_length: Position & Bounds;
  invalid_email: Position;
  email_characters: Position;
  invalid_array: Position;
  array_max_size: Position & Bounds;
  matches: Position;
  invalid_date_time: Position;
  expiry_out_of_range: Position & Bounds;
  limit_out_of_range: Position & Bounds;
  invalid_status: Position;
  invalid_mode: Position;
  invalid_client_id: Position;
  invalid_actor: Position;
  invalid_action: Position;
  invalid_stream: Position;
  invalid_plan: Position;
  invalid_boolean: Position;
  invalid_country_code: Position;
  invalid_language_code: Position;
  duplicate: Position & { value?: string };
  unknown_plan: Position & { value?: string; plans?: readonly string[] };
  not_in_plan: Position & { plan?: string; stream?: string; covered?: readonly string[] };
  invalid_idempotency_key: Position;
  idempotency_key_reused: Position;
  // The operator's import of clients (accounts/clients-import.ts)
  no_clients: Position;
  too_many_clients: Position & { max?: number };
  duplicate_client: Position & { value?: string; other?: number };
  client_exists: Position & { value?: string };
  // The operator's reminders
  period_not_ended: Position & { period?: string; end?: string };
  // The operator's per-stream settings (eco-organism)
  invalid_client_status: Position;
  link_lifetime_out_of_range: Position & Bounds;
  invalid_csv_dialect: Position;
  invalid_export_detail: Position & { listed?: readonly string[] };
  unknown_eco_organism: Position & { value?: string; stream?: string; period?: string; listed?: readonly string[] };

  // A declaration (DeclarationValidator)
  account_not_confirmed: Position;
  invalid_period_format: Position & { value?: string };
  period_too_early: Position & { earliest?: string };
  period_not_started: Position & { period?: string; start?: string; current?: string };
  /** `comments`: in a file, rows skipped as comments (`#`, the template's examples). */
  too_few_lines: Position & { min?: number; comments?: number };
  too_many_lines: Position & { max?: number; count?: number };
  unknown_stream: Position & { value?: string; streams?: readonly string[] };
  stream_not_registered: Position & { stream?: string; streamName?: Names; registered?: readonly string[] };
  stream_not_declarable_for_period: Position & { stream?: string; streamName?: Names; period?: string; from?: string };
  stream_ended: Position & { stream?: string; streamName?: Names; period?: string; until?: string; replacedBy?: string | null };
  material_retired: Position & { stream?: string; streamName?: Names; material?: Names; version?: number; replacedBy?: readonly Names[] };
  invalid_material: Position & { reason?: 'empty' | 'too_long' | 'characters'; max?: number; length?: number };
  unit_not_allowed: Position & { value?: string; allowed?: readonly string[]; units?: readonly Names[]; stream?: string };
  quantity_not_a_number: Position & { value?: string; actual?: string; delimiter?: ',' | ';' };
  quantity_negative: Position;
  quantity_too_large: Position & { max?: number };
  quantity_too_precise: Position & { unit?: string; decimals?: number };
  duplicate_line: Position & { lines?: readonly number[]; rows?: readonly number[]; more?: number };
  companion_line_missing: Position & { stream?: string; streamName?: Names; unit?: string; requires?: string; material?: string };
  too_many_units_sold: Position & { max?: number; count?: number };
  units_sold_not_counted: Position & { stream?: string; streamName?: Names };
  duplicate_units_sold: Position & { stream?: string; other?: number };
  units_sold_without_lines: Position & { stream?: string; streamName?: Names };
  units_sold_below_material_count: Position & { stream?: string; value?: string; count?: string; material?: string };

  // Warnings of a valid declaration (declaration-warnings.ts): said, never refused
  material_uncategorised: Position & { value?: string; stream?: string; streamName?: Names; allowed?: readonly Names[] };
  quantity_maybe_tonnes: Position & { value?: string; count?: number; grams?: number; material?: string };

  // A CSV file (the CSV reader)
  invalid_csv_header: Position & { reason?: 'no_columns' | 'both_separators'; tabs?: boolean };
  unknown_column: Position & { name?: string; column?: number };
  missing_column: Position & { column?: string };
  duplicate_column: Position & { column?: string; count?: number };
  invalid_csv: Position & { reason?: 'quote_not_closed' | 'quotes' };
  too_many_rows: Position & { max?: number };
  too_many_cells: Position & { cells?: number; columns?: number; delimiter?: string };

  // The dashboard's upload
  file_missing: Position;

  // A number as typed (readNumber), for a form field or a file's cell
  number_empty: Position & Partial<NumberProblemParams>;
  number_has_unit: Position & Partial<NumberProblemParams>;
  number_scientific: Position & Partial<NumberProblemParams>;
  number_grouping: Position & Partial<NumberProblemParams>;
  number_ambiguous: Position & Partial<NumberProblemParams>;
  number_invalid: Position & Partial<NumberProblemParams>;
}

export type FieldCode = keyof FieldParams;
