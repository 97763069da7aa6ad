import type { ModelEntry } from '@switchyard/shared-dto';

import { SelectField } from '../../../components/ui/select-field';
import type { GatewayCredential } from '../../../lib/gateway';

/** What every playground tab gets. */
export interface PlaygroundPanelProps {
  apiKey: GatewayCredential;
  /** The catalog's models for this tab's task. */
  models: readonly ModelEntry[];
  /** A model asked for in the address; used when the list has it. */
  initialModel: string;
  /** After every call, whatever its outcome. */
  onCallFinished: () => void;
}

interface ModelSelectProps {
  models: readonly ModelEntry[];
  value: string;
  onChange: (id: string) => void;
  /** What the models are for, as in "No model in the catalog does chat". */
  task: string;
}

/** The models of one task, by id, as the catalog lists them. */
export function ModelSelect({ models, value, onChange, task }: ModelSelectProps) {
  if (models.length === 0) {
    return <p className="muted">No model in the catalog does {task}. The operator can add one.</p>;
  }
  return (
    <SelectField
      label="Model"
      value={value}
      options={models.map((model) => ({ value: model.id, label: model.id }))}
      onChange={onChange}
    />
  );
}

/** The chosen model when the list has it, else the first one; '' when there is none. */
export function pickModel(models: readonly ModelEntry[], wanted: string): string {
  return models.some((model) => model.id === wanted) ? wanted : (models[0]?.id ?? '');
}
