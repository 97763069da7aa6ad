/**
 * The spaces module's face (eslint: switchyard/module-faces). Besides the module and its service, the hosting
 * listener on its own port and its OpenAPI paths, which the app installs outside Nest (app.ts).
 */
export { SpacesModule } from './spaces.module';
export { SpacesService, type HostedPage } from './spaces.service';
export { addSpacesHostingPaths, spacesHost, spacesRedirect, type SpacesHostOptions } from './spaces-host';
export { spacesEntities } from './entities';
