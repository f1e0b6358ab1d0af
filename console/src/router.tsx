import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Paths below /console/; links change the address without reloading the page. */
const BASE = '/console';
const listeners = new Set<() => void>();

export function navigate(path: string): void {
  history.pushState(null, '', `${BASE}${path}`);
  for (const listener of listeners) listener();
}

export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

export function Link(props: { to: string; children: ComponentChildren; current?: boolean; class?: string }) {
  return (
    <a
      href={`${BASE}${props.to}`}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
