import { Fragment, useEffect, useId, useRef, useState } from 'react';
import type { ActivityRecord } from '@switchyard/shared-dto';

import { Button } from '../../../components/ui/button';
import { CopyField } from '../../../components/ui/copy-field';
import { FormattedDate } from '../../../components/ui/formatted-date';
import { PagedList } from '../../../components/ui/paged-list';
import { SelectField } from '../../../components/ui/select-field';
import type { SelectOption } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { formatMoney } from '../../../lib/money';
import { useRequests } from '../api/list-requests';
import {
  filtersProblem,
  filtersSet,
  formatDuration,
  moneyReason,
  NO_FILTERS,
  refusedLimitWords,
  STATUS_OPTIONS,
  statusWords,
} from '../lib/request-filters';
import type { RequestFilters } from '../lib/request-filters';
import { NoCallsYet } from './no-calls-yet';

const count = new Intl.NumberFormat('en-US');

interface RequestsLogProps {
  /** The user's API keys, for the key filter (value: the key's id). */
  keyOptions: readonly SelectOption<string>[];
  /** The OAuth apps the user's calls may come through (value: the client id). */
  appOptions: readonly SelectOption<string>[];
}

function RequestDetail({ record, onClose }: { record: ActivityRecord; onClose: () => void }) {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, [record.id]);
  const { money } = record;
  return (
    <section className="card stack request-detail" aria-labelledby={headingId}>
      <div className="card-heading-row">
        <h2 id={headingId} className="card-title" tabIndex={-1} ref={headingRef}>
          Call to <code className="mono">{record.model}</code>
        </h2>
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
      <CopyField
        label="Request id"
        value={record.requestId}
        hint="Quote it when you ask about this call."
        namedButton
      />
      <dl className="details">
        <div>
          <dt>Started</dt>
          <dd>
            <FormattedDate iso={record.startTime} format="dateTime" />
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            {statusWords(record.status)} (HTTP {record.httpStatus}
            {record.errorCode ? `, ${record.errorCode}` : ''})
          </dd>
        </div>
        {record.refusedLimit ? (
          <div>
            <dt>Refused by</dt>
            <dd>{refusedLimitWords(record.refusedLimit)}</dd>
          </div>
        ) : null}
        <div>
          <dt>{record.credentialType === 'oauth' ? 'App' : 'Key'}</dt>
          <dd>{record.name}</dd>
        </div>
        {record.provider ? (
          <div>
            <dt>Served by</dt>
            <dd>
              <code className="mono">
                {record.provider}
                {record.upstreamModel ? `/${record.upstreamModel}` : ''}
              </code>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Method</dt>
          <dd>
            {record.method.replace(/_/g, ' ')}
            {record.stream ? ', streamed' : ''}
          </dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd>{formatDuration(record.latencyMs)}</dd>
        </div>
        <div>
          <dt>First byte after</dt>
          <dd>{formatDuration(record.firstByteMs)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>
            {count.format(record.promptTokens)} in ({count.format(record.cacheReadTokens)} from cache),{' '}
            {count.format(record.completionTokens)} out ({count.format(record.reasoningTokens)} reasoning)
          </dd>
        </div>
      </dl>
      <h3 className="subheading">Money</h3>
      <dl className="details money-trace">
        <div>
          <dt>Reserved</dt>
          <dd>{formatMoney(money.reserved)}</dd>
        </div>
        <div>
          <dt>Charged</dt>
          <dd>{formatMoney(money.charged)}</dd>
        </div>
        <div>
          <dt>Released</dt>
          <dd>{formatMoney(money.released)}</dd>
        </div>
        {money.sponsored > 0 ? (
          <div data-testid="sponsored-line">
            <dt>
              {money.outcome === 'open' ? 'Held by' : 'Paid by'} {record.name}
            </dt>
            <dd>
              {formatMoney(money.sponsored)} of it, from the app’s sponsored credits; you paid{' '}
              {formatMoney(Math.max(0, money.charged - money.sponsored))}
            </dd>
          </div>
        ) : null}
        {money.markup ? (
          <div data-testid="markup-line">
            <dt>App markup ({money.markup.percent}%)</dt>
            <dd>
              {formatMoney(money.markup.markup)} on {formatMoney(money.markup.providerCost)} of provider cost
            </dd>
          </div>
        ) : null}
      </dl>
      <p className="muted">{moneyReason(money)}</p>
    </section>
  );
}

/** Every gateway call, newest first, filtered, a page at a time, with a call's details and money trace. */
export function RequestsLog({ keyOptions, appOptions }: RequestsLogProps) {
  const id = useId();
  const [filters, setFilters] = useState<RequestFilters>(NO_FILTERS);
  const [model, setModel] = useState('');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const problem = filtersProblem(filters);
  const requests = useRequests(filters, { enabled: problem === null });

  const change = <K extends keyof RequestFilters>(name: K, value: RequestFilters[K]) => {
    setSelectedId(null);
    setFilters((current) => ({ ...current, [name]: value }));
  };

  const renderTable = (records: ActivityRecord[]) => (
    <div className="table-scroll">
      <table
        className="data-table stack-on-phone requests-table"
        aria-labelledby={`${id}-heading`}
        aria-busy={requests.isPlaceholderData || undefined}
      >
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Model</th>
            <th scope="col">Key or app</th>
            <th scope="col" className="numeric">
              Tokens
            </th>
            <th scope="col" className="numeric">
              Cost
            </th>
            <th scope="col" className="numeric">
              Latency
            </th>
            <th scope="col" className="numeric">
              First byte
            </th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <Fragment key={record.id}>
              <tr aria-selected={record.id === selectedId || undefined}>
                <td data-label="Time">
                  {/* The time opens the call's details: one column fewer than a Details button of its own. */}
                  <Button
                    variant="ghost"
                    className="button-link"
                    aria-expanded={record.id === selectedId}
                    onClick={() => setSelectedId(record.id === selectedId ? null : record.id)}
                  >
                    <FormattedDate iso={record.startTime} format="dateTime" />
                    <span className="visually-hidden"> (details)</span>
                  </Button>
                </td>
                <th scope="row" className="data-table-name" data-label="Model">
                  <code className="mono">{record.model}</code>
                </th>
                <td data-label="Key or app">{record.name}</td>
                <td className="numeric" data-label="Tokens">
                  {count.format(record.totalTokens)}
                </td>
                <td className="numeric" data-label="Cost">
                  {formatMoney(record.cost)}
                </td>
                <td className="numeric" data-label="Latency">
                  {formatDuration(record.latencyMs)}
                </td>
                <td className="numeric" data-label="First byte">
                  {formatDuration(record.firstByteMs)}
                </td>
                <td data-label="Status">
                  <span className={record.status === 'success' ? 'badge badge-active' : 'badge badge-revoked'}>
                    {statusWords(record.status)}
                  </span>
                </td>
              </tr>
              {record.id === selectedId ? (
                // The details open at the call's own row, not below the whole list.
                <tr className="request-detail-row">
                  <td colSpan={8}>
                    <RequestDetail record={record} onClose={() => setSelectedId(null)} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );

  return (
    <div className="requests-layout">
      <section className="card stack" aria-labelledby={`${id}-heading`}>
        <div className="card-heading-row">
          <h2 id={`${id}-heading`} className="card-title">
            Calls
          </h2>
          <Button
            variant="secondary"
            busy={requests.isFetching && !requests.isPending && !requests.isFetchingNextPage}
            onClick={() => void requests.refetch()}
          >
            Refresh
          </Button>
        </div>
        <form
          className="filter-row"
          aria-label="Filters"
          onSubmit={(event) => {
            event.preventDefault();
            change('model', model);
          }}
        >
          <SelectField
            label="Key"
            value={filters.keyId}
            options={[{ value: '', label: 'Every key' }, ...keyOptions]}
            onChange={(value) => change('keyId', value)}
          />
          <SelectField
            label="App"
            value={filters.appId}
            options={[{ value: '', label: 'Every app' }, ...appOptions]}
            onChange={(value) => change('appId', value)}
          />
          <TextField
            label="Model"
            value={model}
            placeholder="Any model"
            maxLength={200}
            onChange={(event) => setModel(event.target.value)}
            onBlur={() => model !== filters.model && change('model', model)}
          />
          <SelectField
            label="Status"
            value={filters.status}
            options={STATUS_OPTIONS}
            onChange={(value) => change('status', value)}
          />
          <TextField
            label="From"
            type="date"
            value={filters.from}
            max={filters.to || undefined}
            onChange={(event) => change('from', event.target.value)}
          />
          <TextField
            label="To"
            type="date"
            value={filters.to}
            min={filters.from || undefined}
            onChange={(event) => change('to', event.target.value)}
          />
          <button type="submit" className="visually-hidden" tabIndex={-1}>
            Apply filters
          </button>
        </form>
        <p className="field-hint">
          Dates are UTC calendar days; both are included. Newest calls first; open one by its time.
        </p>
        {filtersSet(filters) ? (
          <div>
            <Button
              variant="secondary"
              onClick={() => {
                setModel('');
                setSelectedId(null);
                setFilters(NO_FILTERS);
              }}
            >
              Clear filters
            </Button>
          </div>
        ) : null}
        {problem ? (
          <p className="field-errors" role="alert">
            {problem}
          </p>
        ) : null}
        {problem ? null : (
          <PagedList
            query={requests}
            what="the requests"
            empty={filtersSet(filters) ? 'No calls match these filters.' : <NoCallsYet />}
          >
            {renderTable}
          </PagedList>
        )}
      </section>
    </div>
  );
}
