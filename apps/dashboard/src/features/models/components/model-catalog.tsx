import { useId, useState } from 'react';
import { MODEL_METHODS, MODEL_TYPES } from '@switchyard/shared-dto';
import type { ModelEntry, ModelMethod, ModelType } from '@switchyard/shared-dto';

import { LoadError } from '../../../components/ui/load-error';
import { Link } from '../../../lib/router';
import { useModels } from '../api/list-models';
import {
  capabilitiesOf,
  capabilityLabel,
  METHOD_LABELS,
  NO_FILTERS,
  pricingLines,
  searchModels,
  tasksOf,
  tokensLabel,
  TYPE_LABELS,
} from '../lib/catalog';
import type { ModelFilters, PlaygroundTask } from '../lib/catalog';

const TASK_LABELS: Record<PlaygroundTask, string> = { chat: 'chat', image: 'image generation', speech: 'speech', transcription: 'transcription' };

function ModelCard({ model }: { model: ModelEntry }) {
  const headingId = useId();
  const prices = pricingLines(model.pricing);
  const context = tokensLabel(model.context_length);
  const maxOutput = tokensLabel(model.max_output_tokens);
  const tasks = tasksOf(model);

  return (
    <li className="model-card" aria-labelledby={headingId}>
      <div className="model-card-header">
        <h3 id={headingId} className="model-card-title mono">
          {model.id}
        </h3>
        {model.type ? <span className="badge badge-active">{TYPE_LABELS[model.type] ?? model.type}</span> : null}
      </div>
      <p className="muted small">Owned by {model.owned_by}</p>
      <dl className="model-facts">
        <div>
          <dt>Methods</dt>
          <dd>{model.methods && model.methods.length > 0 ? model.methods.map((method) => METHOD_LABELS[method] ?? method).join(', ') : 'Not listed'}</dd>
        </div>
        <div>
          <dt>Capabilities</dt>
          <dd>
            {model.capabilities && model.capabilities.length > 0 ? (
              <span className="tag-list">
                {model.capabilities.map((capability) => (
                  <span key={capability} className="tag">
                    {capabilityLabel(capability)}
                  </span>
                ))}
              </span>
            ) : (
              'None listed'
            )}
          </dd>
        </div>
        <div>
          <dt>Context length</dt>
          <dd>{context ?? 'Not listed'}</dd>
        </div>
        {maxOutput ? (
          <div>
            <dt>Max output</dt>
            <dd>{maxOutput}</dd>
          </div>
        ) : null}
        <div>
          <dt>Pricing</dt>
          <dd>
            {prices.length > 0 ? (
              <ul className="plain-list">
                {prices.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            ) : (
              'Not listed'
            )}
          </dd>
        </div>
      </dl>
      {tasks.length > 0 ? (
        <div className="button-row">
          {tasks.map((task) => (
            <Link
              key={task}
              className="button button-secondary button-small"
              href={`/playground?task=${task}&model=${encodeURIComponent(model.id)}`}
            >
              Try {TASK_LABELS[task]}
              <span className="visually-hidden"> with {model.id}</span>
            </Link>
          ))}
        </div>
      ) : null}
    </li>
  );
}

/** The live catalog: the gateway filters by type, method and capability; the search narrows by id or owner. */
export function ModelCatalog({ apiKey }: { apiKey: string }) {
  const id = useId();
  const [filters, setFilters] = useState<ModelFilters>(NO_FILTERS);
  const [search, setSearch] = useState('');
  const all = useModels(apiKey);
  const filtered = useModels(apiKey, filters);
  const capabilities = capabilitiesOf(all.data?.data ?? []);
  const models = searchModels(filtered.data?.data ?? [], search);
  const filtering = filters.type || filters.method || filters.capability || search.trim();

  let body;
  if (filtered.isPending) {
    body = (
      <p className="muted" role="status">
        Loading the catalog…
      </p>
    );
  } else if (filtered.isError) {
    body = (
      <LoadError
        message={`Could not load the models: ${filtered.error.message}`}
        retrying={filtered.isFetching}
        onRetry={() => void filtered.refetch()}
      />
    );
  } else if (models.length === 0) {
    body = <p className="muted">{filtering ? 'No model matches these filters.' : 'The catalog is empty: the operator has not configured any model.'}</p>;
  } else {
    body = (
      <ul className="model-grid" aria-busy={filtered.isPlaceholderData || undefined}>
        {models.map((model) => (
          <ModelCard key={model.id} model={model} />
        ))}
      </ul>
    );
  }

  return (
    <section className="card stack" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="card-title">
        Catalog
      </h2>
      <div className="filter-row">
        <div className="field filter-search">
          <label className="field-label" htmlFor={`${id}-search`}>
            Search
          </label>
          <input
            id={`${id}-search`}
            className="field-input"
            type="search"
            placeholder="Model id or owner"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-type`}>
            Type
          </label>
          <select
            id={`${id}-type`}
            className="field-input"
            value={filters.type}
            onChange={(event) => setFilters({ ...filters, type: event.target.value as ModelType | '' })}
          >
            <option value="">Any type</option>
            {MODEL_TYPES.map((type) => (
              <option key={type} value={type}>
                {TYPE_LABELS[type]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-method`}>
            Method
          </label>
          <select
            id={`${id}-method`}
            className="field-input"
            value={filters.method}
            onChange={(event) => setFilters({ ...filters, method: event.target.value as ModelMethod | '' })}
          >
            <option value="">Any method</option>
            {MODEL_METHODS.map((method) => (
              <option key={method} value={method}>
                {METHOD_LABELS[method]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-capability`}>
            Capability
          </label>
          <select
            id={`${id}-capability`}
            className="field-input"
            value={filters.capability}
            onChange={(event) => setFilters({ ...filters, capability: event.target.value })}
          >
            <option value="">Any capability</option>
            {capabilities.map((capability) => (
              <option key={capability} value={capability}>
                {capabilityLabel(capability)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="muted small" role="status">
        {filtered.data ? `${models.length} of ${all.data?.data.length ?? filtered.data.data.length} models` : ''}
      </p>
      {body}
    </section>
  );
}
