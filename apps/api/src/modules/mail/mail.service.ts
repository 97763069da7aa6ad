import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';

/** The folder of a DATA_DIR that is memory:// (tests): none. */
const MEMORY = 'memory://';

/** What the service mails, for the log and the file name (never the body: it may carry a link with a token). */
export type MailKind = 'password_reset' | 'verify_email' | 'receipt' | 'low_balance' | 'cap_alert';

export interface MailMessage {
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where a mail went: the SMTP server's message id, or the file it was written to. */
export interface MailResult {
  messageId: string;
  file?: string;
}

/** "a***@example.com": enough for an operator to match a log line, not the whole address. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

/**
 * The service's mail (docs/mail.md): through nodemailer's SMTP transport when SMTP_URL is set; without it, every
 * mail is written to DATA_DIR/mail as an RFC 5322 .eml file (the same bytes an SMTP server would get) and logged, so
 * a fresh install works and shows what it would send. Log lines name the kind, the masked recipient and where the
 * mail went, never its body, link or token.
 */
@Injectable()
export class MailService implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter;
  private readonly folder: string | null;
  readonly from: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.from = config.mailFrom ?? `Switchyard <no-reply@${new URL(config.publicUrl).hostname}>`;
    if (config.smtpUrl) {
      // smtp:// upgrades with STARTTLS when the server offers it; smtps:// is TLS from the start.
      this.transport = createTransport(config.smtpUrl, { from: this.from });
      this.folder = null;
    } else {
      this.transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' }, { from: this.from });
      // A throw-away in-memory database (tests) has no folder of its own: its mail is built and logged, not kept.
      this.folder = config.dataDir === MEMORY ? MEMORY : join(config.dataDir, 'mail');
    }
  }

  /** Whether mail goes out over SMTP (else to DATA_DIR/mail). */
  get delivering(): boolean {
    return this.folder === null;
  }

  /** Sends the mail (or writes it); rejects when the SMTP server refused it or could not be reached. */
  async send(message: MailMessage): Promise<MailResult> {
    const info = (await this.transport.sendMail({
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: { 'X-Switchyard-Mail': message.kind },
    })) as { messageId: string; message?: Buffer };
    if (!this.folder) {
      this.logger.log(`${message.kind} mail to ${maskAddress(message.to)} sent (${info.messageId})`);
      return { messageId: info.messageId };
    }
    if (this.folder === MEMORY) {
      this.logger.log(`${message.kind} mail to ${maskAddress(message.to)} built, not kept (DATA_DIR is memory://)`);
      return { messageId: info.messageId };
    }
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = join(this.folder, `${stamp}-${message.kind}-${randomBytes(3).toString('hex')}.eml`);
    // Readable by the service's user only: a reset mail holds a working link.
    await writeFile(file, info.message ?? '', { mode: 0o600 });
    this.logger.log(`${message.kind} mail to ${maskAddress(message.to)} written to ${file} (SMTP_URL is unset)`);
    return { messageId: info.messageId, file };
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
