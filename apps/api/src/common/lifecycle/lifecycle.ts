import { Global, Injectable, Module } from '@nestjs/common';

/**
 * Whether this instance is shutting down. Set first thing on SIGTERM (by the gateway's drain), so `/readyz`
 * answers 503 and a load balancer stops sending traffic while calls in flight finish.
 */
@Injectable()
export class Lifecycle {
  private drainingSince: Date | null = null;

  beginDrain(): void {
    this.drainingSince ??= new Date();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }
}

@Global()
@Module({ providers: [Lifecycle], exports: [Lifecycle] })
export class LifecycleModule {}
