import type { FieldError } from '../common/problem/problem.js';
import { foldText, type ReferenceCatalogue } from '../reference/reference-catalogue.js';
import type { ValidDeclaration } from './declaration-validator.js';

/**
 * Below this mass of one material per consumer sales unit, a kg line most likely holds tonnes: the
 * lightest parts declared alone (a label, a cap, a film) weigh half a gram or more, and tonnes typed as
 * kg divide by 1,000 (a 25 g tray shows 0.025 g). It needs the material's unit count (household
 * packaging declares kg and uvc), is blind to heavy packaging (300 g typed in tonnes is 0.3 g), and warns,
 * never refuses, as DEFRA's service does (whose absolute "under 100 kg" rule misfits small producers).
 */
export const MIN_GRAMS_PER_UNIT = 0.1;

/**
 * What a person filing should know about a valid declaration, without it being an error: a
 * material that names no category of the stream's published grid (stored as written, but the
 * eco-organism's grid has no line for it), and a mass per unit too small to be kilograms. Pointers
 * are those of the JSON body (`/lines/3/material`); the CSV path points them at cells.
 */
export function declarationWarnings(declaration: ValidDeclaration, catalogue: ReferenceCatalogue): FieldError[] {
  return warningsInBrief(declaration, catalogue, Infinity).warnings;
}

/**
 * `declarationWarnings` as a page shows them: the first `perCode` warnings of each code, in the order of
 * the lines, and how many there are of each code in all. The others are counted, never built (a file of
 * 1,000 uncategorised materials makes 3 warnings, not 1,000).
 */
export function warningsInBrief(
  declaration: ValidDeclaration,
  catalogue: ReferenceCatalogue,
  perCode: number,
): { warnings: FieldError[]; counts: Map<string, number> } {
  // Each warning with its line's index, to put them in the order of the lines at the end.
  const warnings: { at: number; warning: FieldError }[] = [];
  const counts = new Map<string, number>();
  /** Counts a warning of `code`; whether it is one to build. */
  const kept = (code: string) => {
    const count = (counts.get(code) ?? 0) + 1;
    counts.set(code, count);
    return count <= perCode;
  };
  // The suggestions for each material typed, per stream, worked out once per request.
  const suggestions = new Map<string, Map<string, readonly Names[]>>();
  declaration.lines.forEach((line, index) => {
    if (line.materialCode !== null || !kept('material_uncategorised')) return;
    const stream = factsOf(catalogue, line.stream);
    let suggestedFor = suggestions.get(line.stream);
    if (!suggestedFor) suggestions.set(line.stream, (suggestedFor = new Map()));
    // The categories whose name holds what was typed ("Plastique" → the plastic ones) come first, as the example to give.
    const typed = foldText(line.material);
    let suggested = suggestedFor.get(typed);
    if (!suggested) {
      const similar =
        typed.length > stream.longest || !stream.allFolded.includes(typed)
          ? []
          : stream.categories.filter((m) => m.fr.includes(typed) || m.en.includes(typed));
      suggested =
        similar.length === 0
          ? stream.all
          : [...similar, ...stream.categories.filter((m) => !similar.includes(m))].map((m) => names(m.material.name));
      suggestedFor.set(typed, suggested);
    }
    warnings.push({
      at: index,
      warning: {
        pointer: `/lines/${index}/material`,
        code: 'material_uncategorised',
        detail: `"${line.material}"${stream.uncategorised}`,
        params: {
          line: index + 1,
          field: 'material',
          value: line.material,
          stream: line.stream,
          streamName: stream.name,
          allowed: suggested,
        },
      },
    });
  });
  // Each material's count of units, to judge its mass per unit (only when there are kg lines to judge).
  const group = (stream: string, materialCode: string | null, material: string) => `${stream}\u0000${materialCode ?? foldText(material)}`;
  const units = new Map<string, number>();
  if (declaration.lines.some((line) => line.unit === 'kg'))
    for (const line of declaration.lines)
      if (line.unit === 'uvc') units.set(group(line.stream, line.materialCode, line.material), Number(line.quantity));
  if (units.size > 0)
    declaration.lines.forEach((line, index) => {
      if (line.unit !== 'kg') return;
      const count = units.get(group(line.stream, line.materialCode, line.material));
      const kg = Number(line.quantity);
      if (count === undefined || count <= 0 || kg <= 0) return;
      const grams = (kg * 1000) / count;
      if (grams >= MIN_GRAMS_PER_UNIT || !kept('quantity_maybe_tonnes')) return;
      warnings.push({
        at: index,
        warning: {
          pointer: `/lines/${index}/quantity`,
          code: 'quantity_maybe_tonnes',
          detail: `${line.quantity} kg for ${count} consumer sales units is ${Number(grams.toPrecision(2))} g of ${line.material} per unit: is this figure in tonnes? Write kilograms (1.2 t = 1200 kg); keep it if it is right.`,
          params: { line: index + 1, field: 'quantity', value: line.quantity, count, grams, material: line.material },
        },
      });
    });
  // Stable: a line's material warning before its quantity's, as before.
  return { warnings: warnings.sort((a, b) => a.at - b.at).map(({ warning }) => warning), counts };
}

type Names = { fr: string; en: string };
const names = (name: Names): Names => ({ fr: name.fr, en: name.en });
interface StreamFacts {
  name: Names | null;
  categories: { material: Category; fr: string; en: string }[];
  /** The longest folded name: a longer text is in none. */
  longest: number;
  /** Every folded name, NUL between two: a text that is not in it is in no name (one search rather than two a category). */
  allFolded: string;
  /** Every category's names, in the grid's order: what is suggested when nothing typed matches. */
  all: readonly Names[];
  example: string;
  /** What the detail of an uncategorised material says after the material, the same for every line of the stream. */
  uncategorised: string;
}

/** What a stream's warnings share, worked out once per stream of the catalogue: its names, its categories folded, the example to give. */
const streamFacts = new WeakMap<object, StreamFacts>();
function factsOf(catalogue: ReferenceCatalogue, code: string): StreamFacts {
  const stream = catalogue.stream(code);
  let found = stream && streamFacts.get(stream);
  if (!found) {
    const categories = stream ? foldedCategories(stream.materials) : [];
    // Shared by the warnings of every request: frozen, so that no reader can change another's.
    const all = Object.freeze(categories.map((m) => Object.freeze(names(m.material.name))));
    const example = categories.find((m) => m.material.code === 'glass')?.material.code ?? categories[0]?.material.code ?? 'glass';
    const longest = Math.max(0, ...categories.map((m) => Math.max(m.fr.length, m.en.length)));
    const allFolded = categories.flatMap((m) => [m.fr, m.en]).join('\u0000');
    const uncategorised = ` is not a material category of ${code}: it is stored as written, but it will not match a line of the eco-organism's grid. If one fits, use a published category instead (the stream's materials in /api/v1/streams.json, for example ${example}).`;
    found = { name: stream ? Object.freeze(names(stream.name)) : null, categories, longest, allFolded, all, example, uncategorised };
    if (stream) streamFacts.set(stream, found);
  }
  return found;
}

type Category = { code: string; name: { fr: string; en: string } };
/** Each stream's categories with their names folded, once (a file of 1,000 uncategorised lines would fold them 1,000 times). */
const folded = new WeakMap<readonly Category[], { material: Category; fr: string; en: string }[]>();
function foldedCategories<T extends Category>(materials: readonly T[]): { material: T; fr: string; en: string }[] {
  let found = folded.get(materials);
  if (!found)
    folded.set(
      materials,
      (found = materials.map((material) => ({ material, fr: foldText(material.name.fr), en: foldText(material.name.en) }))),
    );
  return found as { material: T; fr: string; en: string }[];
}
