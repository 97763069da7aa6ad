// Browser-safe entry: types and plain constants only. Decorated validation classes live in ./validation,
// which only the API imports, so class-validator never reaches the dashboard bundle.
export * from './envelope';
export * from './auth';
export * from './resources';
export * from './health';
export * from './oauth';
export * from './spaces';
