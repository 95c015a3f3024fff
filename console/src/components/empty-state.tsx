/** @module What a page shows when there is nothing to list, with what to do about it. */
import type { ComponentChildren } from 'preact';

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-help">{children}</div>}
    </div>
  );
}
