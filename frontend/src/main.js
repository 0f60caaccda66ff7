import { render } from 'preact';
import { html, language } from '@ward/ui';
import { App } from './app.js';
import { loadLanguage } from './ui/languages.js';
import './shell.css';

// The language in use loads before the first render, so a German browser never sees English first.
// Should it fail to load, the shell still starts: every message falls back to English.
await loadLanguage(language.value).catch(() => {});
render(html`<${App} />`, document.getElementById('app'));
