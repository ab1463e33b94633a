import { create } from 'zustand';

export const PAGES = ['setup', 'mine', 'validate', 'earnings', 'fleet', 'history', 'notifications', 'logs', 'settings'] as const;
export type Page = (typeof PAGES)[number];

function pageFromHash(): Page {
  const h = location.hash.replace(/^#\/?/, '');
  return (PAGES as readonly string[]).includes(h) ? (h as Page) : 'setup';
}

interface UiState {
  page: Page;
  go(page: Page): void;
}

/** UI-only state: which page is open (kept in the URL hash so reloads and links keep it). */
export const useUi = create<UiState>((set) => ({
  page: pageFromHash(),
  go: (page) => {
    if (location.hash !== `#/${page}`) history.replaceState(null, '', `${location.pathname}${location.search}#/${page}`);
    set({ page });
  },
}));

window.addEventListener('hashchange', () => useUi.setState({ page: pageFromHash() }));
