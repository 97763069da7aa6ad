import { accountsEntities } from '../modules/accounts/entities';
import { clientsEntities } from '../modules/clients/entities';
import { consentsEntities } from '../modules/consents/entities';
import { giftcardsEntities } from '../modules/giftcards/entities';
import { keysEntities } from '../modules/keys/entities';
import { oauthEntities } from '../modules/oauth/entities';
import { paymentsEntities } from '../modules/payments/entities';
import { spacesEntities } from '../modules/spaces/entities';
import { usageEntities } from '../modules/usage/entities';

/**
 * Every entity, listed by hand (no globbing of build output): each module's `entities/index.ts`, the one file of a
 * module besides its index.ts that the data layer may import (docs/architecture.md, "Module faces"). It imports
 * entity classes only, so opening the database loads no Nest module.
 */
export const ENTITIES = [
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
