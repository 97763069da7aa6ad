import { useRef } from 'react';
import type { KeyboardEvent, ReactNode } from 'react';

export interface TabItem<T extends string> {
  id: T;
  label: ReactNode;
}

interface TabsProps<T extends string> {
  /** Names the tab list for screen readers. */
  label: string;
  /** Prefix of the tab and panel ids: tabs are `${idPrefix}-tab-${id}`, panels `${idPrefix}-panel-${id}`. */
  idPrefix: string;
  tabs: readonly TabItem<T>[];
  selected: T;
  onSelect: (id: T) => void;
}

/**
 * The WAI-ARIA tabs pattern with automatic activation: one tab stop, arrow keys (and Home, End) move between
 * tabs and select them. The caller renders the selected panel inside <TabPanel>.
 */
export function Tabs<T extends string>({ label, idPrefix, tabs, selected, onSelect }: TabsProps<T>) {
  const listRef = useRef<HTMLDivElement>(null);

  const handleKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = tabs.findIndex((tab) => tab.id === selected);
    let next = -1;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = (index + 1) % tabs.length;
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = (index - 1 + tabs.length) % tabs.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = tabs.length - 1;
    if (next === -1) return;
    event.preventDefault();
    onSelect(tabs[next].id);
    listRef.current?.querySelector<HTMLButtonElement>(`#${CSS.escape(`${idPrefix}-tab-${tabs[next].id}`)}`)?.focus();
  };

  return (
    <div ref={listRef} className="tabs" role="tablist" aria-label={label} onKeyDown={handleKeyDown}>
      {tabs.map((tab) => (
        <button
          key={tab.id}
          id={`${idPrefix}-tab-${tab.id}`}
          type="button"
          role="tab"
          className="tab"
          aria-selected={tab.id === selected}
          aria-controls={`${idPrefix}-panel-${tab.id}`}
          tabIndex={tab.id === selected ? 0 : -1}
          onClick={() => onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** The selected tab's panel; its content should hold something focusable (a form, a scrollable code block). */
export function TabPanel({
  idPrefix,
  id,
  children,
  className,
  hidden,
}: {
  idPrefix: string;
  id: string;
  children: ReactNode;
  className?: string;
  /** Keeps a panel mounted (and its state) while another tab is selected. */
  hidden?: boolean;
}) {
  return (
    <div
      id={`${idPrefix}-panel-${id}`}
      role="tabpanel"
      aria-labelledby={`${idPrefix}-tab-${id}`}
      className={className}
      hidden={hidden}
    >
      {children}
    </div>
  );
}
