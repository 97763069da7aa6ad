/** The consents module's face (eslint: switchyard/module-faces): what users allowed each app, and its spend limits. */
export { ConsentsModule } from './consents.module';
export { ConsentsService } from './consents.service';
export { consentsEntities } from './entities';
