import { render } from 'preact';
import { App } from './app.js';
import { applyStoredTheme } from './ui/theme.js';

applyStoredTheme();
const root = document.getElementById('app');
if (root) render(<App />, root);
