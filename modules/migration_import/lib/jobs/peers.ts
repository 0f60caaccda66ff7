/**
 * The clinic modules an import writes into, reached only through their public APIs
 * (`sdk.modules.get`): migration_import neither reads nor writes their tables itself, so each of
 * those tables keeps one write path, its own module's, with that module's rules.
 */
import type { WardSdk } from '../../../../src/sdk/index.ts';
import type { AppointmentsApi } from '../../../appointments/api.ts';
import type { DocumentsApi } from '../../../documents/api.ts';
import type { PatientsApi } from '../../../patients/api.ts';

export interface Peers {
  patients: PatientsApi;
  appointments: AppointmentsApi;
  documents: DocumentsApi;
}

export function peers(sdk: WardSdk): Peers {
  return {
    patients: sdk.modules.get<PatientsApi>('patients'),
    appointments: sdk.modules.get<AppointmentsApi>('appointments'),
    documents: sdk.modules.get<DocumentsApi>('documents'),
  };
}
