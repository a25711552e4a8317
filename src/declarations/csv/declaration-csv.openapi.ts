import type { OpenAPIObject } from '@nestjs/swagger';
import { CSV_COLUMNS, CSV_HEADERS } from '../../common/csv/declaration-file.js';
import { csvHeader } from '../../i18n/csv-columns.js';

/** Column names as the documentation quotes them: `a`, `b`. */
const quoted = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

// Household packaging (EMB) declares each material in kg and in uvc (reference-data/streams.yaml, unit_requirements).
export const CSV_REQUEST_EXAMPLE =
  `${CSV_HEADERS.fr.join(';')}\r\n` +
  'EMB;Verre;kg;1200,5\r\nEMB;Verre;uvc;4800\r\nEMB;Papier-carton;kg;310\r\nEMB;Papier-carton;uvc;1500\r\n';
export const CSV_RESPONSE_EXAMPLE =
  '\ufeffstream,material,unit,quantity\r\nEMB,Verre,kg,1200.5\r\nEMB,Verre,uvc,4800\r\nEMB,Papier-carton,kg,310\r\nEMB,Papier-carton,uvc,1500\r\n';

/**
 * `@nestjs/swagger` gives every media type of a request body the DTO's schema: the `text/csv`
 * body of `POST /api/v1/declarations` is text, described here.
 */
export function documentCsvRequestBody(document: OpenAPIObject): OpenAPIObject {
  for (const [path, description, example] of CSV_BODIES) {
    const body = document.paths[path]?.post?.requestBody;
    if (body && 'content' in body && body.content['text/csv']) {
      body.content['text/csv'] = { schema: { type: 'string', maxLength: 1024 * 1024, description }, example };
    }
  }
  return document;
}

/** The CSV request bodies, each with an example that succeeds as it stands (test/openapi-examples.e2e-spec.ts runs them). */
const CSV_BODIES: [path: string, description: string, example: string][] = [
  [
    '/api/v1/declarations',
    `A header row (${quoted(CSV_COLUMNS)}, or ${quoted(CSV_HEADERS.fr)}, in any order) and 1 to 1,000 rows; comma or semicolon separated; UTF-8 or Windows-1252. The period goes in the address: \`?period=2025-S1\`.`,
    CSV_REQUEST_EXAMPLE,
  ],
  [
    '/api/v1/products',
    "A header row (`reference`, `name`, `stream`, `gtin`, `valid_from`, `material`, `weight_g`, `per_unit`, `packaging_category`, `reuse_status`, or their French names) and one row per packaging element, the product's cells repeated; comma or semicolon separated; UTF-8 or Windows-1252.",
    `${csvHeader('products', ['reference', 'name', 'stream', 'gtin', 'valid_from', 'material', 'weight_g', 'per_unit'], 'fr').join(';')}\r\n` +
      'BTL-75-BLANC;Vin blanc 75 cl;EMB;;2026-S1;Verre;410,5;1\r\nBTL-75-BLANC;Vin blanc 75 cl;EMB;;2026-S1;Papier-carton;2,5;2\r\n',
  ],
  [
    '/api/v1/sales',
    `A header row (${quoted(csvHeader('sales', ['reference', 'units'], 'en'))}, or ${quoted(csvHeader('sales', ['reference', 'units'], 'fr'))}) and one row per product; comma or semicolon separated. The period goes in the address: \`?period=2026-S1\`.`,
    `${csvHeader('sales', ['reference', 'units'], 'fr').join(';')}\r\nBTL-75-BLANC;1200\r\n`,
  ],
];
