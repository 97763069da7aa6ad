/** The app shell's sections, in sidebar order. */
export interface ShellSection {
  path: string;
  label: string;
}

export const SHELL_SECTIONS: readonly ShellSection[] = [
  { path: '/', label: 'Overview' },
  { path: '/keys', label: 'API keys' },
  { path: '/apps', label: 'OAuth apps' },
  { path: '/authorized-apps', label: 'Authorized apps' },
  { path: '/usage', label: 'Usage' },
  { path: '/models', label: 'Models' },
  { path: '/playground', label: 'Playground' },
  { path: '/billing', label: 'Billing' },
  { path: '/spaces', label: 'Spaces' },
  { path: '/docs', label: 'Docs' },
];

export function findSection(pathname: string): ShellSection | undefined {
  const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return SHELL_SECTIONS.find((section) => section.path === normalized);
}
