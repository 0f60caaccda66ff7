/**
 * The documents module's pages: plain ES modules, no build step, sharing the shell's Preact, htm
 * and components through the import map. `/documents` finds a patient; `/documents?patient=<id>`
 * lists that patient's documents, newest first, uploads one with a progress bar and downloads
 * them. Other pages link to a patient's documents with that URL.
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiRequestError,
  Banner,
  Button,
  EmptyState,
  ErrorBanner,
  Field,
  html,
  Loading,
  PageHeader,
  Table,
} from '@ward/ui';

const API = '/api/v1/documents';
const PATIENTS = '/patients/patients';
const WRITE = 'documents.document.write';
const PAGE_SIZE = 25;

/** Read by screen readers, not drawn: the shell has no class for it, and a layer ships no CSS. */
const VISUALLY_HIDDEN = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
};

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

/**
 * Sends `file` as the raw body with XMLHttpRequest, whose upload events fetch does not give;
 * `onProgress(percent)` follows them. Resolves to the stored document, rejects with an
 * ApiRequestError carrying Ward's message and hint.
 */
function upload({ url, file, title, csrfToken, sha256, onProgress }) {
  return new Promise((resolve, reject) => {
    const request = new globalThis.XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('Accept', 'application/json');
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    // Percent-encoded: a header carries ASCII only, and titles are often not.
    request.setRequestHeader('X-Document-Title', encodeURIComponent(title));
    if (csrfToken) request.setRequestHeader('X-CSRF-Token', csrfToken);
    if (sha256 !== null) request.setRequestHeader('X-Content-SHA256', sha256);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
    });
    request.upload.addEventListener('load', () => onProgress(100));
    request.addEventListener('load', () => {
      let answer = null;
      try {
        answer = JSON.parse(request.responseText);
      } catch {
        // Not JSON (a proxy's page): described below.
      }
      if (request.status === 201 && answer !== null) resolve(answer);
      else if (answer?.error?.message) reject(new ApiRequestError(request.status, answer.error));
      else
        reject(
          new ApiRequestError(request.status, {
            code: 'unexpected_response',
            message: `the server answered ${request.status} without Ward's error details`,
            hint: 'check that the Ward backend is running and reachable',
          }),
        );
    });
    request.addEventListener('error', () =>
      reject(
        new ApiRequestError(0, {
          code: 'network_error',
          message: 'the upload did not reach the Ward backend',
          hint: 'check your connection, and that the backend is running, then upload again',
        }),
      ),
    );
    request.send(file);
  });
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
    <p role="status" style=${VISUALLY_HIDDEN}>
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
function UploadForm({ context, patient, onUploaded }) {
  const [file, setFile] = useState(null);
  const [title, setTitle] = useState('');
  const [progress, setProgress] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const fileInput = useRef(null);

  const choose = (event) => {
    const chosen = event.currentTarget.files?.[0] ?? null;
    setFile(chosen);
    setProgress(null);
    if (chosen !== null) setTitle(chosen.name);
  };

  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    if (file === null) {
      setError(new Error('choose a file to upload'));
      fileInput.current?.focus();
      return;
    }
    setBusy(true);
    setProgress(0);
    try {
      const [me, sha256] = await Promise.all([context.api.get('/me'), sha256Of(file)]);
      const document = await upload({
        url: `${API}/patients/${patient.id}/documents`,
        file,
        title: title.trim() === '' ? file.name : title.trim(),
        csrfToken: me.csrfToken,
        sha256,
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
      <div class="field">
        <label for="field-file">File</label>
        <input
          id="field-file"
          name="file"
          type="file"
          ref=${fileInput}
          onChange=${choose}
          style=${{ width: '100%', minWidth: 0, boxSizing: 'border-box' }}
        />
      </div>
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
      html`<div class="field">
        <label for="upload-progress">Upload progress</label>
        <progress id="upload-progress" max="100" value=${progress}>${progress}%</progress>
        <span aria-live="polite">${progress}%</span>
      </div>`
    }
    <div class="form-actions">
      <${Button} type="submit" busy=${busy}>Upload<//>
    </div>
  </form>`;
}

function PatientDocuments({ context, patientId }) {
  const [patient, setPatient] = useState(null);
  const [cursors, setCursors] = useState([]);
  const [cursor, setCursor] = useState(null);
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
    if (cursor !== null) params.set('cursor', cursor);
    context.api
      .get(`${API}/patients/${patientId}/documents?${params}`, { signal: controller.signal })
      .then(setPage, (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [patientId, cursor, reload]);

  if (error)
    return html`<${PageHeader} title="Documents" /><${ErrorBanner} error=${error} />
      <p><a href="/documents">Choose another patient</a></p>`;
  if (patient === null) return html`<${Loading} label="Loading the patient…" />`;

  const uploaded = (document) => {
    setNotice(`“${document.title}” was uploaded (${sizeLabel(document.size)}).`);
    setCursors([]);
    setCursor(null);
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
          >Download<span style=${VISUALLY_HIDDEN}> ${document.title}</span></a
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
      (page.items.length === 0 && cursors.length === 0
        ? html`<${EmptyState} title="No documents yet" />`
        : html`<${Table}
            caption=${`Documents of ${fullName(patient)}, newest first`}
            columns=${columns}
            rows=${page.items}
            pagination=${{
              label: 'Document list pages',
              status: `Page ${cursors.length + 1}`,
              hasPrevious: cursors.length > 0,
              hasNext: page.nextCursor !== null,
              onPrevious: () => {
                setCursor(cursors.at(-1) ?? null);
                setCursors(cursors.slice(0, -1));
              },
              onNext: () => {
                setCursors([...cursors, cursor]);
                setCursor(page.nextCursor);
              },
            }}
          />`)
    }
    ${context.can(WRITE) && html`<${UploadForm} context=${context} patient=${patient} onUploaded=${uploaded} />`}
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
  sdk: '^1.0.0',
  routes: [{ path: '/documents', render: mount(Documents) }],
};
