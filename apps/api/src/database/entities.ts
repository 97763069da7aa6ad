import { accountsEntities } from '../modules/accounts';
import { clientsEntities } from '../modules/clients';
import { consentsEntities } from '../modules/consents';
import { giftcardsEntities } from '../modules/giftcards';
import { keysEntities } from '../modules/keys';
import { oauthEntities } from '../modules/oauth';
import { paymentsEntities } from '../modules/payments';
import { spacesEntities } from '../modules/spaces';
import { usageEntities } from '../modules/usage';
import type { EntityList } from './database';

/**
 * Every entity, listed by hand (no globbing of build output), from each module's face: what app.ts and the admin
 * CLI hand to Database.open (docs/architecture.md, "Entities"). Only they import this file; database.ts does not,
 * so the modules' services that inject `Database` close no require cycle.
 */
export const ENTITIES: EntityList = [
  ...accountsEntities,
  ...keysEntities,
  ...usageEntities,
  ...clientsEntities,
  ...consentsEntities,
  ...oauthEntities,
  ...paymentsEntities,
  ...giftcardsEntities,
  ...spacesEntities,
];
