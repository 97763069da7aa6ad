import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DynamicModule, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { GiftCardIssueDto } from '@switchyard/shared-dto/validation';
import { MetricsModule } from '../common/metrics/metrics';
import { RateLimitModule } from '../common/rate-limit/rate-limiter.service';
import { RedisModule } from '../common/redis/redis.module';
import { ConfigError, loadConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { Database } from '../database/database';
import { DatabaseModule } from '../database/database.module';
import { DataDirInUseError } from '../database/embedded-postgres';
import { GiftcardsModule } from '../modules/giftcards/giftcards.module';
import { GiftcardsService } from '../modules/giftcards/giftcards.service';
import { ReconciliationService } from '../modules/usage/ledger/reconciliation';

const USAGE = `Usage: npm run admin -- giftcards --amount <units> [--count <n>] [--expires-at <date or ISO time>]
       npm run admin -- reconcile [--since <date or ISO time>]

  giftcards  Issues gift cards in the database the service uses (the same DATABASE_URL or DATA_DIR) and prints
             each code once, one per line. With the embedded database, stop the service first (one process owns
             DATA_DIR) or issue cards from the dashboard's admin page instead.
  reconcile  Compares, per user, the balances with the ledger, each settled call's charge with its ledger debit
             and its usage record, and prints every drift; exits 1 if there is any (docs/budgets.md).`;

/** Just enough of the app for issuing gift cards: configuration, the database and the gift-card module. */
@Module({})
class AdminCliModule {
  static forRoot(config: AppConfig, database: Database): DynamicModule {
    return {
      module: AdminCliModule,
      // MetricsModule: the usage recorder (through the budget) counts into it.
      imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot(database), RedisModule, RateLimitModule, MetricsModule, GiftcardsModule],
    };
  }
}

class UsageError extends Error {}

/** The command line's arguments, checked by the same DTO as POST /api/v1/admin/giftcards. */
async function giftCardRequest(args: string[]): Promise<GiftCardIssueDto> {
  const { values } = parseArgs({
    args,
    options: { amount: { type: 'string' }, count: { type: 'string', default: '1' }, 'expires-at': { type: 'string' } },
    strict: true,
  });
  const dto = plainToInstance(GiftCardIssueDto, {
    amount: values.amount === undefined ? undefined : Number(values.amount),
    count: Number(values.count),
    ...(values['expires-at'] ? { expiresAt: values['expires-at'] } : {}),
  });
  const errors = await validate(dto, { forbidUnknownValues: true });
  if (errors.length) throw new UsageError(errors.flatMap((error) => Object.values(error.constraints ?? {})).join('; '));
  return dto;
}

function reconcileSince(args: string[]): Date | null {
  const { values } = parseArgs({ args, options: { since: { type: 'string' } }, strict: true });
  if (values.since === undefined) return null;
  const since = new Date(values.since);
  if (Number.isNaN(since.getTime())) throw new UsageError(`--since "${values.since}" is not a date or ISO time`);
  return since;
}

/** Prints every drift (one line each, micro-units) and a summary; 1 when anything drifted. */
async function reconcile(since: Date | null): Promise<number> {
  const config = loadConfig();
  const database = await Database.open(config);
  try {
    const report = await new ReconciliationService(database.dataSource).reconcile(since);
    for (const drift of report.drifts)
      console.log(`DRIFT ${drift.kind} user=${drift.userId}${drift.callId ? ` call=${drift.callId}` : ''} expected=${drift.expected} actual=${drift.actual}`);
    console.error(
      `reconcile${since ? ` since ${since.toISOString()}` : ''}: ${report.usersChecked} users, ${report.callsChecked} settled calls, ` +
        `${report.drifts.length} drift${report.drifts.length === 1 ? '' : 's'}` +
        (report.lostRecords ? `; ${report.lostRecords} calls settled by the expiry sweeper without a usage record (their instance died)` : ''),
    );
    return report.drifts.length ? 1 : 0;
  } finally {
    await database.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  // stdout carries the codes (or the drifts) only; everything else goes to stderr.
  Logger.overrideLogger(['error', 'warn']);
  const [command, ...rest] = argv;
  let request: GiftCardIssueDto;
  try {
    if (command === 'reconcile') return await reconcile(reconcileSince(rest));
    if (command !== 'giftcards') throw new UsageError(command ? `unknown command "${command}"` : 'no command');
    request = await giftCardRequest(rest);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const database = await Database.open(config);
  const context = await NestFactory.createApplicationContext(AdminCliModule.forRoot(config, database), { logger: ['error', 'warn'] });
  try {
    const issued = await context.get(GiftcardsService).issue(null, request);
    for (const card of issued.cards) console.log(card.code);
    console.error(
      `${issued.cards.length} gift card${issued.cards.length === 1 ? '' : 's'} of ${issued.amount.toFixed(2)}` +
        `${issued.expiresAt ? `, expiring ${issued.expiresAt}` : ', no expiry'}. The codes are shown only now: store them safely.`,
    );
    return 0;
  } finally {
    await context.close();
    await database.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof ConfigError) for (const problem of error.problems) console.error(problem);
      else if (error instanceof DataDirInUseError) console.error(error.message);
      else console.error(`admin failed: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
