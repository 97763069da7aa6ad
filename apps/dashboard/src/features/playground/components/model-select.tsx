import { useId } from 'react';
import type { ModelEntry } from '@switchyard/shared-dto';

interface ModelSelectProps {
  models: readonly ModelEntry[];
  value: string;
  onChange: (id: string) => void;
  /** What the models are for, as in "No model in the catalog does chat". */
  task: string;
}

/** The models of one task, by id, as the catalog lists them. */
export function ModelSelect({ models, value, onChange, task }: ModelSelectProps) {
  const id = useId();
  if (models.length === 0) {
    return <p className="muted">No model in the catalog does {task}. The operator can add one.</p>;
  }
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        Model
      </label>
      <select id={id} className="field-input" value={value} onChange={(event) => onChange(event.target.value)}>
        {models.map((model) => (
          <option key={model.id} value={model.id}>
            {model.id}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The chosen model when the list has it, else the first one; '' when there is none. */
export function pickModel(models: readonly ModelEntry[], wanted: string): string {
  return models.some((model) => model.id === wanted) ? wanted : (models[0]?.id ?? '');
}
