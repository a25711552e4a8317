/**
 * The service's words, one term per concept, in French and English: `reference-data/glossary.yaml`,
 * read once when the code loads. The site shows it as a page in both languages; the catalogues use
 * its terms (`term`), and the glossary's test checks that no French page or e-mail uses a word the
 * glossary rules out (`avoid`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../common/repo-root.js';
import { LANGUAGE_REGISTRY, textIn, type Language, type Localized, type RequiredLanguage } from './languages.js';

/** A term is written in every language without a fallback (languages.ts); another shows the fallback's. */
const REQUIRED = LANGUAGE_REGISTRY.required as readonly RequiredLanguage[];

export interface GlossaryTerm {
  /** Stable key, e.g. `revision`. */
  id: string;
  term: Localized;
  definition: Localized;
  /** Synonyms the glossary rules out, per language: a page of that language does not use them. */
  avoid: Localized<string[]>;
}

export interface Glossary {
  updated: string;
  terms: GlossaryTerm[];
}

export const GLOSSARY_FILE = join(REPO_ROOT, 'reference-data', 'glossary.yaml');

/** Reads and checks the glossary: every term has its words and definition in both languages and a unique id. */
export function readGlossary(text: string): Glossary {
  const data = parse(text) as Partial<Glossary> | null;
  const problems: string[] = [];
  if (!data || typeof data.updated !== 'string' || !Array.isArray(data.terms))
    throw new Error('glossary.yaml: needs `updated` and `terms`');
  const ids = new Set<string>();
  data.terms.forEach((entry, i) => {
    const at = `glossary.yaml /terms/${i}`;
    if (typeof entry.id !== 'string' || ids.has(entry.id)) problems.push(`${at}/id: missing or duplicate`);
    ids.add(entry.id);
    for (const key of ['term', 'definition'] as const)
      for (const lang of REQUIRED)
        if (typeof entry[key]?.[lang] !== 'string' || entry[key][lang].trim() === '') problems.push(`${at}/${key}/${lang}: missing`);
    for (const lang of REQUIRED)
      if (!Array.isArray(entry.avoid?.[lang]) || entry.avoid[lang].some((word) => typeof word !== 'string'))
        problems.push(`${at}/avoid/${lang}: a list of words`);
  });
  if (problems.length > 0) throw new Error(`Invalid glossary:\n  ${problems.join('\n  ')}`);
  return data as Glossary;
}

export const GLOSSARY: Glossary = readGlossary(readFileSync(GLOSSARY_FILE, 'utf8'));

const byId = new Map(GLOSSARY.terms.map((entry) => [entry.id, entry]));

/** The glossary's term for a concept in a language: `term('revision', 'fr')` → « version ». */
export function term(id: string, language: Language): string {
  const entry = byId.get(id);
  if (!entry) throw new Error(`glossary: no term "${id}"`);
  return textIn(entry.term, language).text;
}
