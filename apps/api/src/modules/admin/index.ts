/** The admin module's face: the operator's console (docs/operations.md, "The operator's console"). */
export { AdminModule } from './admin.module';
