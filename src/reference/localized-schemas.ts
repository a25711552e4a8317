import { LANGUAGE_REGISTRY, type LanguageRegistry } from '../i18n/languages.js';
import type { JsonSchema } from './reference-documents.js';

/**
 * A reference-data schema with each of its text blocks (an object schema whose properties are
 * language codes: `{fr, en}` as the files write them) made the registry's: a property per language,
 * shaped as the block's English one, and the languages without a fallback required. The files stay
 * readable; a language added to the registry is accepted in every text at once.
 */
export function localizeSchema(schema: JsonSchema, registry: LanguageRegistry = LANGUAGE_REGISTRY): JsonSchema {
  return localize(schema, registry) as JsonSchema;
}

function localize(node: unknown, registry: LanguageRegistry): unknown {
  if (Array.isArray(node)) return node.map((item) => localize(item, registry));
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Record<string, unknown>;
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (schema.type === 'object' && properties && isTextBlock(Object.keys(properties), registry)) {
    const model = properties.en ?? Object.values(properties)[0]!;
    // The file's order first (its bytes stay as they are for the languages it writes), then the registry's others.
    const codes = [...Object.keys(properties), ...registry.codes.filter((code) => !(code in properties))];
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    return {
      ...schema,
      required: [
        ...required.filter((code) => registry.required.includes(code)),
        ...registry.required.filter((code) => !required.includes(code)),
      ],
      properties: Object.fromEntries(
        codes.map((code) => [code, properties[code] ?? { ...model, description: `${registry.get(code).englishName}.` }]),
      ),
    };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, localize(value, registry)]));
}

/** Keys that are all language codes and name every language a text must have. */
function isTextBlock(keys: readonly string[], registry: LanguageRegistry): boolean {
  return keys.length > 0 && keys.every((key) => registry.has(key)) && registry.required.every((code) => keys.includes(code));
}
