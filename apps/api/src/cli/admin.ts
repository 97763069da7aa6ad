import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ConsoleLogger, DynamicModule, Logger, type LogLevel, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { GiftCardIssueDto } from '@switchyard/shared-dto/validation';
import { MetricsModule } from '../common/metrics/metrics';
import { RateLimitModule } from '../common/rate-limit/rate-limiter.service';
import { InvalidationBus } from '../common/redis/invalidation-bus';
import { RedisConnection } from '../common/redis/redis-connection';
import { RedisModule } from '../common/redis/redis.module';
import { ConfigError, loadConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { Database } from '../database/database';
import { DatabaseModule } from '../database/database.module';
import { ENTITIES } from '../database/entities';
import { DataDirInUseError } from '../database/embedded-postgres';
import { ClientsModule, ClientsService } from '../modules/clients';
import { GiftcardsModule, GiftcardsService } from '../modules/giftcards';
import { PaymentsModule, RefundsService } from '../modules/payments';
import { ReconciliationService } from '../modules/usage';
import { CatalogError, routingStore } from '../modules/proxy';
import { breakersCommand, breakersRequest } from './breakers';
import { loadCatalog, pricesCommand } from './prices';

const USAGE = `Usage: npm run admin -- giftcards --amount <units> [--count <n>] [--expires-at <date or ISO time>]
       npm run admin -- clients trust <client id>
       npm run admin -- clients untrust <client id>
       npm run admin -- refund <user id> <payment id> [--amount <units>]
       npm run admin -- reconcile [--since <date or ISO time>] [--fail-on-loss]
       npm run admin -- prices [<model id>]
       npm run admin -- breakers [list | open <provider/upstreamModel> | close <provider/upstreamModel>]

  giftcards issues gift cards and prints each code once, one per line.
  clients trust marks an OAuth app as a first-party app whose users are not asked for consent; untrust undoes it.
  refund refunds a user's card top-up (at Stripe, or the sandbox's): the amount, or what is left of it, leaves
  their balance, at most what it has free; the rest is the operator's loss (docs/payments.md). It needs the
  service's STRIPE_SECRET_KEY for a Stripe top-up.
  reconcile compares, per user, the balances with the ledger, each settled call's charge with its ledger debit
  and its usage record, and prints every drift; it exits 1 if there is any (docs/budgets.md). It also shows the
  operator's losses (calls charged less than their cost, within the caller's caps); with --fail-on-loss it lists
  the largest and exits 1 if there is any.
  prices prints each model's effective prices (from MODELS_CONFIG and the bundled price catalog) and where they
  came from, and flags a model with no price; it exits 1 if there is one (docs/pricing.md). It needs no database.
  breakers lists each deployment's circuit breaker as every instance sees it, or forces one open (no calls until it
  is forced closed) or closed (docs/routing.md). It needs the service's REDIS_URL and no database.

  All work on the database the service uses (the same DATABASE_URL or DATA_DIR). With the embedded database,
  stop the service first (one process owns DATA_DIR), or use the dashboard or the admin API instead.`;

/** Just enough of the app for the admin commands: configuration, the database, gift cards and OAuth clients. */
@Module({})
class AdminCliModule {
  static forRoot(config: AppConfig, database: Database): DynamicModule {
    return {
      module: AdminCliModule,
      // MetricsModule: the usage recorder (through the budget) counts into it.
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        RedisModule,
        RateLimitModule,
        MetricsModule,
        GiftcardsModule,
        ClientsModule,
        PaymentsModule,
      ],
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

function reconcileArgs(args: string[]): { since: Date | null; failOnLoss: boolean } {
  const { values } = parseArgs({
    args,
    options: { since: { type: 'string' }, 'fail-on-loss': { type: 'boolean' } },
    strict: true,
  });
  const failOnLoss = values['fail-on-loss'] === true;
  if (values.since === undefined) return { since: null, failOnLoss };
  const since = new Date(values.since);
  if (Number.isNaN(since.getTime())) throw new UsageError(`--since "${values.since}" is not a date or ISO time`);
  return { since, failOnLoss };
}

/**
 * Prints every drift (one line each, micro-units) and a summary with the operator's losses; 1 when anything
 * drifted, or with `failOnLoss` when anything was lost (each of the largest losses printed).
 */
async function reconcile({ since, failOnLoss }: { since: Date | null; failOnLoss: boolean }): Promise<number> {
  const config = loadConfig();
  const database = await Database.open(config, ENTITIES);
  try {
    const report = await ReconciliationService.over(database.dataSource).reconcile(since);
    for (const drift of report.drifts)
      console.log(
        `DRIFT ${drift.kind} user=${drift.userId}${drift.callId ? ` call=${drift.callId}` : ''} expected=${drift.expected} actual=${drift.actual}`,
      );
    for (const day of report.days)
      console.log(
        `DAY ${day.day} paid=${day.paid} provider=${day.provider} earnings=${day.earnings} fees=${day.fees}` +
          (day.paid === day.provider + day.earnings + day.fees ? ' ok' : ' DOES NOT ADD UP'),
      );
    for (const pool of report.sponsorPools)
      console.log(
        `SPONSOR ${pool.clientId} funded=${pool.funded} drawn=${pool.drawn} left=${pool.left} taken_back=${pool.takenBack}` +
          (pool.funded === pool.drawn + pool.left + pool.takenBack ? ' ok' : ' DOES NOT ADD UP'),
      );
    const { losses, refundLosses } = report;
    if (failOnLoss)
      for (const loss of losses.largest)
        console.log(`LOSS user=${loss.userId} call=${loss.callId} lost=${loss.lost} bound=${loss.bound}`);
    for (const loss of refundLosses.largest)
      console.log(
        `REFUND_LOSS user=${loss.userId} ${loss.kind}=${loss.refundId} lost=${loss.lost} clawed_back=${loss.clawed}`,
      );
    console.error(
      `reconcile${since ? ` since ${since.toISOString()}` : ''}: ${report.usersChecked} users, ${report.callsChecked} settled calls, ` +
        `${report.drifts.length} drift${report.drifts.length === 1 ? '' : 's'}` +
        (report.lostRecords
          ? `; ${report.lostRecords} calls settled by the expiry sweeper without a usage record (their instance died)`
          : '') +
        `; operator loss: ${losses.calls} call${losses.calls === 1 ? '' : 's'}, ${losses.micros} µ` +
        `; refund loss: ${refundLosses.refunds} refund${refundLosses.refunds === 1 ? '' : 's'}, ${refundLosses.micros} µ` +
        ` (${refundLosses.clawed} µ clawed back from earnings)`,
    );
    return report.drifts.length || (failOnLoss && (losses.calls || refundLosses.refunds)) ? 1 : 0;
  } finally {
    await database.close();
  }
}

/** `prices [model]`: reads the catalog as the service would (MODELS_CONFIG), without the database. */
function prices(args: string[]): number {
  if (args.length > 1) throw new UsageError('prices takes at most one model id');
  try {
    return pricesCommand(loadCatalog(), args[0], (line) => console.log(line));
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    for (const problem of error.problems) console.error(problem);
    return 1;
  }
}

/** `breakers …` on the shared store (Redis): what every instance of the service sees. */
async function breakers(args: string[]): Promise<number> {
  const request = breakersRequest(args);
  if (typeof request === 'string') throw new UsageError(request);
  const config = loadConfig();
  if (!config.redisUrl) {
    console.error(
      'breakers: without REDIS_URL each instance keeps its breakers in its own memory, out of reach of this command; ' +
        "run it with the service's REDIS_URL (and REDIS_PREFIX)",
    );
    return 1;
  }
  let catalog: ReturnType<typeof loadCatalog>;
  try {
    catalog = loadCatalog();
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    for (const problem of error.problems) console.error(problem);
    return 1;
  }
  const connection = new RedisConnection(config);
  try {
    const store = routingStore(connection.client, config.redisPrefix, new InvalidationBus(connection, config));
    return await breakersCommand(request, catalog, store, (line) => console.log(line));
  } finally {
    await connection.onApplicationShutdown();
  }
}

/** `clients trust|untrust <client id>`, checked before anything is opened. */
function clientsRequest(args: string[]): { trusted: boolean; clientId: string } {
  const [action, clientId, ...extra] = args;
  if (action !== 'trust' && action !== 'untrust')
    throw new UsageError(action ? `unknown clients action "${action}"` : 'clients needs trust or untrust');
  if (!clientId || extra.length) throw new UsageError(`clients ${action} takes exactly one client id`);
  return { trusted: action === 'trust', clientId };
}

/** `refund <user id> <payment id> [--amount <units>]`, checked before anything is opened. */
function refundRequest(args: string[]): { userId: string; paymentId: string; amount: number | undefined } {
  const { values, positionals } = parseArgs({
    args,
    options: { amount: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [userId, paymentId, ...extra] = positionals;
  if (!userId || !paymentId || extra.length) throw new UsageError('refund takes a user id and a payment id');
  if (!/^[0-9a-f-]{36}$/i.test(userId)) throw new UsageError(`"${userId}" is not a user id`);
  const amount = values.amount === undefined ? undefined : Number(values.amount);
  if (amount !== undefined && !(Number.isFinite(amount) && amount >= 0.01 && Math.round(amount * 100) === amount * 100))
    throw new UsageError(`--amount "${values.amount}" must be at least 0.01, in whole cents`);
  return { userId, paymentId, amount };
}

/** Runs `refund` against the refunds service; what it prints goes to stderr. */
export async function refundCommand(
  refunds: RefundsService,
  request: { userId: string; paymentId: string; amount: number | undefined },
): Promise<number> {
  try {
    const done = await refunds.refund(null, request.userId, request.paymentId, request.amount);
    console.error(
      `refunded ${done.amount.toFixed(2)} of ${done.paymentId} (${done.refundId}): ${done.debited} from the balance, ` +
        `${done.lost} lost, ${done.clawed} of pending earnings taken back; ${done.refundable.toFixed(2)} left to refund.`,
    );
    return 0;
  } catch (error) {
    // The service's own refusals (no such payment, more than is left, Stripe refusing) are the answer.
    console.error((error as Error).message);
    return 1;
  }
}

/** Runs `clients trust|untrust` against the clients service; what it prints goes to stderr. */
export async function trustCommand(
  clients: ClientsService,
  request: { trusted: boolean; clientId: string },
): Promise<number> {
  try {
    const client = await clients.setTrusted(request.clientId, request.trusted);
    console.error(
      `${client.clientName} (${client.clientId}) ${client.trusted ? 'is trusted: its users skip the consent page' : 'is not trusted: its users are asked for consent'}.`,
    );
    return 0;
  } catch (error) {
    // The service's own refusals (no such app, a dynamic registration) are the answer, not a crash.
    console.error((error as Error).message);
    return 1;
  }
}

/** Nest's console logger, writing every level to stderr: a command's stdout carries its answer only. */
class StderrLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _stream?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, unknown>,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack, params);
  }
}

export async function main(argv: string[]): Promise<number> {
  // stdout carries the codes (or the drifts) only; everything else goes to stderr.
  Logger.overrideLogger(new StderrLogger('Admin', { logLevels: ['error', 'warn'] }));
  const [command, ...rest] = argv;
  let request:
    | { kind: 'giftcards'; dto: GiftCardIssueDto }
    | { kind: 'clients'; trusted: boolean; clientId: string }
    | { kind: 'refund'; userId: string; paymentId: string; amount: number | undefined };
  try {
    if (command === 'reconcile') return await reconcile(reconcileArgs(rest));
    if (command === 'prices') return prices(rest);
    if (command === 'breakers') return await breakers(rest);
    if (command === 'giftcards') request = { kind: 'giftcards', dto: await giftCardRequest(rest) };
    else if (command === 'clients') request = { kind: 'clients', ...clientsRequest(rest) };
    else if (command === 'refund') request = { kind: 'refund', ...refundRequest(rest) };
    else throw new UsageError(command ? `unknown command "${command}"` : 'no command');
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const database = await Database.open(config, ENTITIES);
  const context = await NestFactory.createApplicationContext(AdminCliModule.forRoot(config, database), {
    logger: new StderrLogger('Admin', { logLevels: ['error', 'warn'] }),
  });
  try {
    if (request.kind === 'clients') return await trustCommand(context.get(ClientsService), request);
    if (request.kind === 'refund') return await refundCommand(context.get(RefundsService), request);
    const issued = await context.get(GiftcardsService).issue(null, request.dto);
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
