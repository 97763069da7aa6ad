import type { UserRole } from '@switchyard/shared-dto';

/** The app shell's sections, in sidebar order. */
export interface ShellSection {
  path: string;
  label: string;
  /** Only these roles see the section (the API enforces the same on its routes). */
  roles?: readonly UserRole[];
}

export const SHELL_SECTIONS: readonly ShellSection[] = [
  { path: '/', label: 'Overview' },
  { path: '/keys', label: 'API keys' },
  { path: '/apps', label: 'OAuth apps' },
  { path: '/earnings', label: 'Earnings' },
  { path: '/authorized-apps', label: 'Authorized apps' },
  { path: '/usage', label: 'Usage' },
  { path: '/requests', label: 'Requests' },
  { path: '/models', label: 'Models' },
  { path: '/playground', label: 'Playground' },
  { path: '/billing', label: 'Billing' },
  { path: '/spaces', label: 'Spaces' },
  { path: '/docs', label: 'Docs' },
  { path: '/settings', label: 'Settings' },
  { path: '/admin', label: 'Console', roles: ['admin'] },
  { path: '/admin/gift-cards', label: 'Gift cards', roles: ['admin'] },
];

export function canSee(section: ShellSection, role: UserRole): boolean {
  return !section.roles || section.roles.includes(role);
}

export function findSection(pathname: string): ShellSection | undefined {
  const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return SHELL_SECTIONS.find((section) => section.path === normalized);
}
