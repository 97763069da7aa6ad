import type {
  AccountDeleteRequest,
  AccountUpdateRequest,
  AuthLoginRequest,
  AuthRegisterRequest,
  PasswordChangeRequest,
  SignOutEverywhereRequest,
  PasswordResetRequest,
  PasswordResetConfirmRequest,
  EmailVerifyRequest,
  NotificationSettings,
} from '../auth';
import type {
  AccountStatusChangeRequest,
  AdminGiftCardQuery,
  AdminMoneyQuery,
  AdminUsageQuery,
  AdminUserQuery,
  AuditQuery,
  BalanceAdjustmentRequest,
} from '../admin';
import type { PaymentCheckoutCreateRequest, PaymentRefundRequest, PaymentVerifyQuery } from '../billing';
import type {
  AccountStatusChangeDto,
  AdminGiftCardQueryDto,
  AdminMoneyQueryDto,
  AdminUsageQueryDto,
  AdminUserQueryDto,
  AuditQueryDto,
  BalanceAdjustmentDto,
} from './admin.dto';
import type { ConsentLimits, ConsentLimitsRequest } from '../consents';
import type { GiftCardIssueRequest, GiftCardRedeemRequest } from '../giftcards';
import type { KeyCreateRequest, KeyLimitsUpdateRequest, KeyUpdateRequest } from '../keys';
import { AUTHORIZATION_PARAM_NAMES, type AuthorizationDecisionRequest, type AuthorizationParams } from '../oauth';
import type {
  ClientUsageQuery,
  OAuthClientCreateRequest,
  OAuthClientTrustRequest,
  OAuthClientUpdateRequest,
} from '../oauth-clients';
import type {
  SpaceEditRequest,
  SpaceGenerateRequest,
  SpaceHandleCheckQuery,
  SpaceHandleSetRequest,
  SpacePublishRequest,
  SpaceRemixRequest,
  SpaceRenameRequest,
} from '../spaces';
import type { UsageActivityQuery, UsageAnalyticsQuery, UsageDailySpendQuery, UsageLedgerQuery } from '../usage';
import type {
  AccountDeleteDto,
  AccountUpdateDto,
  AuthLoginDto,
  AuthRegisterDto,
  PasswordChangeDto,
  SignOutEverywhereDto,
  PasswordResetRequestDto,
  PasswordResetConfirmDto,
  EmailVerifyDto,
  NotificationSettingsDto,
} from './auth.dto';
import type { GiftCardIssueDto, GiftCardRedeemDto } from './giftcards.dto';
import type { SponsorPoolUpdateDto } from './sponsor.dto';
import type { SponsorPoolUpdateRequest } from '../earnings';
import type { KeyCreateDto, KeyLimitsUpdateDto, KeyUpdateDto } from './keys.dto';
import type {
  AuthorizationDecisionDto,
  AuthorizationParamsDto,
  ClientUsageQueryDto,
  ConsentLimitsDto,
  OAuthClientCreateDto,
  OAuthClientTrustDto,
  OAuthClientUpdateDto,
} from './oauth.dto';
import type { PaymentCheckoutCreateDto, PaymentRefundDto, PaymentVerifyQueryDto } from './payments.dto';
import type {
  SpaceEditDto,
  SpaceGenerateDto,
  SpaceHandleCheckQueryDto,
  SpaceHandleSetDto,
  SpacePublishDto,
  SpaceRemixDto,
  SpaceRenameDto,
} from './spaces.dto';
import type {
  UsageActivityQueryDto,
  UsageAnalyticsQueryDto,
  UsageDailySpendQueryDto,
  UsageLedgerQueryDto,
} from './usage.dto';

// `implements` only checks that a class's fields fit its interface; it lets a class add a field, or make an
// optional one required. These checks fail the type check (npm run typecheck) unless each validation class
// declares exactly its interface's fields, each as optional and of the same type.
type Same<A, B> = [keyof A, keyof B] extends [keyof B, keyof A] ? ([A, B] extends [B, A] ? true : false) : false;
const same = <A, B>(verdict: Same<A, B>) => verdict;

describe('the validation classes and the shared request interfaces', () => {
  it('declare the same fields, so the dashboard sends what the API validates', () => {
    const verdicts = [
      same<AuthRegisterDto, AuthRegisterRequest>(true),
      same<AuthLoginDto, AuthLoginRequest>(true),
      same<AccountUpdateDto, AccountUpdateRequest>(true),
      same<PasswordChangeDto, PasswordChangeRequest>(true),
      same<AccountDeleteDto, AccountDeleteRequest>(true),
      same<SignOutEverywhereDto, SignOutEverywhereRequest>(true),
      same<PasswordResetRequestDto, PasswordResetRequest>(true),
      same<PasswordResetConfirmDto, PasswordResetConfirmRequest>(true),
      same<EmailVerifyDto, EmailVerifyRequest>(true),
      same<NotificationSettingsDto, NotificationSettings>(true),
      same<KeyCreateDto, KeyCreateRequest>(true),
      same<KeyLimitsUpdateDto, KeyLimitsUpdateRequest>(true),
      same<KeyUpdateDto, KeyUpdateRequest>(true),
      same<UsageActivityQueryDto, UsageActivityQuery>(true),
      same<UsageAnalyticsQueryDto, UsageAnalyticsQuery>(true),
      same<UsageLedgerQueryDto, UsageLedgerQuery>(true),
      same<UsageDailySpendQueryDto, UsageDailySpendQuery>(true),
      same<OAuthClientCreateDto, OAuthClientCreateRequest>(true),
      same<OAuthClientUpdateDto, OAuthClientUpdateRequest>(true),
      same<OAuthClientTrustDto, OAuthClientTrustRequest>(true),
      same<ClientUsageQueryDto, ClientUsageQuery>(true),
      same<ConsentLimitsDto, ConsentLimitsRequest>(true),
      same<ConsentLimitsRequest, Partial<ConsentLimits>>(true),
      same<AuthorizationParamsDto, AuthorizationParams>(true),
      same<AuthorizationDecisionDto, AuthorizationDecisionRequest>(true),
      same<PaymentCheckoutCreateDto, PaymentCheckoutCreateRequest>(true),
      same<PaymentVerifyQueryDto, PaymentVerifyQuery>(true),
      same<PaymentRefundDto, PaymentRefundRequest>(true),
      same<GiftCardIssueDto, GiftCardIssueRequest>(true),
      same<GiftCardRedeemDto, GiftCardRedeemRequest>(true),
      same<SponsorPoolUpdateDto, SponsorPoolUpdateRequest>(true),
      same<SpaceHandleSetDto, SpaceHandleSetRequest>(true),
      same<SpaceHandleCheckQueryDto, SpaceHandleCheckQuery>(true),
      same<SpaceGenerateDto, SpaceGenerateRequest>(true),
      same<SpaceEditDto, SpaceEditRequest>(true),
      same<SpacePublishDto, SpacePublishRequest>(true),
      same<SpaceRemixDto, SpaceRemixRequest>(true),
      same<SpaceRenameDto, SpaceRenameRequest>(true),
      same<AdminUserQueryDto, AdminUserQuery>(true),
      same<BalanceAdjustmentDto, BalanceAdjustmentRequest>(true),
      same<AccountStatusChangeDto, AccountStatusChangeRequest>(true),
      same<AdminUsageQueryDto, AdminUsageQuery>(true),
      same<AdminGiftCardQueryDto, AdminGiftCardQuery>(true),
      same<AdminMoneyQueryDto, AdminMoneyQuery>(true),
      same<AuditQueryDto, AuditQuery>(true),
    ];
    expect(verdicts.every(Boolean)).toBe(true);
  });

  it('list every authorization parameter the consent page passes back', () => {
    const names: readonly string[] = AUTHORIZATION_PARAM_NAMES;
    expect(same<(typeof AUTHORIZATION_PARAM_NAMES)[number], keyof AuthorizationParams>(true)).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });
});
