import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
/** Messages after which PostgreSQL answers and is ready for the next query: Sync, a simple Query, Terminate, Flush. */
const SYNC_POINTS = new Set([0x53, 0x51, 0x58, 0x48]);

interface Batch {
  connection: Connection;
  bytes: Uint8Array;
}

/**
 * PGlite (one PostgreSQL session, in-process) behind a TCP socket that the ordinary `pg` pool connects to, several
 * connections at once. One session means one set of unnamed statements and portals and one transaction: the
 * connections' work must not interleave inside a query. pglite-socket (which this replaces) queued every protocol
 * message on its own, so under concurrency one connection's Bind could land between another's Parse and Execute:
 * it ran the other's statement or portal, and an error in one skipped the other's messages ("portal does not
 * exist"; the fuzz test found it). Here a connection's messages go to PGlite as one batch up to each sync point
 * (Sync, a simple Query), and while a transaction is open only its connection's batches run (row locks stay
 * correct; other connections wait, as docs/database.md says). A connection that closes inside its transaction has
 * it rolled back.
 */
export class PgliteBridge {
  private readonly queue: Batch[] = [];
  private running = false;
  /** The connection whose batch ran last: while PGlite is in a transaction, it is the transaction's. */
  private owner: Connection | null = null;
  private readonly connections = new Set<Connection>();
  private rollbackPending = false;
  private stopped = false;
  private server: Server | null = null;

  constructor(private readonly db: PGlite) {}

  async start(host: string): Promise<number> {
    await this.db.waitReady;
    const server = createServer((socket) => this.connections.add(new Connection(socket, this)));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    return (server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    for (const connection of this.connections) connection.socket.destroy();
    this.connections.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** @internal A connection's batch, run in turn. */
  enqueue(batch: Batch): void {
    this.queue.push(batch);
    void this.run();
  }

  /** @internal A connection went away: its queued work is dropped, its open transaction rolled back. */
  closed(connection: Connection): void {
    this.connections.delete(connection);
    if (this.stopped) return;
    for (let i = this.queue.length - 1; i >= 0; i -= 1)
      if (this.queue[i].connection === connection) this.queue.splice(i, 1);
    if (this.owner !== connection) return;
    // Rolled back between batches (run is the only one to talk to PGlite), then the others go on.
    this.rollbackPending = true;
    void this.run();
  }

  private async run(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      while (!this.stopped) {
        if (this.rollbackPending) {
          this.rollbackPending = false;
          this.owner = null;
          if (this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined);
        }
        const next = this.next();
        if (!next) return;
        this.owner = next.connection;
        await this.db
          .runExclusive(() =>
            this.db.execProtocolRawStream(next.bytes, { onRawData: (data) => next.connection.reply(data) }),
          )
          .catch((error: Error) => next.connection.fail(error));
      }
    } finally {
      this.running = false;
    }
  }

  /** The next batch: the transaction's connection's while one is open, else the oldest. */
  private next(): Batch | null {
    if (this.owner && this.db.isInTransaction()) {
      const index = this.queue.findIndex((batch) => batch.connection === this.owner);
      return index < 0 ? null : this.queue.splice(index, 1)[0];
    }
    return this.queue.shift() ?? null;
  }
}

class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private started = false;

  constructor(
    readonly socket: Socket,
    private readonly bridge: PgliteBridge,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => this.receive(data));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.bridge.closed(this));
  }

  reply(data: Uint8Array): void {
    if (data.length && this.socket.writable) this.socket.write(data);
  }

  fail(error: Error): void {
    // PGlite itself failed (not a SQL error, which it answers in the protocol): the connection cannot go on.
    this.socket.destroy(error);
  }

  private receive(data: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
    for (;;) {
      if (!this.started) {
        // The startup phase: an SSL or cancel request, or the startup message (no type byte, its length first).
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        const code = this.buffer.readInt32BE(4);
        if (this.buffer.length < length) return;
        const message = this.buffer.subarray(0, length);
        this.buffer = this.buffer.subarray(length);
        if (code === SSL_REQUEST) this.socket.write('N');
        else if (code === CANCEL_REQUEST)
          continue; // not supported: the query runs on
        else if (code === PROTOCOL_3) {
          this.started = true;
          this.bridge.enqueue({ connection: this, bytes: new Uint8Array(message) });
        } else return void this.socket.destroy();
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = 1 + this.buffer.readInt32BE(1);
      if (this.buffer.length < length) return;
      const type = this.buffer[0];
      this.pending.push(this.buffer.subarray(0, length));
      this.buffer = this.buffer.subarray(length);
      if (!SYNC_POINTS.has(type)) continue;
      const bytes = new Uint8Array(Buffer.concat(this.pending));
      this.pending = [];
      if (type === 0x58) return void this.socket.end(); // Terminate
      this.bridge.enqueue({ connection: this, bytes });
    }
  }
}
