import { useId, useState } from 'react';
import { MODEL_METHODS, MODEL_TYPES } from '@switchyard/shared-dto';
import type { ModelEntry, ModelMethod, ModelType } from '@switchyard/shared-dto';

import { QueryView } from '../../../components/ui/query-view';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { Link } from '../../../lib/router';
import { useModels } from '../api/list-models';
import {
  capabilitiesOf,
  capabilityLabel,
  deploymentLines,
  METHOD_LABELS,
  NO_FILTERS,
  pricingLines,
  searchModels,
  tasksOf,
  tokensLabel,
  TYPE_LABELS,
} from '../lib/catalog';
import type { ModelFilters, PlaygroundTask } from '../lib/catalog';
import type { GatewayCredential } from '../../../lib/gateway';

const TYPE_OPTIONS: { value: ModelType | ''; label: string }[] = [
  { value: '', label: 'Any type' },
  ...MODEL_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] })),
];
const METHOD_OPTIONS: { value: ModelMethod | ''; label: string }[] = [
  { value: '', label: 'Any method' },
  ...MODEL_METHODS.map((method) => ({ value: method, label: METHOD_LABELS[method] })),
];

const TASK_LABELS: Record<PlaygroundTask, string> = {
  chat: 'chat',
  image: 'image generation',
  speech: 'speech',
  transcription: 'transcription',
  embeddings: 'embeddings',
  video: 'video',
};

function ModelCard({ model }: { model: ModelEntry }) {
  const headingId = useId();
  const prices = pricingLines(model.pricing);
  const context = tokensLabel(model.context_length);
  const maxOutput = tokensLabel(model.max_output_tokens);
  const tasks = tasksOf(model);
  const providers = deploymentLines(model);

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
          <dd>
            {model.methods && model.methods.length > 0
              ? model.methods.map((method) => METHOD_LABELS[method] ?? method).join(', ')
              : 'Not listed'}
          </dd>
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
        {providers.length > 0 ? (
          <div>
            <dt>Providers</dt>
            <dd>
              <ul className="plain-list">
                {providers.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </dd>
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
export function ModelCatalog({ apiKey }: { apiKey: GatewayCredential }) {
  const id = useId();
  const [filters, setFilters] = useState<ModelFilters>(NO_FILTERS);
  const [search, setSearch] = useState('');
  const all = useModels(apiKey);
  const filtered = useModels(apiKey, filters);
  const capabilities = capabilitiesOf(all.data?.data ?? []);
  const shownCount = searchModels(filtered.data?.data ?? [], search).length;
  const filtering = filters.type || filters.method || filters.capability || search.trim();

  return (
    <section className="card stack" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="card-title">
        Catalog
      </h2>
      <div className="filter-row">
        <TextField
          label="Search"
          type="search"
          placeholder="Model id or owner"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        <SelectField
          label="Type"
          value={filters.type}
          options={TYPE_OPTIONS}
          onChange={(type) => setFilters({ ...filters, type })}
        />
        <SelectField
          label="Method"
          value={filters.method}
          options={METHOD_OPTIONS}
          onChange={(method) => setFilters({ ...filters, method })}
        />
        <SelectField
          label="Capability"
          value={filters.capability}
          options={[
            { value: '', label: 'Any capability' },
            ...capabilities.map((capability) => ({ value: capability, label: capabilityLabel(capability) })),
          ]}
          onChange={(capability) => setFilters({ ...filters, capability })}
        />
      </div>
      <p className="muted small" role="status">
        {filtered.data ? `${shownCount} of ${all.data?.data.length ?? filtered.data.data.length} models` : ''}
      </p>
      <QueryView query={filtered} what="the catalog">
        {(list) => {
          const models = searchModels(list.data, search);
          if (models.length === 0) {
            return (
              <p className="muted">
                {filtering
                  ? 'No model matches these filters.'
                  : 'The catalog is empty: the operator has not configured any model.'}
              </p>
            );
          }
          return (
            <ul className="model-grid" aria-busy={filtered.isPlaceholderData || undefined}>
              {models.map((model) => (
                <ModelCard key={model.id} model={model} />
              ))}
            </ul>
          );
        }}
      </QueryView>
    </section>
  );
}
