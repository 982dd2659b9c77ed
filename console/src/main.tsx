import { render } from 'preact';
import { App } from './app.js';
import { applyTheme } from './ui/theme.js';

applyTheme();
const root = document.getElementById('app');
if (root) render(<App />, root);
