import { SPACE_SDK_PATH } from '@switchyard/shared-dto';

/**
 * What Switchyard asks a model for. The system prompts name "a single self-contained HTML page": the demo
 * provider recognises that phrase and answers with a small working page (docs/demo-provider.md), and reads the
 * model lines below ("Chat model: …") to write an app that calls them.
 */

/** The models a page may call, from the catalog (null: the catalog has none of that kind). */
export interface AppModels {
  chat: string | null;
  image: string | null;
}

const RULES = [
  'Answer with the HTML document only, starting with <!DOCTYPE html> and ending with </html>; no explanations.',
  'Put all CSS in <style> and all JavaScript in classic inline <script> elements (no modules, no eval); load nothing from other sites (no CDNs, web fonts, remote images or scripts). Every script must be valid JavaScript.',
  'Give the page a short, descriptive <title>.',
  'The page runs on an origin of its own: localStorage and sessionStorage work, but nothing outside the page is reachable. Forms cannot be submitted (handle button clicks and the Enter key instead); alert, confirm and prompt do nothing (show messages in the page); the page is never framed.',
  'Make it work on phones and desktops, accessible (labels, contrast, keyboard use), and under 200 KB.',
];

/** How a page calls models: only through the Switchyard kit, on its visitor's budget (docs/spaces.md). */
function kitRules(models: AppModels): string[] {
  if (!models.chat && !models.image)
    return [
      'The page cannot make network requests: everything it needs must be inside it, images as data: URLs or inline SVG.',
    ];
  return [
    `The page may call AI models, and only through the Switchyard kit: load it with <script src="${SPACE_SDK_PATH}"></script> (exactly this relative address: no other script may be loaded) and create the client with \`const sy = window.Switchyard ? Switchyard.init({}) : null;\` (its server and app are filled in for you).`,
    'Visitors sign in and pay for their own calls: put <button type="button" data-switchyard-button></button> on the page (the kit labels it and signs in through a popup); `sy.state.status` is "signed-in" or "signed-out" and `sy.subscribe(fn)` reports changes. A visitor who is not signed in (or a page where window.Switchyard is undefined, as in a preview) must still see the whole app with the sign-in button and a short note, never an error.',
    ...(models.chat
      ? [
          `Chat model: ${models.chat}. Call it with \`const response = await sy.fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: '${models.chat}', messages }) })\`; the answer is \`(await response.json()).choices[0].message.content\` (the OpenAI chat completions format).`,
        ]
      : []),
    ...(models.image
      ? [
          `Image model: ${models.image}. Call it with \`sy.fetch('/v1/images/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: '${models.image}', prompt, response_format: 'b64_json' }) })\` and show \`'data:image/png;base64,' + (await response.json()).data[0].b64_json\` in an <img>.`,
        ]
      : []),
    'Make no other request: sy.fetch is the only network call allowed (fetch, XMLHttpRequest, WebSocket and any other address are blocked). Show "Working…" while a call runs, and the error message in the page when `response.ok` is false or the call throws.',
  ];
}

export function generateSystemPrompt(models: AppModels): string {
  return [
    'You are the app builder of Switchyard Spaces. Write a single self-contained HTML page that does what the user describes.',
    ...RULES,
    ...kitRules(models),
  ].join('\n');
}

export function editSystemPrompt(models: AppModels): string {
  return [
    'You are the app builder of Switchyard Spaces. You revise a single self-contained HTML page: the user gives the current page and the change they want.',
    'Keep everything the change does not touch, and answer with the complete revised page.',
    ...RULES,
    ...kitRules(models),
  ].join('\n');
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export function generateMessages(prompt: string, models: AppModels): ChatMessage[] {
  return [
    { role: 'system', content: generateSystemPrompt(models) },
    { role: 'user', content: prompt },
  ];
}

export function editMessages(currentHtml: string, change: string, models: AppModels): ChatMessage[] {
  return [
    { role: 'system', content: editSystemPrompt(models) },
    { role: 'user', content: `The current page:\n\n\`\`\`html\n${currentHtml}\n\`\`\`\n\nThe change: ${change}` },
  ];
}
