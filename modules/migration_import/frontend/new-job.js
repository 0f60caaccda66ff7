/**
 * `/migration_import/new`: the first step of the wizard. The operator picks the source file, says
 * what it is and which system it comes from; the upload creates the job and opens its page.
 */
import { useState } from 'preact/hooks';
import { Banner, Button, ErrorBanner, Field, FileField, html, PageHeader } from '@ward/ui';
import { FORMATS, HOME, JOBS, t, WRITE } from './shared.js';

/** The format a file's name suggests (Synthea names its files; FHIR exports end .json/.ndjson). */
export function guessFormat(name) {
  const lower = name.toLowerCase();
  if (lower.endsWith('.ndjson')) return 'fhir-ndjson';
  if (lower.endsWith('.json')) return 'fhir-json';
  if (lower.includes('encounter')) return 'synthea-encounters-csv';
  if (lower.endsWith('.csv')) return 'synthea-patients-csv';
  return null;
}

const QUERY_FIELD = /^the query parameter (source_system|format)/;

export function NewJob({ context }) {
  const [file, setFile] = useState(null);
  const [format, setFormat] = useState(FORMATS[0].value);
  const [sourceSystem, setSourceSystem] = useState('');
  const [errors, setErrors] = useState(/** @type {Record<string, string>} */ ({}));
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  if (!context.can(WRITE))
    return html`<${PageHeader} title=${t('new.title')} />
      <${Banner} kind="warning" title=${t('new.denied')}>
        <p>${t('new.deniedHint', { permission: WRITE })}</p>
      <//>
      <p><a href=${HOME}>${t('new.back')}</a></p>`;

  const choose = (chosen) => {
    setFile(chosen);
    const guessed = chosen === null ? null : guessFormat(chosen.name);
    if (guessed !== null) setFormat(guessed);
  };

  const submit = async (event) => {
    event.preventDefault();
    const missing = /** @type {Record<string, string>} */ ({});
    if (file === null) missing.source = t('new.chooseFile');
    if (sourceSystem.trim() === '') missing.source_system = t('new.nameSystem');
    setErrors(missing);
    setError(null);
    if (Object.keys(missing).length > 0) {
      document.getElementById(`field-${Object.keys(missing)[0]}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      // The job's source is the raw request body; what it is goes in the query.
      const query = new URLSearchParams({ format, source_system: sourceSystem.trim() });
      const job = await context.api.upload(`${JOBS}?${query}`, file);
      context.navigate(`${HOME}/jobs/${job.id}?created=1`);
    } catch (caught) {
      // The form's fields are the query parameters: a refused one is shown at its field alone.
      const field = caught.code === 'invalid_query' ? QUERY_FIELD.exec(caught.message)?.[1] : undefined;
      setErrors(field === undefined ? {} : { [field]: caught.message.replace(QUERY_FIELD, '$1') });
      setError(field === undefined ? caught : null);
      setBusy(false);
      if (field !== undefined) document.getElementById(`field-${field}`)?.focus();
    }
  };

  return html`<${PageHeader} title=${t('new.title')} description=${t('new.description')} />
    <form class="form" onSubmit=${submit} novalidate>
      ${error && html`<${ErrorBanner} title=${t('new.failed')} error=${error} />`}
      <div style="display: grid; gap: 1rem; max-width: 36rem">
        <${FileField}
          label=${t('new.file')}
          name="source"
          required
          accept=".csv,.json,.ndjson,.txt"
          error=${errors.source}
          onChoose=${choose}
          hint=${t('new.fileHint')}
        />
        <${Field}
          label=${t('new.format')}
          name="format"
          value=${format}
          onInput=${setFormat}
          options=${FORMATS}
          error=${errors.format}
          hint=${t('new.formatHint')}
        />
        <${Field}
          label=${t('new.system')}
          name="source_system"
          value=${sourceSystem}
          onInput=${setSourceSystem}
          required
          autocomplete="off"
          error=${errors.source_system}
          hint=${t('new.systemHint')}
        />
      </div>
      <div class="form-actions">
        <${Button} type="submit" busy=${busy}>${busy ? t('new.uploading') : t('new.upload')}<//>
        <a href=${HOME}>${t('new.cancel')}</a>
      </div>
    </form>`;
}
