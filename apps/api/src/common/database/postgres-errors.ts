import { QueryFailedError } from 'typeorm';

/** PostgreSQL's SQLSTATE for a unique constraint a write would break. */
const UNIQUE_VIOLATION = '23505';

/**
 * Whether a query failed on a unique constraint (on `constraint` when given): how a repository tells "taken by a
 * concurrent write" from a real failure. Shared by the repositories of several modules, so it lives here.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const driverError = (error as QueryFailedError & { driverError?: { code?: string; constraint?: string } })
    ?.driverError;
  return (
    error instanceof QueryFailedError &&
    driverError?.code === UNIQUE_VIOLATION &&
    (!constraint || driverError.constraint === constraint)
  );
}

/** Whether a query failed on a CHECK constraint (`constraint` when given), such as a balance that would go negative. */
export function isCheckViolation(error: unknown, constraint?: string): boolean {
  const driverError = (error as QueryFailedError & { driverError?: { code?: string; constraint?: string } })
    ?.driverError;
  return (
    error instanceof QueryFailedError &&
    driverError?.code === '23514' &&
    (!constraint || driverError.constraint === constraint)
  );
}
