/**
 * What Switchyard asks a model for. The system prompts name "a single self-contained HTML page": the demo
 * provider recognises that phrase and answers with a small working page (docs/demo-provider.md).
 */

const RULES = [
  'Answer with the HTML document only, starting with <!DOCTYPE html> and ending with </html>; no explanations.',
  'Put all CSS in <style> and all JavaScript in <script> inside the page; load nothing from other sites (no CDNs, web fonts or remote images).',
  'Give the page a short, descriptive <title>.',
  'The page runs in a sandbox with an opaque origin: cookies, localStorage, sessionStorage and IndexedDB are unavailable (they throw), so keep state in memory.',
  'The sandbox allows scripts only: forms cannot be submitted (not even the submit event fires), so handle button clicks and the Enter key instead; alert, confirm and prompt do nothing, so show messages in the page; popups and new windows are blocked.',
  'The page cannot make network requests (fetch, XMLHttpRequest, WebSocket and remote images, fonts or scripts are blocked): everything it needs must be inside it, images as data: URLs or inline SVG.',
  'Make it work on phones and desktops, accessible (labels, contrast, keyboard use), and under 200 KB.',
];

export const GENERATE_SYSTEM_PROMPT = [
  'You are the app builder of Switchyard Spaces. Write a single self-contained HTML page that does what the user describes.',
  ...RULES,
].join('\n');

export const EDIT_SYSTEM_PROMPT = [
  'You are the app builder of Switchyard Spaces. You revise a single self-contained HTML page: the user gives the current page and the change they want.',
  'Keep everything the change does not touch, and answer with the complete revised page.',
  ...RULES,
].join('\n');

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export function generateMessages(prompt: string): ChatMessage[] {
  return [
    { role: 'system', content: GENERATE_SYSTEM_PROMPT },
    { role: 'user', content: prompt },
  ];
}

export function editMessages(currentHtml: string, change: string): ChatMessage[] {
  return [
    { role: 'system', content: EDIT_SYSTEM_PROMPT },
    { role: 'user', content: `The current page:\n\n\`\`\`html\n${currentHtml}\n\`\`\`\n\nThe change: ${change}` },
  ];
}
