/**
 * The header of every CSV file the service writes or reads comes from the message catalogues
 * (`files.columns`, keyed by each column's stable code): a writer takes its header row in the
 * dialect's language, a reader accepts the header of every language (then its own aliases).
 */
import { LANGUAGES, type Language } from './language.js';
import { MESSAGES, type Messages } from './messages/index.js';

type FileColumns = Messages['files']['columns'];

/** A CSV file whose columns the catalogues name. */
export type CsvFileName = keyof FileColumns;

/** The column codes of a file. */
export type CsvColumnCode<F extends CsvFileName> = keyof FileColumns[F] & string;

const wordsOf = <F extends CsvFileName>(file: F, language: Language) =>
  MESSAGES[language].files.columns[file] as Readonly<Record<CsvColumnCode<F>, string>>;

/** The header row of `file` in `language`: each column's words from that language's catalogue, in the order of `columns`. */
export function csvHeader<F extends CsvFileName>(file: F, columns: readonly CsvColumnCode<F>[], language: Language): string[] {
  const words = wordsOf(file, language);
  return columns.map((column) => words[column]);
}

/**
 * Words the French files used before the glossary chose « filière » for a stream: files written then
 * still read.
 */
const FORMER_WORDS: Readonly<Record<string, readonly string[]>> = { stream: ['flux'], streams: ['flux'] };

/**
 * The header names a reader accepts for each column of `file`: each language's catalogue's, in the
 * registry's order (English first, then French: common/csv/read-csv.ts says them in this order), then the reader's `aliases`
 * (other spellings people write).
 */
export function csvHeaderNames<F extends CsvFileName, C extends CsvColumnCode<F>>(
  file: F,
  columns: readonly C[],
  aliases: { readonly [K in C]?: readonly string[] } = {},
): Record<C, readonly string[]> {
  const words = LANGUAGES.map((language) => wordsOf(file, language));
  const names = columns.map((column): [C, readonly string[]] => [
    column,
    [...words.map((w) => w[column]), ...(FORMER_WORDS[column] ?? []), ...(aliases[column] ?? [])],
  ]);
  return Object.fromEntries(names) as Record<C, readonly string[]>;
}
