import { useEffect, useState } from 'preact/hooks';

/** Where the chosen theme is remembered (`localStorage`: a preference, not a secret). */
const THEME_KEY = 'aperture.theme';

/** A theme the user chose; without one the console follows `prefers-color-scheme`. */
export type Theme = 'light' | 'dark';

function stored(): Theme | undefined {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : undefined;
}

/** Applies the remembered theme (if any) to the page: `data-theme` on `<html>`, read by the stylesheet. */
export function applyStoredTheme(): void {
  const theme = stored();
  if (theme) document.documentElement.dataset.theme = theme;
}

/**
 * The theme in effect and a toggle that flips it and remembers the choice. Until the user chooses,
 * the system's preference decides (and is followed when it changes).
 */
export function useTheme(): [Theme, () => void] {
  const query = matchMedia('(prefers-color-scheme: dark)');
  const effective = (): Theme => stored() ?? (query.matches ? 'dark' : 'light');
  const [theme, setTheme] = useState<Theme>(effective);
  useEffect(() => {
    const onChange = () => setTheme(effective());
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  const toggle = () => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem(THEME_KEY, next);
    document.documentElement.dataset.theme = next;
    setTheme(next);
  };
  return [theme, toggle];
}
