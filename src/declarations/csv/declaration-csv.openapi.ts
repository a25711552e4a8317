import type { OpenAPIObject } from '@nestjs/swagger';

// Household packaging (EMB) declares each material in kg and in uvc (reference-data/streams.yaml, unit_requirements).
export const CSV_REQUEST_EXAMPLE = 'flux;matériau;unité;quantité\r\nEMB;Verre;kg;1200,5\r\nEMB;Verre;uvc;4800\r\nEMB;Papier-carton;kg;310\r\nEMB;Papier-carton;uvc;1500\r\n';
export const CSV_RESPONSE_EXAMPLE = '\ufeffstream,material,unit,quantity\r\nEMB,Verre,kg,1200.5\r\nEMB,Verre,uvc,4800\r\nEMB,Papier-carton,kg,310\r\nEMB,Papier-carton,uvc,1500\r\n';

/**
 * `@nestjs/swagger` gives every media type of a request body the DTO's schema: the `text/csv`
 * body of `POST /api/v1/declarations` is text, described here.
 */
export function documentCsvRequestBody(document: OpenAPIObject): OpenAPIObject {
  const body = document.paths['/api/v1/declarations']?.post?.requestBody;
  if (body && 'content' in body && body.content['text/csv']) {
    body.content['text/csv'] = {
      schema: {
        type: 'string',
        maxLength: 1024 * 1024,
        description:
          'A header row (`stream`, `material`, `unit`, `quantity`, or `flux`, `matériau`, `unité`, `quantité`, in any order) and 1 to 1,000 rows; comma or semicolon separated; UTF-8 or Windows-1252. The period goes in the address: `?period=2025-S1`.',
      },
      example: CSV_REQUEST_EXAMPLE,
    };
  }
  return document;
}
