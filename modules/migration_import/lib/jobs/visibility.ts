/**
 * What a caller may see of the Ward records an import touches. Holding `migration_import.job.read`
 * shows a job, its source's values and what execute would do or did; the current values of Ward's
 * own records (a preview's "before", a merged "after", whose record an MRN belongs to) are shown
 * only to a caller who may read that kind of record through its own module. Without that
 * permission a step still says what happens (create, update which fields, skip) and a warning
 * still says why a row failed, without showing whose record it is.
 */
import type { PlanStep, RecordKind } from '../index.ts';
import type { WarningView } from './warning-store.ts';

/** The permission that shows a kind's Ward records, as its own module's API requires. */
export const READ_PERMISSION: Readonly<Record<RecordKind, string>> = {
  patient: 'patients.patient.read',
  appointment: 'appointments.appointment.read',
  document: 'documents.document.read',
};

export type Can = (permission: string) => boolean;

/** A step whose Ward side is hidden: `hidden` names the permission that would show it. */
export type VisibleStep = PlanStep | (Omit<PlanStep, 'before' | 'after' | 'changes'> & HiddenSide);

interface HiddenSide {
  before: null;
  after: null;
  changes: Array<{ field: string }>;
  hidden: string;
}

/** `step` as the caller may see it. A create shows only the source's values, so it is always shown. */
export function visibleStep(step: PlanStep, can: Can): VisibleStep {
  const permission = READ_PERMISSION[step.kind];
  if (step.action === 'create' || can(permission)) return step;
  return {
    kind: step.kind,
    row: step.row,
    sourceId: step.sourceId,
    action: step.action,
    wardId: null,
    before: null,
    after: null,
    changes: step.changes.map(({ field }) => ({ field })),
    hidden: permission,
  } as VisibleStep;
}

/** "… already belongs to Ward patient 12, …": the one stored message that names a Ward record. */
const OWNER = /\bbelongs to Ward patient \d+,/;

export function visibleWarning<W extends Pick<WarningView, 'code' | 'message'>>(warning: W, can: Can): W {
  if (warning.code !== 'mrn_taken' || can(READ_PERMISSION.patient)) return warning;
  return {
    ...warning,
    message: warning.message.replace(
      OWNER,
      `belongs to another Ward patient (which one is shown to those holding ${READ_PERMISSION.patient}),`,
    ),
  };
}
