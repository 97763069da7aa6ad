import { useState } from 'react';
import type { FormEvent } from 'react';

import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useCreateEmbeddings } from '../api/gateway-calls';
import type { EmbeddingsRequestBody, PlaygroundRequest } from '../lib/snippets';
import { CallCost, CallError } from './call-result';
import { ModelSelect, pickModel } from './model-select';
import type { PlaygroundPanelProps } from './model-select';
import { RequestCode } from './request-code';

const EXAMPLE = 'A gateway in front of many AI models\nOne key, one budget, every provider';
const SHOWN = 6;

/** The texts of the box, one per line (blank lines left out). */
export function embeddingInputs(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Embeddings: one vector per line of text, shown by its size and first numbers. */
export function EmbeddingsPanel({ apiKey, models, initialModel, onCallFinished }: PlaygroundPanelProps) {
  const [modelChoice, setModelChoice] = useState(initialModel);
  const [text, setText] = useState('');
  const embed = useCreateEmbeddings(apiKey, onCallFinished);
  const model = pickModel(models, modelChoice);
  const inputs = embeddingInputs(text || EXAMPLE);
  const body: EmbeddingsRequestBody = { model, input: inputs.length === 1 ? inputs[0] : inputs };
  const request: PlaygroundRequest = { kind: 'embeddings', body };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!embeddingInputs(text).length || !model) return;
    embed.mutate(body);
  };

  return (
    <div className="playground-panel">
      <form className="stack" onSubmit={handleSubmit} aria-label="Make embeddings">
        <ModelSelect models={models} value={model} onChange={setModelChoice} task="embeddings" />
        <TextField
          multiline
          label="Texts, one per line"
          rows={4}
          placeholder={EXAMPLE}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <div>
          <Button type="submit" busy={embed.isPending} disabled={!embeddingInputs(text).length || !model}>
            Embed
          </Button>
        </div>
        {embed.isError ? <CallError error={embed.error} /> : null}
        {embed.isSuccess ? (
          <div className="stack" role="status">
            <p>
              {embed.data.vectors.length} {embed.data.vectors.length === 1 ? 'vector' : 'vectors'} of{' '}
              {embed.data.vectors[0]?.embedding.length ?? 0} dimensions.
            </p>
            <ol className="embedding-results">
              {embed.data.vectors.map((vector) => (
                <li key={vector.index}>
                  <code className="mono small">
                    [
                    {vector.embedding
                      .slice(0, SHOWN)
                      .map((value) => value.toFixed(4))
                      .join(', ')}
                    {vector.embedding.length > SHOWN ? ', …' : ''}]
                  </code>
                </li>
              ))}
            </ol>
            <CallCost tokens={embed.data.promptTokens} cost={embed.data.cost} />
          </div>
        ) : null}
      </form>
      <RequestCode request={request} />
    </div>
  );
}
