/** The OAuth clients module's face (eslint: switchyard/module-faces): apps' registration, and their lookup for the protocol. */
export { ClientsModule } from './clients.module';
export {
  ClientsService,
  type ClientActor,
  type DynamicClientMetadata,
  type SpaceClientRequest,
} from './clients.service';
export type { OAuthClient } from './oauth-client';
export { clientsEntities } from './entities';
