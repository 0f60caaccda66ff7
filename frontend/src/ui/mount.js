import { render } from 'preact';
import { html } from './html.js';

/**
 * A route's (or anything drawn into an element's) `render` from a Preact component: it draws
 * `<Page context=… />` into the element, and the function it returns, which the shell calls when
 * the user leaves, removes it. `{ path: '/notes', render: mount(Notes) }`.
 * @param {import('preact').ComponentType<{context: import('./types').LayerContext}>} Page
 * @returns {import('./types').RouteRender}
 */
export const mount = (Page) => (element, context) => {
  render(html`<${Page} context=${context} />`, element);
  return () => render(null, element);
};
