/**
 * The shell's root: who is signed in (GET /api/v1/me) decides between the sign-in page, which
 * loads with the first page, and the signed-in shell (shell.js), a chunk loaded after it.
 */
import { useEffect } from 'preact/hooks';
import { html } from './ui/html.js';
import { Loading } from './ui/forms.js';
import { SignIn, Unreachable } from './sign-in.js';
import { loadMe, me, phase, shell } from './state.js';

export function App() {
  useEffect(() => void loadMe(), []);
  return html`<${Root} />`;
}

function Root() {
  if (phase.value === 'loading') return html`<main id="main" class="centered"><${Loading} /></main>`;
  if (phase.value === 'unreachable') return html`<${Unreachable} />`;
  if (phase.value === 'signed-out' || me.value === null) return html`<${SignIn} />`;
  if (shell.value === null) return html`<main id="main" class="centered"><${Loading} /></main>`;
  const { SignedIn } = shell.value;
  return html`<${SignedIn} />`;
}
