/** What the fake's sy_reserve answers. */
interface ReserveAnswer {
  amountMicros: number | null;
  balanceMicros: number;
  headroomMicros: number | null;
  tripped: string | null;
}

/**
 * The database's edge for unit tests of the money core (usage's reservations, leases, settlement queue and
 * sweeper): a stand-in for its reservations repository whose statements answer as the test says, each recorded in
 * `calls`.
 */
export function fakeReservationsLedger() {
  const calls: { what: string; ids: string[] }[] = [];
  const ledger = {
    failWith: null as null | ((ids: string[]) => Error | null),
    reserveCount: 0,
    /** What sy_reserve answers (default: the whole worst case, with room to spare). */
    reserveAnswer: null as
      null | ((input: { worstMicros: number; lease?: boolean }) => ReserveAnswer | Promise<ReserveAnswer>),
    /** Reservations past their expiry, for the sweeper; settle answers null (settled elsewhere) for ids in `gone`. */
    expiredRows: [] as { id: string; inputEstimateMicros: number }[],
    gone: new Set<string>(),
    settleMany: async (items: { id: string; costMicros: number }[]) => {
      calls.push({ what: 'settleMany', ids: items.map((i) => i.id) });
      const error = ledger.failWith?.(items.map((i) => i.id));
      if (error) throw error;
      return new Map(items.map((i) => [i.id, i.costMicros]));
    },
    settleLeased: async (items: { id: string; costMicros: number }[]) => {
      calls.push({ what: 'settleLeased', ids: items.map((i) => i.id) });
      const error = ledger.failWith?.(items.map((i) => i.id));
      if (error) throw error;
      return new Map(items.map((i) => [i.id, i.costMicros]));
    },
    settle: async (id: string, costMicros = 0) => {
      calls.push({ what: 'settle', ids: [id] });
      return ledger.gone.has(id) ? null : costMicros;
    },
    reserve: async (input: { worstMicros: number; lease?: boolean }) => {
      ledger.reserveCount += 1;
      return {
        remainingMicros: 1e9,
        ...((await ledger.reserveAnswer?.(input)) ?? {
          amountMicros: input.worstMicros,
          balanceMicros: 1e9,
          headroomMicros: 1e9,
          tripped: null,
        }),
      };
    },
    extend: async (ids: string[]) => {
      calls.push({ what: 'extend', ids });
    },
    expired: async () => ledger.expiredRows,
    /** A refused limit's value and what its window spent (read on the refusal path only). */
    limitFigures: async () => ({ limitMicros: 1_000_000, spentMicros: 1_000_000 }),
    countOpen: async () => 0,
  };
  return { ledger, calls };
}

/** A failure that is not the rows' fault (no SQL state): the batch is tried again whole. */
export const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
