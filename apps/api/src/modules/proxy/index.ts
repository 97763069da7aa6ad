/**
 * The gateway module's face: what other modules may use of it (eslint: switchyard/module-faces). They plug a
 * credential kind into the CredentialRegistry, read the catalog, or make a call in-process.
 */
export { ProxyModule } from './proxy.module';
export { CALL_ID_HEADER, COST_HEADER, GatewayService, MODEL_HEADER, type InProcessAnswer } from './gateway.service';
export { CatalogService } from './catalog/catalog.service';
export type { Catalog, CatalogModel } from './catalog/catalog.types';
export { CredentialRegistry } from './credentials/credential-registry';
export type { Caller, CredentialStrategy, PrefixKind } from './credentials/caller';
export { GatewayErrorCode, GatewayException } from './errors/gateway.exception';
// The catalog as a file, read and checked without starting the gateway: by main.ts (its error) and the admin CLI.
export { buildCatalog, CatalogError, readCatalogFile, unpricedMethods } from './catalog/catalog-loader';
export { DEMO_CATALOG } from './catalog/demo-catalog';
export { servedBy } from './catalog/deployments';
// Installed by the app outside Nest (app.ts): the /v1 listener in front of Nest's router, and its OpenAPI paths.
export { installFrontDoor } from './front-door';
export { addGatewayPaths } from './gateway-openapi';
// The deployments' circuit breakers, for the admin CLI (`npm run admin -- breakers`): the store the service uses.
export { routingStore } from './routing/router';
export { phaseOf, type SharedBreaker } from './routing/breaker';
export type { HealthStore } from './routing/health-store';
