/**
 * ESLint's `ward/module-boundary`: a module's file imports nothing of another module but the types
 * of the public API its manifest names, and only of a module in its depends; official and
 * community modules alike.
 */
import path from 'node:path';
import test from 'ava';
import { ESLint } from 'eslint';
import { ROOT } from '../../src/config.ts';

const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages
    .filter((message) => message.ruleId === 'ward/module-boundary')
    .map((m) => m.message);
}

test('a run-time import of another module is refused, naming sdk.modules.get', async (t) => {
  t.deepEqual(
    await problems(
      'modules/migration_import/lib/x.ts',
      "import { documentMaxBytes } from '../../documents/lib/config.ts';\nexport const y = documentMaxBytes;\n",
    ),
    [
      'migration_import imports run-time code of module documents; reach it through sdk.modules.get("documents") and import only its types (`import type`)',
    ],
  );
});

test('types of another module are allowed from its public API only', async (t) => {
  t.deepEqual(
    await problems(
      'modules/migration_import/lib/x.ts',
      "import type { PatientsApi } from '../../patients/api.ts';\nexport type Y = PatientsApi;\n",
    ),
    [],
  );
  t.deepEqual(
    await problems(
      'modules/migration_import/lib/x.ts',
      "import type { Address } from '../../patients/lib/patient.ts';\nexport type Y = Address;\n",
    ),
    [
      'migration_import imports lib/patient.ts of module patients; import only types of the public API its manifest names (api.ts)',
    ],
  );
});

test('a module outside the depends is refused even as types; a module’s own files are free', async (t) => {
  t.deepEqual(
    await problems(
      'modules/appointments/lib/x.ts',
      "import type { DocumentsApi } from '../../documents/api.ts';\nexport type Y = DocumentsApi;\n",
    ),
    ['appointments imports types of module documents, which is not in its depends; add it there'],
  );
  t.deepEqual(
    await problems(
      'test/fixtures/modules/acting/clerk/x.ts',
      "import type { LedgerApi } from '../ledger/api.ts';\nimport { a } from './own.ts';\nexport type Y = LedgerApi;\nexport const b = a;\n",
    ),
    [],
  );
});
