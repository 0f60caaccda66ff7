/**
 * Patients as every layer shows them: a patient's name and label, and the picker that finds one by
 * name or MRN through the patients module's API (`GET /api/v1/patients/patients?q=`), so it needs
 * that module and `patients.patient.read`.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { t } from './strings.js';
import { Button, ErrorBanner, Field } from './forms.js';

const PATIENTS = '/patients/patients';

/**
 * "Family, Given": how Ward writes a patient's name.
 * @param {{familyName: string, givenName: string}} patient
 */
export const patientName = (patient) => `${patient.familyName}, ${patient.givenName}`;

/**
 * "Family, Given (MRN 0042)": a patient told apart from others of the same name.
 * @param {{familyName: string, givenName: string, mrn: string}} patient
 */
export const patientLabel = (patient) => `${patientName(patient)} (MRN ${patient.mrn})`;

/**
 * Finds a patient by name or MRN and chooses one. Enter in the search box searches (the picker
 * often sits in another form, so it is not a form of its own). With `onChoose(patient | null)`,
 * each patient found is a "Choose …" button, the chosen one is shown with "Change patient", and
 * choosing moves the focus to the element whose id is `nextFocus`. With `linkTo(patient)` instead,
 * each patient found is a link to that URL. The search box is `field-<name>` (`patientId`).
 * @param {{
 *   context: import('./types').LayerContext,
 *   label?: string,
 *   name?: string,
 *   patient?: import('./types').Patient | null,
 *   onChoose?: (patient: import('./types').Patient | null) => void,
 *   linkTo?: (patient: import('./types').Patient) => string,
 *   error?: string,
 *   nextFocus?: string,
 *   required?: boolean,
 * }} props
 */
export function PatientPicker({
  context,
  label = t('ui.patient'),
  name = 'patientId',
  patient = null,
  onChoose,
  linkTo,
  error,
  nextFocus,
  required = false,
}) {
  const [typed, setTyped] = useState('');
  const [results, setResults] = useState(/** @type {import('./types').Patient[] | null} */ (null));
  const [failure, setFailure] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  /** The id of the element to focus once the choice is drawn: the page goes on from there. */
  const focusNext = useRef(/** @type {string | null} */ (null));
  const fieldId = `field-${name}`;
  const changeId = `${name}-change`;

  useEffect(() => {
    if (focusNext.current === null) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = null;
  }, [patient]);

  const search = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const params = new URLSearchParams({ limit: '10' });
      if (typed.trim() !== '') params.set('q', typed.trim());
      setResults((await context.api.get(`${PATIENTS}?${params}`)).items);
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  /** @param {import('./types').Patient | null} chosen */
  const choose = (chosen) => {
    focusNext.current = chosen === null ? fieldId : (nextFocus ?? changeId);
    onChoose?.(chosen);
    setResults(null);
    setTyped('');
  };

  if (patient !== null)
    return html`<div class="search">
      <p id=${fieldId} tabindex="-1">
        ${label}: <strong>${patientName(patient)}</strong> (MRN ${patient.mrn})
      </p>
      <${Button} variant="secondary" id=${changeId} onClick=${() => choose(null)}>${t('ui.changePatient')}<//>
    </div>`;

  return html`<div class="patient-picker">
    <div class="search">
      <${Field}
        label=${t('ui.patientSearch', { label })}
        name=${name}
        type="search"
        value=${typed}
        onInput=${setTyped}
        error=${error}
        required=${required}
        autocomplete="off"
        onKeyDown=${(/** @type {KeyboardEvent} */ event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            search();
          }
        }}
      />
      <${Button} variant="secondary" busy=${busy} onClick=${search}>${t('ui.findPatient')}<//>
    </div>
    ${failure && html`<${ErrorBanner} title=${t('ui.patientSearchFailed')} error=${failure} />`}
    <p role="status" class="visually-hidden">
      ${results === null ? '' : `${results.length} ${results.length === 1 ? 'patient' : 'patients'} found`}
    </p>
    ${results !== null && results.length === 0 && html`<p>${t('ui.noPatientMatches', { typed })}</p>`}
    ${
      results !== null &&
      results.length > 0 &&
      html`<ul class="patient-results" aria-label=${t('ui.patientsFound')}>
        ${results.map(
          (found) =>
            html`<li key=${found.id}>
              ${
                linkTo
                  ? html`<a href=${linkTo(found)}>${patientLabel(found)}</a>`
                  : html`<${Button} variant="secondary" onClick=${() => choose(found)}>
                      ${t('ui.choosePatient', { patient: patientLabel(found) })}
                    <//>`
              }
            </li>`,
        )}
      </ul>`
    }
  </div>`;
}
