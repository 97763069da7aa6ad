import { GiftCardEntity } from './gift-card.entity';

/**
 * The giftcards module's tables as TypeORM maps them: the module registers them (TypeOrmModule.forFeature), and its face
 * (index.ts) exports the list for the data source (database/entities.ts).
 */
export const giftcardsEntities = [GiftCardEntity];
