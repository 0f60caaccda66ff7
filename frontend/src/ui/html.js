import { h } from 'preact';
import htm from 'htm';

/** JSX-free templates bound to the shared Preact: html`<${Button}>Save<//>`. */
export const html = htm.bind(h);
