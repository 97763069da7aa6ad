import { SessionEntity } from '../modules/accounts/entities/session.entity';
import { UserEntity } from '../modules/accounts/entities/user.entity';
import { GiftCardEntity } from '../modules/giftcards/entities/gift-card.entity';
import { ApiKeyEntity } from '../modules/keys/entities/api-key.entity';
import { PaymentEntity } from '../modules/payments/entities/payment.entity';
import { UsageRecordEntity } from '../modules/usage/entities/usage-record.entity';

/** Every entity, listed by hand (no globbing of build output). Each module adds its own here. */
export const ENTITIES = [UserEntity, SessionEntity, ApiKeyEntity, UsageRecordEntity, PaymentEntity, GiftCardEntity];
