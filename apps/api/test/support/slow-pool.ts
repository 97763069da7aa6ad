import type { DataSource } from 'typeorm';

/**
 * The database's edge for unit tests of batch writers: a data source whose pg pool records each statement's
 * first parameter (the batch's ids, as an array or an array literal) and answers only when the test says so.
 */
export function slowPool() {
  const writes: string[][] = [];
  const answers: (() => void)[] = [];
  const pool = {
    query: ({ values }: { values: unknown[] }) => {
      const ids = values[0];
      writes.push(
        Array.isArray(ids)
          ? ids.map(String)
          : String(ids)
              .slice(1, -1)
              .split(',')
              .map((id) => id.replace(/"/g, '')),
      );
      return new Promise((resolve) => answers.push(() => resolve({ rows: [] })));
    },
  };
  const dataSource = { driver: { master: pool } } as unknown as DataSource;
  return { dataSource, writes, answerNext: () => answers.shift()!() };
}

/** Lets pending promise callbacks and I/O callbacks run. */
export const ticks = () => new Promise((resolve) => setImmediate(resolve));
