/** The health module's face (eslint: switchyard/module-faces): liveness and readiness routes, nothing to call. */
export { HealthModule } from './health.module';
