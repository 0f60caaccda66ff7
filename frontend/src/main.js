import { render } from 'preact';
import { App } from './app.js';
import { hadSession, loadShell } from './state.js';
import { html } from './ui/html.js';
import { language } from './ui/i18n.js';
import { loadLanguage } from './ui/languages.js';
import './shell.css';

// A browser that has used a session is likely still signed in: its shell starts loading at once,
// alongside the language and GET /me, rather than after them. A failure is left for loadMe to show.
if (hadSession()) void loadShell().catch(() => undefined);
// The language in use loads before the first render, so a German browser never sees English first.
// Should it fail to load, the shell still starts: every message falls back to English.
await loadLanguage(language.value).catch(() => {});
render(html`<${App} />`, document.getElementById('app'));
