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
  const warnings: FieldError[] = [];
  declaration.lines.forEach((line, index) => {
    if (line.materialCode !== null) return;
    const stream = catalogue.stream(line.stream);
    const categories = stream ? foldedCategories(stream.materials) : [];
    const names = (name: { fr: string; en: string }) => ({ fr: name.fr, en: name.en });
    // The categories whose name holds what was typed ("Plastique" → the plastic ones) come first, as the example to give.
    const typed = foldText(line.material);
    const similar = categories.filter((m) => m.fr.includes(typed) || m.en.includes(typed)).map((m) => m.material);
    const suggested = [...similar, ...categories.map((m) => m.material).filter((m) => !similar.includes(m))];
    warnings.push({
      pointer: `/lines/${index}/material`,
      code: 'material_uncategorised',
      detail: `"${line.material}" is not a material category of ${line.stream}: it is stored as written, but it will not match a line of the eco-organism's grid. If one fits, use a published category instead (the stream's materials in /api/v1/streams.json, for example ${categories.find((m) => m.material.code === 'glass')?.material.code ?? categories[0]?.material.code ?? 'glass'}).`,
      params: {
        line: index + 1,
        field: 'material',
        value: line.material,
        stream: line.stream,
        streamName: stream && names(stream.name),
        allowed: suggested.map((m) => names(m.name)),
      },
    });
  });
  // Each material's count of units, to judge its mass per unit.
  const group = (stream: string, materialCode: string | null, material: string) => `${stream}\u0000${materialCode ?? foldText(material)}`;
  const units = new Map<string, number>();
  for (const line of declaration.lines)
    if (line.unit === 'uvc') units.set(group(line.stream, line.materialCode, line.material), Number(line.quantity));
  declaration.lines.forEach((line, index) => {
    if (line.unit !== 'kg') return;
    const count = units.get(group(line.stream, line.materialCode, line.material));
    const kg = Number(line.quantity);
    if (count === undefined || count <= 0 || kg <= 0) return;
    const grams = (kg * 1000) / count;
    if (grams >= MIN_GRAMS_PER_UNIT) return;
    warnings.push({
      pointer: `/lines/${index}/quantity`,
      code: 'quantity_maybe_tonnes',
      detail: `${line.quantity} kg for ${count} consumer sales units is ${Number(grams.toPrecision(2))} g of ${line.material} per unit: is this figure in tonnes? Write kilograms (1.2 t = 1200 kg); keep it if it is right.`,
      params: { line: index + 1, field: 'quantity', value: line.quantity, count, grams, material: line.material },
    });
  });
  return warnings.sort((a, b) => lineOf(a) - lineOf(b));
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

const lineOf = (warning: FieldError) => Number(/^\/lines\/(\d+)/.exec(warning.pointer)?.[1] ?? 0);
