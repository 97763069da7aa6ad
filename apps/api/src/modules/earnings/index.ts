/** The earnings module's face (eslint: switchyard/module-faces): the maker's earnings pages over HTTP. */
export { EarningsModule } from './earnings.module';
