/**
 * Prints the nginx `add_header` lines for the shell's page (index.html): the same
 * Content-Security-Policy the backend sends with it, computed from the built page, so the hash of
 * its inline import map matches what nginx serves. Run at image build time:
 *   node deploy/frontend/page-headers.ts frontend/dist/index.html > page-headers.conf
 */
import { readFileSync } from 'node:fs';
import { contentSecurityPolicy } from '../../src/api/frontend.ts';

const [file] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node deploy/frontend/page-headers.ts <index.html>');
  process.exit(2);
}
const csp = contentSecurityPolicy(readFileSync(file, 'utf8'));
if (csp.includes('"')) throw new Error('the policy holds a double quote, which an nginx string cannot');
process.stdout.write(
  [
    '# Written at build time from the built index.html (deploy/frontend/page-headers.ts).',
    'include /etc/nginx/ward/common-headers.conf;',
    `add_header Content-Security-Policy "${csp}" always;`,
    'add_header X-Frame-Options "DENY" always;',
    '',
  ].join('\n'),
);
