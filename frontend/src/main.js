import { render } from 'preact';
import { html } from '@ward/ui';
import { App } from './app.js';
import './shell.css';

render(html`<${App} />`, document.getElementById('app'));
