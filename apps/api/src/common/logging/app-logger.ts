import type { LoggerService, LogLevel } from '@nestjs/common';
import { inspect } from 'node:util';
import type { LogFormat } from '../../config/config.schema';
import { secretRedactor } from './redact';

export interface AppLoggerOptions {
  format: LogFormat;
  /** The levels printed (Nest's names; `log` is info). */
  levels: LogLevel[];
  apiKeyPrefix: string;
  /** Where lines go (tests capture them): error and fatal to stderr, the rest to stdout. */
  write?: (line: string, level: LogLevel) => void;
}

/** A message that carries fields for JSON logs besides its text: `logger.log({ msg: 'GET / 200', status: 200 })`. */
export interface LogFields {
  msg: string;
  [field: string]: unknown;
}

const LEVEL_NAMES: Record<LogLevel, string> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'verbose',
};
// Fields the logger owns; a message's own fields never overwrite them.
const RESERVED = new Set(['time', 'level', 'context']);

const defaultWrite = (line: string, level: LogLevel) =>
  (level === 'error' || level === 'fatal' ? process.stderr : process.stdout).write(line + '\n');

/**
 * Switchyard's Nest logger (every `new Logger(name)` writes through it). `text`: one readable line per message.
 * `json`: one JSON object per line with `time` (ISO 8601), `level`, `context` (the logger's name), `msg`,
 * `requestId` when the line is written while a request is handled, and the message's own fields (`LogFields`).
 * In both, anything that looks like a Switchyard secret is masked (redact.ts), a net under the rule that code
 * never logs credentials.
 */
export class AppLogger implements LoggerService {
  private levels: Set<LogLevel>;
  private readonly redact: (text: string) => string;
  private readonly write: (line: string, level: LogLevel) => void;

  constructor(private readonly options: AppLoggerOptions) {
    this.levels = new Set(options.levels);
    this.redact = secretRedactor(options.apiKeyPrefix);
    this.write = options.write ?? defaultWrite;
  }

  setLogLevels(levels: LogLevel[]): void {
    this.levels = new Set(levels);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.print('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.print('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.print('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.print('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.print('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.print('fatal', message, params);
  }

  private print(level: LogLevel, message: unknown, params: unknown[]): void {
    if (!this.levels.has(level)) return;
    // Nest's convention: the context comes last; error() may carry a stack before it.
    const rest = [...params];
    const context =
      rest.length && (typeof rest[rest.length - 1] === 'string' || rest[rest.length - 1] === undefined)
        ? (rest.pop() as string | undefined)
        : undefined;
    const fields: Record<string, unknown> = {};
    let msg: string;
    if (message instanceof Error) {
      msg = message.message;
      fields.stack = message.stack;
    } else if (isLogFields(message)) {
      const { msg: text, ...own } = message;
      msg = text;
      for (const [key, value] of Object.entries(own)) if (!RESERVED.has(key)) fields[key] = value;
    } else msg = typeof message === 'string' ? message : inspect(message, { depth: 4, breakLength: Infinity });
    const details: unknown[] = [];
    for (const extra of rest) {
      if (extra === undefined) continue;
      if (level === 'error' && typeof extra === 'string' && fields.stack === undefined) fields.stack = extra;
      else details.push(extra);
    }
    if (details.length) fields.details = details;
    const requestId = fields.requestId as string | undefined;
    delete fields.requestId;
    this.write(
      this.redact(
        this.options.format === 'json'
          ? this.json(level, context, msg, requestId, fields)
          : this.text(level, context, msg, requestId, fields),
      ),
      level,
    );
  }

  private json(
    level: LogLevel,
    context: string | undefined,
    msg: string,
    requestId: string | undefined,
    fields: Record<string, unknown>,
  ): string {
    const line = {
      time: new Date().toISOString(),
      level: LEVEL_NAMES[level],
      context: context ?? 'App',
      msg,
      ...(requestId ? { requestId } : {}),
      ...fields,
    };
    try {
      return JSON.stringify(line);
    } catch {
      // A field that cannot be serialised (a cycle) must not lose the line.
      return JSON.stringify({
        ...line,
        ...Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, inspect(value, { depth: 2 })])),
      });
    }
  }

  private text(
    level: LogLevel,
    context: string | undefined,
    msg: string,
    requestId: string | undefined,
    fields: Record<string, unknown>,
  ): string {
    const { stack, details } = fields;
    let line = `${new Date().toISOString()} ${LEVEL_NAMES[level].toUpperCase().padStart(7)} [${context ?? 'App'}] ${requestId ? `[${requestId}] ` : ''}${msg}`;
    if (details) line += ` ${inspect(details, { depth: 4, breakLength: Infinity })}`;
    if (typeof stack === 'string' && stack) line += `\n${stack}`;
    return line;
  }
}

function isLogFields(message: unknown): message is LogFields {
  return typeof message === 'object' && message !== null && typeof (message as LogFields).msg === 'string';
}
