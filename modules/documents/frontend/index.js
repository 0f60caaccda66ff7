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
  usePager,
} from '@ward/ui';

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
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${UNITS[unit]}`;
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
    setMissing(file === null ? 'Choose the file to upload.' : null);
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
    <h2 id="upload-heading">Upload a document</h2>
    ${error && html`<${ErrorBanner} title="The document was not uploaded" error=${error} />`}
    <div class="form-grid">
      <${FileField}
        label="File"
        name="file"
        required
        error=${missing}
        inputRef=${fileInput}
        onChoose=${choose}
      />
      <${Field}
        label="Title"
        name="title"
        value=${title}
        onInput=${setTitle}
        hint="The file's name unless you give another; it names the download."
        autocomplete="off"
      />
    </div>
    ${
      progress !== null &&
      html`<${ProgressBar}
        id="upload-progress"
        label="Upload progress"
        value=${progress}
        text=${`${progress}%`}
      />`
    }
    <div class="form-actions">
      <${Button} type="submit" busy=${busy}>Upload<//>
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

  if (error) return html`<${ErrorBanner} title="The documents could not be read" error=${error} />`;
  if (page === null) return html`<${Loading} label="Loading documents…" />`;
  if (page.items.length === 0 && pager.page === 1) return html`<${EmptyState} title="No documents yet" />`;

  const columns = [
    { key: 'title', label: 'Title' },
    { key: 'contentType', label: 'Type' },
    { key: 'size', label: 'Size', render: (document) => sizeLabel(document.size) },
    {
      key: 'createdAt',
      label: 'Uploaded',
      render: (document) =>
        new Date(document.createdAt).toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' }),
    },
    {
      key: 'download',
      label: 'Download',
      // A plain link: the browser sends the session cookie and saves the attachment itself.
      render: (document) =>
        html`<a href=${`${API}/documents/${document.id}/content`} download=${document.title}
          >Download<span class="visually-hidden"> ${document.title}</span></a
        >`,
    },
  ];
  return html`<${Table}
      caption=${`Documents of ${patientName(patient)}, newest first`}
      columns=${columns}
      rows=${page.items}
    />
    <${Pager} label="Document list pages" pager=${pager} nextCursor=${page.nextCursor} />`;
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
    return html`<${PageHeader} title="Documents" /><${ErrorBanner} error=${error} />
      <p><a href="/documents">Choose another patient</a></p>`;
  if (patient === null) return html`<${Loading} label="Loading the patient…" />`;

  const uploaded = (document) => {
    setNotice(`“${document.title}” was uploaded (${sizeLabel(document.size)}).`);
    setUploads(uploads + 1);
  };

  return html`<${PageHeader}
      title=${`Documents of ${patientName(patient)}`}
      description=${`MRN ${patient.mrn}`}
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
      <a href=${`/patients/${patient.id}`}>The patient's record</a>${SEPARATOR}<a href="/documents"
        >Choose another patient</a
      >
    </p>`;
}

/** The patient page's `patient.chart` part: this patient's documents, and where to upload one. */
function ChartDocuments({ context, patient }) {
  return html`<section aria-labelledby="chart-documents-title">
    <h2 id="chart-documents-title">Documents</h2>
    <${DocumentList} context=${context} patient=${patient} />
    <p>
      <a href=${`/documents?patient=${patient.id}`}
        >${context.can(WRITE) ? 'Upload a document' : 'Open the documents page'}</a
      >
    </p>
  </section>`;
}

function Documents({ context }) {
  const id = Number(context.query.patient);
  if (Number.isInteger(id) && id > 0) return html`<${PatientDocuments} context=${context} patientId=${id} />`;
  return html`<${PageHeader} title="Documents" description="Find the patient whose documents you want." />
    <${PatientPicker} context=${context} linkTo=${(found) => `/documents?patient=${found.id}`} />`;
}

export default /** @satisfies {import('@ward/ui').Layer} */ ({
  sdk: '^1.3.0',
  routes: [{ path: '/documents', render: mount(Documents) }],
  extensions: [{ slot: 'patient.chart', component: ChartDocuments, permission: READ, order: 20 }],
});
