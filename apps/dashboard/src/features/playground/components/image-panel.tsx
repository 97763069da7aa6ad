import { useState } from 'react';
import type { FormEvent } from 'react';

import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { useGenerateImages } from '../api/gateway-calls';
import type { ImageRequestBody, PlaygroundRequest } from '../lib/snippets';
import { CallCost, CallError } from './call-result';
import { ModelSelect, pickModel } from './model-select';
import type { PlaygroundPanelProps } from './model-select';
import { RequestCode } from './request-code';

const SIZES = ['256x256', '512x512', '1024x1024', '1024x1536', '1536x1024'] as const;
const EXAMPLE_PROMPT = 'A lighthouse on a rocky coast at dawn, watercolor';

/** Image generation; each result is shown whether it came as a URL or as base64. */
export function ImagePanel({ apiKey, models, initialModel, onCallFinished }: PlaygroundPanelProps) {
  const [modelChoice, setModelChoice] = useState(initialModel);
  const [prompt, setPrompt] = useState('');
  const [size, setSize] = useState<string>('512x512');
  const [count, setCount] = useState(1);
  const [format, setFormat] = useState<'b64_json' | 'url'>('b64_json');
  const generate = useGenerateImages(apiKey, onCallFinished);
  const model = pickModel(models, modelChoice);

  const body: ImageRequestBody = {
    model,
    prompt: prompt.trim() || EXAMPLE_PROMPT,
    n: count,
    size,
    response_format: format,
  };
  const request: PlaygroundRequest = { kind: 'image', body };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!prompt.trim() || !model) return;
    generate.mutate(body);
  };

  return (
    <div className="playground-panel">
      <form className="stack" onSubmit={handleSubmit} aria-label="Generate images">
        <ModelSelect models={models} value={model} onChange={setModelChoice} task="image generation" />
        <TextField
          multiline
          label="Prompt"
          rows={3}
          placeholder={EXAMPLE_PROMPT}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
        />
        <div className="filter-row">
          <SelectField
            label="Size"
            value={size}
            options={SIZES.map((option) => ({ value: option, label: option.replace('x', ' × ') }))}
            onChange={setSize}
          />
          <SelectField
            label="Images"
            value={count}
            options={[1, 2, 3, 4].map((option) => ({ value: option, label: String(option) }))}
            onChange={setCount}
          />
          <SelectField
            label="Answer as"
            value={format}
            options={[
              { value: 'b64_json', label: 'Base64 (b64_json)' },
              { value: 'url', label: 'URL (url)' },
            ]}
            onChange={setFormat}
          />
        </div>
        <div>
          <Button type="submit" busy={generate.isPending} disabled={!prompt.trim() || !model}>
            Generate
          </Button>
        </div>
        {generate.isError ? <CallError error={generate.error} /> : null}
        {generate.isSuccess ? (
          <div className="stack" role="status">
            <p className="visually-hidden">{`${generate.data.images.length} image(s) generated.`}</p>
            <ul className="image-results">
              {generate.data.images.map((image, index) => {
                const src = image.url ?? (image.b64_json ? `data:image/png;base64,${image.b64_json}` : null);
                return (
                  <li key={index} className="image-result">
                    {src ? (
                      <>
                        <img src={src} alt={`Generated image ${index + 1}: ${image.revised_prompt ?? body.prompt}`} />
                        <p className="muted small">
                          Came as {image.url ? 'url' : 'b64_json'} ·{' '}
                          <a href={src} download={`image-${index + 1}.png`}>
                            Download<span className="visually-hidden"> image {index + 1}</span>
                          </a>
                        </p>
                      </>
                    ) : (
                      <p className="muted">The model sent neither a url nor b64_json for image {index + 1}.</p>
                    )}
                  </li>
                );
              })}
            </ul>
            <CallCost cost={generate.data.cost} />
          </div>
        ) : null}
      </form>
      <RequestCode request={request} />
    </div>
  );
}
