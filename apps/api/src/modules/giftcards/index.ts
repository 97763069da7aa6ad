/** The gift cards module's face (eslint: switchyard/module-faces); the admin CLI issues cards through the service. */
export { GiftcardsModule } from './giftcards.module';
export { GiftcardsService } from './giftcards.service';
export { giftcardsEntities } from './entities';
