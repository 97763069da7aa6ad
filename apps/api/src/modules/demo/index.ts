/** The demo provider module's face (eslint: switchyard/module-faces). */
export { DemoModule } from './demo.module';
export { DemoProvider, DEMO_OWNED_BY, type DemoCall, type DemoMethod } from './demo-provider';
export { seededRandom } from './hash';
