import { SMTPServer } from 'smtp-server';

/** One mail as the SMTP server received it, its MIME decoded far enough for a test to read it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw RFC 5322 message, as the transport sent it. */
  raw: string;
  subject: string;
  kind: string | null;
  /** The text/plain part, quoted-printable or base64 decoded. */
  text: string;
  html: string;
  /** The first link of the text part, if any. */
  link: string | null;
}

function decodePart(headers: string, body: string): string {
  if (/content-transfer-encoding:\s*base64/i.test(headers))
    return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers))
    return Buffer.from(
      body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  return body;
}

/** A header's RFC 2047 encoded-words (=?UTF-8?Q?…?= or ?B?), decoded. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

/** The text/plain and text/html parts of a (possibly multipart/alternative) message. */
export function parseMail(raw: string): Pick<ReceivedMail, 'subject' | 'kind' | 'text' | 'html' | 'link'> {
  const [head] = raw.split(/\r?\n\r?\n/, 1);
  const header = (name: string) =>
    new RegExp(`^${name}:[ \\t]*((?:.*)(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
  const parts: Record<string, string> = {};
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(head)?.[1];
  const chunks = boundary ? raw.split(`--${boundary}`).slice(1, -1) : [raw];
  for (const chunk of chunks) {
    const split = chunk.search(/\r?\n\r?\n/);
    const partHead = chunk.slice(0, split);
    const body = chunk
      .slice(split)
      .replace(/^\r?\n\r?\n/, '')
      .replace(/\r?\n$/, '');
    const type = /content-type:\s*(text\/(?:plain|html))/i.exec(partHead)?.[1]?.toLowerCase();
    if (type) parts[type] = decodePart(partHead, body);
  }
  const text = parts['text/plain'] ?? '';
  return {
    subject: decodeWords(header('Subject')),
    kind: header('X-Switchyard-Mail') || null,
    text,
    html: parts['text/html'] ?? '',
    link: /https?:\/\/\S+/.exec(text)?.[0] ?? null,
  };
}

/**
 * A real SMTP server for tests (smtp-server from npm) on 127.0.0.1 and a random port, speaking SMTP to the app's
 * nodemailer transport. It takes mail with or without AUTH (with `credentials`, only those); it offers no STARTTLS
 * (its certificate would be self-signed). Tests wait for a mail with `next`, an event, never a sleep.
 */
export class FakeSmtp {
  readonly received: ReceivedMail[] = [];
  readonly authenticated: string[] = [];
  private waiters: { match: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }[] = [];
  private server!: SMTPServer;
  port = 0;

  static async start(credentials?: { user: string; pass: string }): Promise<FakeSmtp> {
    const smtp = new FakeSmtp();
    smtp.server = new SMTPServer({
      authOptional: !credentials,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, callback) {
        if (credentials && auth.username === credentials.user && auth.password === credentials.pass) {
          smtp.authenticated.push(auth.username ?? '');
          return callback(null, { user: auth.username });
        }
        return callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const mail: ReceivedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw,
            ...parseMail(raw),
          };
          smtp.received.push(mail);
          for (const waiter of [...smtp.waiters])
            if (waiter.match(mail)) {
              smtp.waiters.splice(smtp.waiters.indexOf(waiter), 1);
              waiter.resolve(mail);
            }
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.server.listen(0, '127.0.0.1', resolve));
    smtp.port = (smtp.server.server.address() as { port: number }).port;
    return smtp;
  }

  url(credentials?: { user: string; pass: string }): string {
    return `smtp://${credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@` : ''}127.0.0.1:${this.port}`;
  }

  /** The first mail (already received or still to come) to `to` that matches, within `ms`. */
  next(to: string, match: (mail: ReceivedMail) => boolean = () => true, ms = 15_000): Promise<ReceivedMail> {
    const test = (mail: ReceivedMail) => mail.to.includes(to) && match(mail);
    const already = this.received.find(test);
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const waiter = { match: test, resolve: (mail: ReceivedMail) => (clearTimeout(timer), resolve(mail)) };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(
          new Error(`no mail to ${to} within ${ms} ms (received: ${this.received.map((m) => m.to.join()).join('; ')})`),
        );
      }, ms);
      this.waiters.push(waiter);
    });
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.includes(address));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
