import { Module } from '@nestjs/common';
import { UsageRecorder } from './usage-recorder';

/** Usage records of gateway calls. Other modules record through UsageRecorder. */
@Module({
  providers: [UsageRecorder],
  exports: [UsageRecorder],
})
export class UsageModule {}
