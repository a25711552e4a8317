/**
 * Spreadsheet formulas in the CSV files the service writes (OWASP "CSV injection"). A spreadsheet
 * runs a cell that starts with `=`, `+`, `-` or `@` (some also a tab or a carriage return), and it
 * may split a file on another separator than the one it was written with: French Excel splits a
 * `.csv` on `;`, others on tab. So not only a cell's first character counts, but the first of every
 * part of it that follows a `,`, `;`, tab or line break, after any spaces, quotes or invisible
 * format characters (U+200B, U+2060, U+FEFF…, which a reader may drop or not show): there, a
 * formula character (after any `'`) gets one more `'` in front, which a spreadsheet shows as text.
 * `restoreCell` takes exactly those `'` away again (an upload of a downloaded file reads what was
 * stored). No dependencies: the build writes the public template with it.
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
  return value.replace(NEUTRALISED_PART, '$1');
}
