import { useId, useState } from 'react';
import type { GiftCardStatus } from '@switchyard/shared-dto';

import { FormattedDate } from '../../../components/ui/formatted-date';
import { PagedList } from '../../../components/ui/paged-list';
import { SelectField } from '../../../components/ui/select-field';
import { formatMoney } from '../../../lib/money';
import { useAdminGiftCards } from '../api/list-gift-cards';

const STATUS: { value: GiftCardStatus | ''; label: string }[] = [
  { value: '', label: 'Every card' },
  { value: 'unredeemed', label: 'Not redeemed' },
  { value: 'redeemed', label: 'Redeemed' },
  { value: 'expired', label: 'Expired' },
];

const WORDS: Record<GiftCardStatus, string> = { unredeemed: 'Not redeemed', redeemed: 'Redeemed', expired: 'Expired' };

/** Issued cards, newest first: their amount, status, and who redeemed each and when (codes are never shown again). */
export function IssuedGiftCards() {
  const id = useId();
  const [status, setStatus] = useState<GiftCardStatus | ''>('');
  const cards = useAdminGiftCards(status);
  return (
    <section className="card stack" aria-labelledby={id}>
      <h2 id={id} className="card-title">
        Issued cards
      </h2>
      <div className="filter-row">
        <SelectField label="Show" value={status} options={STATUS} onChange={setStatus} />
      </div>
      <PagedList query={cards} what="the issued cards" empty="No card matches.">
        {(items) => (
          <div className="table-scroll">
            <table className="data-table stack-on-phone" aria-labelledby={id}>
              <thead>
                <tr>
                  <th scope="col">Card</th>
                  <th scope="col" className="numeric">
                    Amount
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Issued</th>
                  <th scope="col">Redeemed by</th>
                </tr>
              </thead>
              <tbody>
                {items.map((card) => (
                  <tr key={card.id}>
                    <th scope="row" className="data-table-name mono" data-label="Card">
                      {card.id.slice(0, 8)}
                    </th>
                    <td className="numeric" data-label="Amount">
                      {formatMoney(card.amount)}
                    </td>
                    <td data-label="Status">
                      <span className={card.status === 'unredeemed' ? 'badge badge-active' : 'badge badge-revoked'}>
                        {WORDS[card.status]}
                      </span>
                    </td>
                    <td data-label="Issued">
                      <FormattedDate iso={card.createdAt} format="dateTime" />
                      {card.issuedBy ? ` by ${card.issuedBy.email}` : ' from the command line'}
                    </td>
                    <td data-label="Redeemed by">
                      {card.redeemedBy && card.redeemedAt ? (
                        <>
                          {card.redeemedBy.email}, <FormattedDate iso={card.redeemedAt} format="dateTime" />
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedList>
    </section>
  );
}
