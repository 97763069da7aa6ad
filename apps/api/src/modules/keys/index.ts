/** The API keys module's face (eslint: switchyard/module-faces). */
export { KeysModule } from './keys.module';
export { API_KEYS_TOPIC, KeysService } from './keys.service';
export { keysEntities } from './entities';
