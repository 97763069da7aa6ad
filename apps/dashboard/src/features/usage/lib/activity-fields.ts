// The activity record (docs/decisions.md#rules-for-clients): each value may arrive under more than one name, so the first
// present one wins. Switchyard's API sends startTime and name, but the table reads through these so older or
// foreign records still show.

export type LooseActivityRecord = Record<string, unknown>;

const TIME_FIELDS = ['startTime', 'timestamp', 'createdAt', 'endTime'] as const;
const NAME_FIELDS = ['name', 'apiKeyName', 'keyName', 'apiKey'] as const;

export const UNKNOWN_NAME = 'Unknown';

function firstText(record: LooseActivityRecord, fields: readonly string[]): string | null {
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** When the call happened: startTime, timestamp, createdAt or endTime, the first present; null when none is. */
export function activityTime(record: LooseActivityRecord): string | null {
  return firstText(record, TIME_FIELDS);
}

/** The key's or app's name: name, apiKeyName, keyName or apiKey, the first present; 'Unknown' when none is. */
export function activityName(record: LooseActivityRecord): string {
  return firstText(record, NAME_FIELDS) ?? UNKNOWN_NAME;
}

export interface ActivityRow {
  id: string;
  time: string | null;
  name: string;
  model: string;
  totalTokens: number;
  cost: number;
  /** The outcome in words when the call failed, null when it succeeded. */
  problem: string | null;
}

/** One table row from a record of any of the shapes above. */
export function toActivityRow(record: LooseActivityRecord, index: number): ActivityRow {
  const prompt = numberOr(record.promptTokens, 0);
  const completion = numberOr(record.completionTokens, 0);
  const status = typeof record.status === 'string' ? record.status : null;
  const errorCode = typeof record.errorCode === 'string' ? record.errorCode : null;
  return {
    id: typeof record.id === 'string' ? record.id : `row-${index}`,
    time: activityTime(record),
    name: activityName(record),
    model: typeof record.model === 'string' && record.model !== '' ? record.model : UNKNOWN_NAME,
    totalTokens: numberOr(record.totalTokens, prompt + completion),
    cost: numberOr(record.cost, 0),
    problem: status && status !== 'success' ? (errorCode ?? status) : null,
  };
}
