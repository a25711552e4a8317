/**
 * French typography for the French catalogue's literal text (`fr\`Le semestre : ${period}\``): ’ for ',
 * a no-break space U+00A0 before a colon and inside « guillemets », a narrow no-break space U+202F before
 * ; ! and ?. Interpolated values (a material, a cell, an address) are left exactly as they are; the
 * catalogue's tests check the result.
 */
const THIN = '\u202f';
const NBSP = '\u00a0';

/** The literal text of a French message, set (see above). */
export function frenchTypography(text: string): string {
  return text
    .replace(/'/g, '’')
    .replace(/[ \u00a0\u202f]+:/g, `${NBSP}:`)
    .replace(/[ \u00a0\u202f]+([;!?])/g, `${THIN}$1`)
    .replace(/«[ \u00a0\u202f]*/g, `«${NBSP}`)
    .replace(/[ \u00a0\u202f]*»/g, `${NBSP}»`);
}

/** A template tag: the literal parts set by `frenchTypography`, the values as they are. */
export function fr(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = frenchTypography(strings[0]!);
  values.forEach((value, i) => {
    out += String(value) + frenchTypography(strings[i + 1]!);
  });
  return out;
}
