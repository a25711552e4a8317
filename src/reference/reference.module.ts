import { Global, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import cors from 'cors';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { ReferenceCatalogue } from './reference-catalogue.js';
import { publishNames } from './published-names.js';
import { ReferenceController } from './reference.controller.js';
import { ReferenceFiles, SERVED_FILES } from './reference-files.js';
import { ReferenceStore } from './reference-store.js';

@Global()
@Module({
  controllers: [ReferenceController],
  providers: [
    {
      provide: ReferenceStore,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        ReferenceStore.load({
          referenceBaseUrl: config.referenceBaseUrl,
          clientBaseUrl: config.clientBaseUrl,
          siteUrl: config.publicBaseUrl,
          contact: config.contactEmail ?? null,
        }),
    },
    {
      provide: ReferenceCatalogue,
      inject: [ReferenceStore],
      useFactory: (store: ReferenceStore) => publishNames(new ReferenceCatalogue(store.documents)),
    },
    ReferenceFiles,
  ],
  // ReferenceFiles for the edge, which answers them before Express (src/edge/).
  exports: [ReferenceCatalogue, ReferenceStore, ReferenceFiles],
})
export class ReferenceModule implements NestModule {
  /**
   * Preflights for the public files (a browser sends one before a request with If-None-Match);
   * the GET responses carry their CORS headers themselves. Only these exact paths: CORS stays
   * off the authenticated API.
   */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(
        cors({
          origin: '*',
          methods: ['GET', 'HEAD'],
          allowedHeaders: ['If-None-Match', 'If-Modified-Since'],
          exposedHeaders: ['ETag', 'Last-Modified', 'Content-Length'],
          maxAge: 86_400,
        }),
      )
      // llms.txt is served by the site (src/site/llms-txt.ts), with the same CORS headers.
      .forRoutes(...[...SERVED_FILES.keys(), '/llms.txt'].map((path) => ({ path, method: RequestMethod.OPTIONS })));
  }
}
