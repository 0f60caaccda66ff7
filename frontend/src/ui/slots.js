/**
 * Slots: named places on one layer's page where other layers draw a part of their own, such as
 * "documents of this patient" on the patient page. The host renders `<${Slot} name context props />`;
 * the shell gives each page's `context.extensions(name)` the extensions that layers contribute to
 * that slot and that the user may see. Each extension draws inside a boundary of its own: one that
 * throws shows a small error box in its place, and the host and the other extensions go on.
 */
import { Component, render } from 'preact';
import { html } from './html.js';
import { t } from './strings.js';

/** A slot's name: dot-separated lowercase words, the page first (`patient.chart`). */
export const SLOT_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * Catches what one extension throws while it renders (or in its effects) and shows it in its
 * place. Errors in event handlers and promises are the extension's own to show, as on a page.
 * @extends {Component<{module: string, slot: string, children?: any}, {error: unknown}>}
 */
class ExtensionBoundary extends Component {
  constructor(props) {
    super(props);
    this.state = { error: null };
  }

  static getDerivedStateFromError(error) {
    return { error };
  }

  componentDidCatch(error) {
    console.error(`the ${this.props.module} module's part of the slot ${this.props.slot} failed`, error);
  }

  render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const message = error instanceof Error ? error.message : String(error);
    return html`<div class="slot-error" role="alert" data-module=${this.props.module}>
      <p class="slot-error-title">${t('ui.slotFailed', { module: this.props.module })}</p>
      <p>${message}</p>
    </div>`;
  }
}

/**
 * Draws every extension contributed to slot `name`, in order, each given `context` (its own
 * layer's, with the same user and page) and the host's `props`. Nothing when there is none.
 * `inline`: side by side, for buttons among a page's actions; otherwise stacked like sections.
 * @param {{
 *   name: string,
 *   context: import('./types').LayerContext,
 *   props?: Record<string, unknown>,
 *   inline?: boolean,
 * }} props
 */
export function Slot({ name, context, props = {}, inline = false }) {
  const extensions = context.extensions(name);
  if (extensions.length === 0) return null;
  return html`<div class=${inline ? 'slot slot-inline' : 'slot'} data-slot=${name}>
    ${extensions.map(
      (extension) =>
        html`<div class="slot-item" key=${extension.key} data-module=${extension.module}>
          <${ExtensionBoundary} module=${extension.module} slot=${name}>
            <${extension.component} context=${extension.context} ...${props} />
          <//>
        </div>`,
    )}
  </div>`;
}

/**
 * Slot for a host that does not draw with Preact: renders the slot into `element` and returns
 * the function that removes it.
 * @param {Element} element
 * @param {import('./types').LayerContext} context
 * @param {string} name
 * @param {Record<string, unknown>} [props]
 * @returns {() => void}
 */
export function renderSlot(element, context, name, props = {}) {
  render(html`<${Slot} name=${name} context=${context} props=${props} />`, element);
  return () => render(null, element);
}
