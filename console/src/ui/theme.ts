import { useEffect, useState } from 'preact/hooks';

/** Where the chosen theme is remembered (`localStorage`: a preference, not a secret). */
const THEME_KEY = 'aperture.theme';

/** A theme the user chose; without one the console follows `prefers-color-scheme`. */
export type Theme = 'light' | 'dark';

function stored(): Theme | undefined {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : undefined;
}

const systemDark = (): MediaQueryList => matchMedia('(prefers-color-scheme: dark)');

/** The theme in effect: the one the user chose, else the system's. */
function effective(): Theme {
  return stored() ?? (systemDark().matches ? 'dark' : 'light');
}

/**
 * Applies the theme in effect to the page: `data-theme` on `<html>`, the one thing the stylesheet
 * reads (so its dark palette is written once).
 */
export function applyTheme(): void {
  document.documentElement.dataset.theme = effective();
}

/**
 * The theme in effect and a toggle that flips it and remembers the choice. Until the user chooses,
 * the system's preference decides (and is followed when it changes).
 */
export function useTheme(): [Theme, () => void] {
  const query = systemDark();
  const [theme, setTheme] = useState<Theme>(effective);
  useEffect(() => {
    const onChange = () => {
      applyTheme();
      setTheme(effective());
    };
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
