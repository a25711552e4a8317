import { Transform } from 'class-transformer';

/** A name as enumerations compare it: trimmed, without regard to case and accents (`léko` = `LEKO` = `Leko`). */
export const foldSpelling = (text: string): string => text.trim().normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().toLowerCase();

/** The one of `spellings` that `value` names, compared by `foldSpelling`; undefined when none does. */
export function publishedSpelling(value: string, spellings: Iterable<string>): string | undefined {
  const folded = foldSpelling(value);
  for (const spelling of spellings) if (foldSpelling(spelling) === folded) return spelling;
  return undefined;
}

/**
 * class-transformer: a value of an enumeration written in any case and with or without accents
 * (`citeo`, `LEKO`, `léko`, `Business`, `FR` for a language) becomes its published spelling
 * (`Citeo`, `Léko`, `business`, `fr`), the items of an array one by one. Anything else is left as
 * sent, for the validators or the service to refuse with the list of what is accepted.
 */
export const PublishedSpelling = (spellings: () => Iterable<string>) =>
  Transform(({ value }: { value: unknown }) => {
    const spell = (item: unknown) => (typeof item === 'string' ? (publishedSpelling(item, spellings()) ?? item) : item);
    return Array.isArray(value) ? value.map(spell) : spell(value);
  });
