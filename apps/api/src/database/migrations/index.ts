import { Accounts1763800000000 } from './1763800000000-accounts';

/** Every migration, oldest first. Listed by hand so the build output needs no file globbing. */
export const MIGRATIONS = [Accounts1763800000000];
