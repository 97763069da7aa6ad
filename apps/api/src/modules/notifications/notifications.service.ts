import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationSettings } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { AccountsService } from '../accounts';
import { MailService } from '../mail';
import { type CreditEvent, LedgerService, toUnits } from '../usage';
import { capAlertMail, lowBalanceMail, receiptMail } from './notification-mails';
import { type CapRow, NotificationsRepository } from './notifications.repository';

/** How often every instance looks for budgets that crossed a threshold, and how far back it looks. */
const SWEEP_MS = 30_000;
const LOOKBACK_SECONDS = 300;
const PURGE_EVERY = 120;
const WINDOWS = ['total', 'daily', 'weekly', 'monthly'] as const;
type Window = (typeof WINDOWS)[number];

const micros = (units: number | null) => (units === null ? null : Math.round(units * 1e6));

/** The calendar period a window's alert belongs to (UTC), so it fires again in the next one. */
export function periodOf(window: Window, now = new Date()): string {
  const day = now.toISOString().slice(0, 10);
  if (window === 'daily') return day;
  if (window === 'monthly') return day.slice(0, 7);
  if (window === 'weekly') {
    const monday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
    return `w${monday.toISOString().slice(0, 10)}`;
  }
  return 'all';
}

/**
 * Mail about money (docs/mail.md): a receipt for every credit (whatever made it: a card payment, a gift card, an
 * operator's credit, later earnings), and the budget alerts: a low balance, and a key's or an app's spend reaching a
 * share of one of its limits, each once per crossing, at thresholds the account chooses on Settings.
 */
@Injectable()
export class NotificationsService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Notifications');
  private timer: NodeJS.Timeout | undefined;
  private sweeps = 0;
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly ledger: LedgerService,
    private readonly accounts: AccountsService,
    private readonly mail: MailService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.ledger.onCredit((event) => this.later(() => this.sendReceipt(event)));
    this.timer = setInterval(
      () => void this.sweep().catch((error: Error) => this.logger.error(`alert sweep failed: ${error.message}`)),
      SWEEP_MS,
    );
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.idle();
  }

  /** Resolves once every receipt asked for so far has been sent or given up on. */
  async idle(): Promise<void> {
    while (this.sending.size) await Promise.allSettled([...this.sending]);
  }

  async settings(userId: string): Promise<NotificationSettings> {
    const row = await this.repository.settings(userId);
    if (!row) return { ...DEFAULT_NOTIFICATION_SETTINGS };
    return {
      lowBalance: row.lowBalanceMicros === null ? null : toUnits(row.lowBalanceMicros),
      capAlertPercent: row.capAlertPercent,
    };
  }

  async saveSettings(userId: string, settings: NotificationSettings): Promise<NotificationSettings> {
    await this.repository.saveSettings(userId, micros(settings.lowBalance), settings.capAlertPercent);
    return this.settings(userId);
  }

  /** One pass of the alerts (every instance runs it every 30 s; the first to record a crossing sends its mail). */
  async sweep(): Promise<number> {
    const defaultLow = micros(DEFAULT_NOTIFICATION_SETTINGS.lowBalance) ?? 0;
    await this.repository.rearmLowBalances(defaultLow);
    let sent = 0;
    for (const row of await this.repository.lowBalances(LOOKBACK_SECONDS, defaultLow)) {
      if (!(await this.repository.fire(row.userId, 'low_balance'))) continue;
      await this.deliver(lowBalanceMail(row.email, row.balanceMicros, row.thresholdMicros, this.url('/billing')));
      sent += 1;
    }
    const caps = await this.repository.capsInUse(LOOKBACK_SECONDS, DEFAULT_NOTIFICATION_SETTINGS.capAlertPercent ?? 80);
    for (const cap of caps) sent += await this.capAlerts(cap);
    if (++this.sweeps % PURGE_EVERY === 0) await this.repository.purge();
    return sent;
  }

  private async capAlerts(cap: CapRow): Promise<number> {
    let sent = 0;
    for (const window of WINDOWS) {
      const limit = cap.limits[window];
      if (limit === null || cap.spent[window] * 100 < limit * cap.percent) continue;
      // The limit's value is part of the key: a raised limit is a new threshold to cross.
      const key = `cap:${cap.scope}:${cap.id}:${window}:${periodOf(window)}:${limit}`;
      if (!(await this.repository.fire(cap.userId, key))) continue;
      const url = this.url(cap.scope === 'key' ? '/keys' : '/authorized-apps');
      await this.deliver(capAlertMail(cap.email, { ...cap, window }, cap.spent[window], limit, url));
      sent += 1;
    }
    return sent;
  }

  private async sendReceipt(event: CreditEvent): Promise<void> {
    // The sign-up credit is the welcome, not a purchase: no receipt.
    if (event.kind === 'signup_credit') return;
    const user = await this.accounts.me(event.userId);
    const { remainingBudget } = await this.ledger.summary(event.userId);
    await this.mail.send(
      receiptMail(user.email, { ...event, at: new Date() }, Math.round(remainingBudget * 1e6), this.url('/billing')),
    );
  }

  /** An alert whose mail fails is logged; its crossing stays recorded (it is not sent twice). */
  private async deliver(message: Parameters<MailService['send']>[0]): Promise<void> {
    await this.mail
      .send(message)
      .catch((error: Error) => this.logger.error(`a ${message.kind} mail could not be sent: ${error.message}`));
  }

  private later(work: () => Promise<void>): void {
    const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: Error) => this.logger.error(`a receipt could not be sent: ${error.message}`))
      .finally(() => this.sending.delete(task));
    this.sending.add(task);
  }

  private url(path: string): string {
    return `${this.config.publicUrl}${path}`;
  }
}
