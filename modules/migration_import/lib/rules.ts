/**
 * The clinic modules' rules an import is validated against: the longest text their fields hold,
 * the documents' title and content-type rules and their size limit. They come from those modules'
 * public APIs (`importRules`), so what validation lets through is what the modules accept, and a
 * change of their rules reaches the import without a copy here to keep in step.
 */
import type { AppointmentsApi } from '../../appointments/api.ts';
import type { DocumentsApi } from '../../documents/api.ts';
import type { PatientsApi } from '../../patients/api.ts';

export interface ImportRules {
  patientLimits: PatientsApi['limits'];
  appointmentLimits: AppointmentsApi['limits'];
  checkDocumentTitle: DocumentsApi['checkTitle'];
  checkDocumentContentType: DocumentsApi['checkContentType'];
  /** The largest document, in bytes: inline content is held to it too. */
  maxDocumentBytes: number;
}

/** The rules of the modules behind these APIs; `maxDocumentBytes` when the operator set another limit. */
export function importRules(
  apis: { patients: PatientsApi; appointments: AppointmentsApi; documents: DocumentsApi },
  maxDocumentBytes = apis.documents.defaultMaxBytes,
): ImportRules {
  return {
    patientLimits: apis.patients.limits,
    appointmentLimits: apis.appointments.limits,
    checkDocumentTitle: apis.documents.checkTitle,
    checkDocumentContentType: apis.documents.checkContentType,
    maxDocumentBytes,
  };
}
