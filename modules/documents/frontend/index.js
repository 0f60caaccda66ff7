/**
 * The documents module's pages: plain ES modules, no build step, sharing the shell's Preact, htm
 * and components through the import map. `/documents` finds a patient; `/documents?patient=<id>`
 * lists that patient's documents, newest first, uploads one with a progress bar and downloads
 * them. Other pages link to a patient's documents with that URL.
 */
import { render } from 'preact';
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
  PageHeader,
  Pager,
  ProgressBar,
  Table,
  usePager,
} from '@ward/ui';

const API = '/api/v1/documents';
const PATIENTS = '/patients/patients';
const WRITE = 'documents.document.write';
const PAGE_SIZE = 25;

/** Between links on one line: htm drops the spaces around a bare dot at a line break. */
const SEPARATOR = ' · ';

const fullName = (patient) => `${patient.familyName}, ${patient.givenName}`;

/** Mounts a component as a route's page; the shell calls the returned function when it leaves. */
const mount = (Page) => (element, context) => {
  render(html`<${Page} context=${context} />`, element);
  return () => render(null, element);
};

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

/** Finds a patient by name or MRN; each one found links to their documents. */
function PatientSearch({ context }) {
  const [typed, setTyped] = useState('');
  const [results, setResults] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const search = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const params = new URLSearchParams({ limit: '10' });
      if (typed.trim() !== '') params.set('q', typed.trim());
      setResults((await context.api.get(`${PATIENTS}?${params}`)).items);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="search" role="search" onSubmit=${search}>
      <${Field}
        label="Patient: search by name or MRN"
        name="q"
        type="search"
        value=${typed}
        onInput=${setTyped}
        autocomplete="off"
      />
      <${Button} type="submit" busy=${busy}>Find patient<//>
    </form>
    ${error && html`<${ErrorBanner} title="The patients could not be searched" error=${error} />`}
    <p role="status" class="visually-hidden">
      ${results === null ? '' : `${results.length} ${results.length === 1 ? 'patient' : 'patients'} found`}
    </p>
    ${results !== null && results.length === 0 && html`<p>No patient matches “${typed}”.</p>`}
    ${
      results !== null &&
      results.length > 0 &&
      html`<ul class="patient-results" aria-label="Patients found">
        ${results.map(
          (found) =>
            html`<li key=${found.id}>
              <a href=${`/documents?patient=${found.id}`}>${fullName(found)} (MRN ${found.mrn})</a>
            </li>`,
        )}
      </ul>`
    }`;
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

function PatientDocuments({ context, patientId }) {
  const [patient, setPatient] = useState(null);
  const pager = usePager();
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    context.api.get(`${PATIENTS}/${patientId}`, { signal: controller.signal }).then(setPatient, (caught) => {
      if (caught.name !== 'AbortError') setError(caught);
    });
    return () => controller.abort();
  }, [patientId]);

  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (pager.cursor !== null) params.set('cursor', pager.cursor);
    context.api
      .get(`${API}/patients/${patientId}/documents?${params}`, { signal: controller.signal })
      .then(setPage, (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [patientId, pager.cursor, reload]);

  if (error)
    return html`<${PageHeader} title="Documents" /><${ErrorBanner} error=${error} />
      <p><a href="/documents">Choose another patient</a></p>`;
  if (patient === null) return html`<${Loading} label="Loading the patient…" />`;

  const uploaded = (document) => {
    setNotice(`“${document.title}” was uploaded (${sizeLabel(document.size)}).`);
    pager.reset();
    setReload(reload + 1);
  };

  const columns = [
    { key: 'title', label: 'Title' },
    { key: 'contentType', label: 'Type' },
    { key: 'size', label: 'Size', render: (document) => sizeLabel(document.size) },
    {
      key: 'createdAt',
      label: 'Uploaded',
      render: (document) =>
        new Date(document.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
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

  return html`<${PageHeader}
      title=${`Documents of ${fullName(patient)}`}
      description=${`MRN ${patient.mrn}`}
    />
    ${notice && html`<${Banner} kind="success"><p>${notice}</p><//>`}
    ${page === null && html`<${Loading} label="Loading documents…" />`}
    ${
      page !== null &&
      (page.items.length === 0 && pager.page === 1
        ? html`<${EmptyState} title="No documents yet" />`
        : html`<${Table}
              caption=${`Documents of ${fullName(patient)}, newest first`}
              columns=${columns}
              rows=${page.items}
            />
            <${Pager} label="Document list pages" pager=${pager} nextCursor=${page.nextCursor} />`)
    }
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

function Documents({ context }) {
  const id = Number(context.query.patient);
  if (Number.isInteger(id) && id > 0) return html`<${PatientDocuments} context=${context} patientId=${id} />`;
  return html`<${PageHeader} title="Documents" description="Find the patient whose documents you want." />
    <${PatientSearch} context=${context} />`;
}

export default {
  sdk: '^1.2.0',
  routes: [{ path: '/documents', render: mount(Documents) }],
};
