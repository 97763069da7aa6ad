import { IssuedGiftCards } from '../../features/admin-gift-cards/components/issued-gift-cards';
import { IssueGiftCardsForm } from '../../features/admin-gift-cards/components/issue-gift-cards-form';
import { useDocumentTitle } from '../../lib/router';

export function AdminGiftCardsRoute() {
  useDocumentTitle('Gift cards');

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Gift cards</h1>
        <p className="muted">
          Each code adds its amount to the balance of whoever redeems it first, once. Codes are shown only when they are
          issued: Switchyard stores nothing but their hashes.
        </p>
      </div>
      <IssueGiftCardsForm />
      <IssuedGiftCards />
    </>
  );
}
