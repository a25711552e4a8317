/**
 * Spreadsheet formulas in the CSV files the service writes (OWASP "CSV injection"). A spreadsheet runs a
 * cell starting with `=`, `+`, `-` or `@` (some also tab or CR) and may split on another separator than
 * the writer's (French Excel on `;`): so every part after a `,`, `;`, tab or line break, past spaces,
 * quotes and invisible format characters (U+200B, U+2060, U+FEFF…), that starts with a formula character
 * (after any `'`) gets one more `'` in front. `restoreCell` takes exactly those away. No dependencies:
 * the build writes the public template with it.
 */

/** Where a part starts (the cell's start, or after a separator) and its leading spaces or quotes, before a formula character after any `'`. */
const FORMULA_PART = /(?<=^|[,;\t\r\n])([\p{Zs}\p{Cf}"]*)(?='*[=+\-@\t\r])/gu;
/** The same, after the `'` neutraliseCell put there. */
const NEUTRALISED_PART = /(?<=^|[,;\t\r\n])([\p{Zs}\p{Cf}"]*)'(?='*[=+\-@\t\r])/gu;

/** The cell as written to a file: every part that could start a formula in some spreadsheet starts with one more `'`. */
export function neutraliseCell(value: string): string {
  return value.replace(FORMULA_PART, "$1'");
}

/** The cell as it was before neutraliseCell (a cell it did not change is left as it is). */
export function restoreCell(value: string): string {
  return value.includes("'") ? value.replace(NEUTRALISED_PART, '$1') : value;
}
