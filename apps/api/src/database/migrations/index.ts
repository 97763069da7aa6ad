import { Accounts1763800000000 } from './1763800000000-accounts';
import { Gateway1763800001000 } from './1763800001000-gateway';
import { Budgets1763800002000 } from './1763800002000-budgets';
import { KeyLimits1763800003000 } from './1763800003000-key-limits';
import { OAuth1763800004000 } from './1763800004000-oauth';
import { Payments1763800005000 } from './1763800005000-payments';
import { Spaces1763800006000 } from './1763800006000-spaces';
import { RateLimits1763800007000 } from './1763800007000-rate-limits';
import { UsagePartitions1763800008000 } from './1763800008000-usage-partitions';
import { MoneyKeys1763800009000 } from './1763800009000-money-keys';
import { OAuthTrust1763800010000 } from './1763800010000-oauth-trust';
import { SpaceJobSlots1763800011000 } from './1763800011000-space-job-slots';
import { SpaceAppCounts1763800014000 } from './1763800014000-space-app-counts';
import { SpendCaps1763800015000 } from './1763800015000-spend-caps';
import { UsageComponents1763800016000 } from './1763800016000-usage-components';
import { KeyExpiry1763800017000 } from './1763800017000-key-expiry';
import { AccountDeletion1763800018000 } from './1763800018000-account-deletion';
import { UsageFirstByte1763800021500 } from './1763800021500-usage-first-byte';
import { OperatorLosses1763800025000 } from './1763800025000-operator-losses';
import { OpenIdConnect1763800029000 } from './1763800029000-openid-connect';
import { RefusedLimit1763800033000 } from './1763800033000-refused-limit';
import { AccountMail1763800033100 } from './1763800033100-account-mail';
import { AdminAuditLog1763800033200 } from './1763800033200-admin-audit-log';
import { Notifications1763800033300 } from './1763800033300-notifications';
import { SpaceAppTitles1763800033400 } from './1763800033400-space-app-titles';
import { UsageUpstreamModel1763800033500 } from './1763800033500-usage-upstream-model';
import { SpaceAppClients1763800034500 } from './1763800034500-space-app-clients';
import { AppMarkup1763800040000 } from './1763800040000-app-markup';
import { MakerEarnings1763800040100 } from './1763800040100-maker-earnings';
import { MakerPayouts1763800040200 } from './1763800040200-maker-payouts';
import { PaymentRefunds1763800040300 } from './1763800040300-payment-refunds';
import { SponsorPools1763800040400 } from './1763800040400-sponsor-pools';
import { LeaseRateInline1763800042800 } from './1763800042800-lease-rate-inline';
import { SponsorAllowancesByUser1763800043000 } from './1763800043000-sponsor-allowances-by-user';

/** Every migration, oldest first. Listed by hand so the build output needs no file globbing. */
export const MIGRATIONS = [
  Accounts1763800000000,
  Gateway1763800001000,
  Budgets1763800002000,
  KeyLimits1763800003000,
  OAuth1763800004000,
  Payments1763800005000,
  Spaces1763800006000,
  RateLimits1763800007000,
  UsagePartitions1763800008000,
  MoneyKeys1763800009000,
  OAuthTrust1763800010000,
  SpaceJobSlots1763800011000,
  SpaceAppCounts1763800014000,
  SpendCaps1763800015000,
  UsageComponents1763800016000,
  KeyExpiry1763800017000,
  AccountDeletion1763800018000,
  UsageFirstByte1763800021500,
  OperatorLosses1763800025000,
  OpenIdConnect1763800029000,
  RefusedLimit1763800033000,
  AccountMail1763800033100,
  AdminAuditLog1763800033200,
  Notifications1763800033300,
  SpaceAppTitles1763800033400,
  UsageUpstreamModel1763800033500,
  SpaceAppClients1763800034500,
  AppMarkup1763800040000,
  MakerEarnings1763800040100,
  MakerPayouts1763800040200,
  PaymentRefunds1763800040300,
  SponsorPools1763800040400,
  LeaseRateInline1763800042800,
  SponsorAllowancesByUser1763800043000,
];
