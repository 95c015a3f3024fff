/** @module A link to a console page (a hash route), so pages never build URLs by hand. */
import type { ComponentChildren } from 'preact';
import { formatHash, type ConsoleRoute } from '../lib/hash-route';

export function Link({ to, children, class: className }: { to: ConsoleRoute; children: ComponentChildren; class?: string }) {
  return (
    <a href={formatHash(to)} class={className}>
      {children}
    </a>
  );
}

export function navigate(to: ConsoleRoute): void {
  window.location.hash = formatHash(to);
}
