// The @nestjs/swagger CLI plugin in read-only mode: writes src/metadata.ts (DTO properties,
// response types and doc comments) so that `nest build`, the tests (SWC) and the OpenAPI file all
// describe the API from the same generated metadata.
import { writeFileSync } from 'node:fs';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import { ReadonlyVisitor } from '@nestjs/swagger/plugin';

const target = new URL('../src/metadata.ts', import.meta.url);
// The generator type-checks src, which imports this file: start from an empty one (a stale one may
// name files that were moved or deleted since).
writeFileSync(target, 'export default async () => ({});\n');

new PluginMetadataGenerator().generate({
  visitors: [
    new ReadonlyVisitor({
      introspectComments: true,
      classValidatorShim: true,
      pathToSource: new URL('../src', import.meta.url).pathname,
      dtoFileNameSuffix: ['.dto.ts', '.entity.ts'],
      esmCompatible: true,
    }),
  ],
  outputDir: new URL('../src', import.meta.url).pathname,
  tsconfigPath: 'tsconfig.build.json',
  printDiagnostics: false,
});
