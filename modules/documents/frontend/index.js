/**
 * The documents module's pages: plain ES modules, no build step, sharing the shell's Preact, htm
 * and components through the import map. `/documents` finds a patient; `/documents?patient=<id>`
 * lists that patient's documents, newest first, uploads one with a progress bar and downloads
 * them. Other pages link to a patient's documents with that URL. The patient page shows the same
 * list in its `patient.chart` slot, with a link here to upload.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  EmptyState,
  ErrorBanner,
  Field,
  FileField,
  formatNumber,
  html,
  Loading,
  locale,
  mount,
  PageHeader,
  Pager,
  patientName,
  PatientPicker,
  ProgressBar,
  Table,
  translator,
  usePager,
} from '@ward/ui';
import messages from './messages.js';

/** This layer's words in the language in use (the same as `context.t`, for code outside a page). */
const t = translator(messages);

const API = '/api/v1/documents';
const PATIENTS = '/patients/patients';
const READ = 'documents.document.read';
const WRITE = 'documents.document.write';
const PAGE_SIZE = 25;

/** Between links on one line: htm drops the spaces around a bare dot at a line break. */
const SEPARATOR = ' · ';

const UNITS = ['bytes', 'KB', 'MB', 'GB'];
function sizeLabel(bytes) {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0
    ? t('bytes', { count: bytes })
    : `${formatNumber(value, { minimumFractionDigits: 1, maximumFractionDigits: 1 })} ${UNITS[unit]}`;
}

/** The file's SHA-256 in hex, for the server to check; null where the browser has no Web Crypto (plain http). */
async function sha256Of(file) {
  if (globalThis.crypto?.subtle === undefined) return null;
  const digest = await globalThis.crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Choose a file, name it, send it; the bar shows how much has gone. */
function UploadForm({ context, patient, onStart, onUploaded }) {
  const [file, setFile] = useState(null);
  const [title, setTitle] = useState('');
  const [progress, setProgress] = useState(null);
  const [error, setError] = useState(null);
  const [missing, setMissing] = useState(null);
  const [busy, setBusy] = useState(false);
  const fileInput = useRef(null);

  const choose = (chosen) => {
    setFile(chosen);
    setProgress(null);
    if (chosen !== null) setTitle(chosen.name);
  };

  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    // What the last upload said no longer applies once another begins.
    onStart();
    setMissing(file === null ? t('chooseFile') : null);
    if (file === null) {
      setProgress(null);
      fileInput.current?.focus();
      return;
    }
    setBusy(true);
    setProgress(0);
    try {
      const sha256 = await sha256Of(file);
      // Percent-encoded: a header carries ASCII only, and titles are often not.
      const headers = {
        'x-document-title': encodeURIComponent(title.trim() === '' ? file.name : title.trim()),
      };
      if (sha256 !== null) headers['x-content-sha256'] = sha256;
      const document = await context.api.upload(`${API}/patients/${patient.id}/documents`, file, {
        headers,
        onProgress: setProgress,
      });
      setFile(null);
      setTitle('');
      if (fileInput.current) fileInput.current.value = '';
      onUploaded(document);
    } catch (caught) {
      setError(caught);
      setProgress(null);
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="form" aria-labelledby="upload-heading" onSubmit=${submit} novalidate>
    <h2 id="upload-heading">${t('upload.heading')}</h2>
    ${error && html`<${ErrorBanner} title=${t('upload.failed')} error=${error} />`}
    <div class="form-grid">
      <${FileField}
        label=${t('upload.file')}
        name="file"
        required
        error=${missing}
        inputRef=${fileInput}
        onChoose=${choose}
      />
      <${Field}
        label=${t('title')}
        name="title"
        value=${title}
        onInput=${setTitle}
        hint=${t('upload.titleHint')}
        autocomplete="off"
      />
    </div>
    ${
      progress !== null &&
      html`<${ProgressBar}
        id="upload-progress"
        label=${t('upload.progress')}
        value=${progress}
        text=${`${progress}%`}
      />`
    }
    <div class="form-actions">
      <${Button} type="submit" busy=${busy}>${t('upload.submit')}<//>
    </div>
  </form>`;
}

/**
 * A patient's documents, newest first, a page at a time, with a download link each. Drawn afresh
 * (a new `key`) after an upload, so it starts again at the first page.
 */
function DocumentList({ context, patient }) {
  const pager = usePager();
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);

  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (pager.cursor !== null) params.set('cursor', pager.cursor);
    setError(null);
    context.api
      .get(`${API}/patients/${patient.id}/documents?${params}`, { signal: controller.signal })
      .then(setPage, (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [patient.id, pager.cursor]);

  if (error) return html`<${ErrorBanner} title=${t('list.unreadable')} error=${error} />`;
  if (page === null) return html`<${Loading} label=${t('list.loading')} />`;
  if (page.items.length === 0 && pager.page === 1) return html`<${EmptyState} title=${t('list.empty')} />`;

  const columns = [
    { key: 'title', label: t('title') },
    { key: 'contentType', label: t('type') },
    { key: 'size', label: t('size'), render: (document) => sizeLabel(document.size) },
    {
      key: 'createdAt',
      label: t('uploaded'),
      render: (document) =>
        new Date(document.createdAt).toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' }),
    },
    {
      key: 'download',
      label: t('download'),
      // A plain link: the browser sends the session cookie and saves the attachment itself.
      render: (document) =>
        html`<a href=${`${API}/documents/${document.id}/content`} download=${document.title}
          >${t('download')}<span class="visually-hidden"> ${document.title}</span></a
        >`,
    },
  ];
  return html`<${Table}
      caption=${t('list.caption', { patient: patientName(patient) })}
      columns=${columns}
      rows=${page.items}
    />
    <${Pager} label=${t('list.pages')} pager=${pager} nextCursor=${page.nextCursor} />`;
}

/** The `/documents?patient=<id>` page: the patient's documents and the upload form. */
function PatientDocuments({ context, patientId }) {
  const [patient, setPatient] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState(null);
  const [uploads, setUploads] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    context.api.get(`${PATIENTS}/${patientId}`, { signal: controller.signal }).then(setPatient, (caught) => {
      if (caught.name !== 'AbortError') setError(caught);
    });
    return () => controller.abort();
  }, [patientId]);

  if (error)
    return html`<${PageHeader} title=${t('documents')} /><${ErrorBanner} error=${error} />
      <p><a href="/documents">${t('anotherPatient')}</a></p>`;
  if (patient === null) return html`<${Loading} label=${t('loadingPatient')} />`;

  const uploaded = (document) => {
    setNotice(t('upload.done', { title: document.title, size: sizeLabel(document.size) }));
    setUploads(uploads + 1);
  };

  return html`<${PageHeader}
      title=${t('documentsOf', { patient: patientName(patient) })}
      description=${t('mrn', { mrn: patient.mrn })}
    />
    ${notice && html`<${Banner} kind="success"><p>${notice}</p><//>`}
    <${DocumentList} key=${uploads} context=${context} patient=${patient} />
    ${
      context.can(WRITE) &&
      html`<${UploadForm}
        context=${context}
        patient=${patient}
        onStart=${() => setNotice(null)}
        onUploaded=${uploaded}
      />`
    }
    <p>
      <a href=${`/patients/${patient.id}`}>${t('patientRecord')}</a>${SEPARATOR}<a href="/documents"
        >${t('anotherPatient')}</a
      >
    </p>`;
}

/** The patient page's `patient.chart` part: this patient's documents, and where to upload one. */
function ChartDocuments({ context, patient }) {
  return html`<section aria-labelledby="chart-documents-title">
    <h2 id="chart-documents-title">${t('documents')}</h2>
    <${DocumentList} context=${context} patient=${patient} />
    <p>
      <a href=${`/documents?patient=${patient.id}`}
        >${context.can(WRITE) ? t('chart.upload') : t('chart.open')}</a
      >
    </p>
  </section>`;
}

function Documents({ context }) {
  const id = Number(context.query.patient);
  if (Number.isInteger(id) && id > 0) return html`<${PatientDocuments} context=${context} patientId=${id} />`;
  return html`<${PageHeader} title=${t('documents')} description=${t('find.description')} />
    <${PatientPicker} context=${context} linkTo=${(found) => `/documents?patient=${found.id}`} />`;
}

export default /** @satisfies {import('@ward/ui').Layer} */ ({
  sdk: '^1.4.0',
  messages,
  routes: [{ path: '/documents', render: mount(Documents) }],
  extensions: [{ slot: 'patient.chart', component: ChartDocuments, permission: READ, order: 20 }],
});
