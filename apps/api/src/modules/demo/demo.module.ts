import { Module } from '@nestjs/common';
import { DemoProvider } from './demo-provider';

/**
 * The offline `demo` provider (docs/demo-provider.md) as a module of its own: the gateway reaches it through its
 * provider adapter (modules/proxy/providers/demo.adapter.ts) like any provider; nothing here knows the gateway.
 */
@Module({
  providers: [{ provide: DemoProvider, useFactory: () => new DemoProvider() }],
  exports: [DemoProvider],
})
export class DemoModule {}
