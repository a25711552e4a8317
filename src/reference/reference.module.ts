import { Global, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import cors from 'cors';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { ReferenceCatalogue } from './reference-catalogue.js';
import { ReferenceController } from './reference.controller.js';
import { ReferenceStore } from './reference-store.js';

@Global()
@Module({
  controllers: [ReferenceController],
  providers: [
    {
      provide: ReferenceStore,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        ReferenceStore.load({ referenceBaseUrl: config.referenceBaseUrl, clientBaseUrl: config.clientBaseUrl, siteUrl: config.publicBaseUrl }),
    },
    { provide: ReferenceCatalogue, inject: [ReferenceStore], useFactory: (store: ReferenceStore) => new ReferenceCatalogue(store.documents) },
  ],
  exports: [ReferenceCatalogue],
})
export class ReferenceModule implements NestModule {
  /** Anyone may read the public files from a browser, including with If-None-Match (which needs a preflight). */
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
      .forRoutes(
        'api/v1/pricing.json',
        'api/v1/streams.json',
        'api/v1/law.json',
        'api/v1/obligations.json',
        'api/v1/index.json',
        'api/v1',
        'llms.txt',
      );
  }
}
