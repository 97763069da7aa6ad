import type { OutgoingHttpHeaders } from 'node:http';

/**
 * Where a call's answer goes: the part of node's ServerResponse the pipeline writes to. Over HTTP it is the
 * response itself; a call made in-process (Spaces) collects it in a CollectedAnswer.
 */
export interface AnswerSink {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
  getHeader(name: string): number | string | string[] | undefined;
  writeHead(status: number, headers?: OutgoingHttpHeaders): unknown;
  flushHeaders(): void;
  write(chunk: string | Uint8Array): boolean;
  end(chunk?: string | Uint8Array): unknown;
  on(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
  once(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
  off(event: 'close' | 'finish' | 'drain', listener: () => void): unknown;
}

/** An answer written in memory, for calls made in-process: status, headers and the body's text. */
export class CollectedAnswer implements AnswerSink {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  readonly headers: Record<string, number | string | string[]> = {};
  private readonly chunks: Buffer[] = [];
  private readonly listeners = new Map<string, Set<(...args: unknown[]) => void>>();

  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  setHeader(name: string, value: number | string | readonly string[]): this {
    this.headers[name.toLowerCase()] = typeof value === 'object' ? [...value] : value;
    return this;
  }

  getHeader(name: string): number | string | string[] | undefined {
    return this.headers[name.toLowerCase()];
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    if (headers && typeof headers === 'object')
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.setHeader(name, value);
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  write(chunk: string | Uint8Array): boolean {
    this.headersSent = true;
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return true;
  }

  end(chunk?: string | Uint8Array): this {
    if (chunk !== undefined) this.write(chunk);
    this.headersSent = true;
    this.writableEnded = this.writableFinished = true;
    for (const event of ['finish', 'close']) for (const listener of this.listeners.get(event) ?? []) listener();
    return this;
  }

  on(event: string, listener: (...args: unknown[]) => void): this {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(listener);
    return this;
  }

  once(event: string, listener: (...args: unknown[]) => void): this {
    const once = (...args: unknown[]) => {
      this.off(event, once);
      listener(...args);
    };
    return this.on(event, once);
  }

  off(event: string, listener: (...args: unknown[]) => void): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }
}
