// Browser-safe entry: types and plain constants only. Decorated validation classes live in ./validation,
// which only the API imports, so class-validator never reaches the dashboard bundle.
export * from './envelope';
export * from './auth';
export * from './health';
export * from './keys';
export * from './usage';
export * from './billing';
export * from './giftcards';
export * from './models';
export * from './oauth';
export * from './oauth-clients';
export * from './earnings';
export * from './consents';
export * from './spaces';
export * from './admin';
