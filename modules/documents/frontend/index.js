/**
 * The documents module's pages: plain ES modules, no build step, sharing the shell's Preact, htm
 * and components through the import map. `/documents` finds a patient; `/documents?patient=<id>`
 * lists that patient's documents, newest first, filtered by category, by text in the title or file
 * name and (for admins) with the deleted ones, the filter kept in the address
 * (`&category=letter&q=scan&deleted=1`); it uploads one with its
 * file name and category and a progress bar, previews PDFs, images and plain text in the page,
 * downloads them under their file name, deletes them, and (for admins) restores deleted ones. Other pages link to a patient's documents with that URL. The patient page shows the same
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
const RESTORE = 'documents.document.restore';
const PAGE_SIZE = 25;

/** The categories, their labels read when drawn so that they follow the language. */
const CATEGORIES = ['letter', 'lab_result', 'imaging', 'referral', 'consent', 'note', 'other'].map(
  (value) => ({
    value,
    get label() {
      return t(`category.${value}`);
    },
  }),
);
const categoryLabel = (value) => CATEGORIES.find((category) => category.value === value)?.label ?? value;

/** How a document is shown in the page, as the server allows it inline (never HTML or SVG). */
function previewKind(contentType) {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'application/pdf') return 'frame';
  if (['text/plain', 'text/csv'].includes(type)) return 'frame';
  if (['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(type)) return 'image';
  return null;
}

const contentUrl = (document) => `${API}/documents/${document.id}/content`;

/** The date the document bears when known (an import's from its source), else the day it was uploaded. */
function dateLabel(document) {
  if (document.documentDate !== null) {
    const [year, month, day] = document.documentDate.split('-').map(Number);
    return new Date(year, month - 1, day).toLocaleDateString(locale(), { dateStyle: 'medium' });
  }
  return new Date(document.createdAt).toLocaleDateString(locale(), { dateStyle: 'medium' });
}

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
  const [category, setCategory] = useState('other');
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
        'x-file-name': encodeURIComponent(file.name),
        'x-document-category': category,
      };
      if (sha256 !== null) headers['x-content-sha256'] = sha256;
      const document = await context.api.upload(`${API}/patients/${patient.id}/documents`, file, {
        headers,
        onProgress: setProgress,
      });
      setFile(null);
      setTitle('');
      setCategory('other');
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
      <${Field}
        label=${t('category')}
        name="category"
        value=${category}
        onInput=${setCategory}
        options=${CATEGORIES}
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

/** A document shown in the page: images as <img>, PDFs and plain text in a frame Ward's CSP allows. */
function Preview({ document, onClose }) {
  const kind = previewKind(document.contentType);
  const url = `${contentUrl(document)}?inline=1`;
  return html`<section class="document-preview" aria-labelledby="preview-heading">
    <h2 id="preview-heading">${t('preview.title', { title: document.title })}</h2>
    ${
      kind === 'image'
        ? html`<img
            src=${url}
            alt=${`${document.title} (${document.fileName})`}
            style=${{ maxWidth: '100%' }}
          />`
        : html`<iframe
            src=${url}
            title=${`${document.title} (${document.fileName})`}
            style=${{ width: '100%', height: '70vh', border: '1px solid currentColor' }}
          ></iframe>`
    }
    <div class="form-actions">
      <${Button} variant="secondary" onClick=${onClose}>${t('preview.close')}<//>
    </div>
  </section>`;
}

/**
 * A patient's documents, newest first, a page at a time, with preview, download and delete; with
 * `deleted`, the deleted ones with restore. Drawn afresh (a new `key`) after an upload, a delete
 * or a restore, so it starts again at the first page.
 */
function DocumentList({ context, patient, category = '', search = '', deleted = false, onChanged }) {
  const pager = usePager();
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const [previewing, setPreviewing] = useState(null);
  const [confirming, setConfirming] = useState(null);
  const [busy, setBusy] = useState(false);
  const canWrite = context.can(WRITE);

  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (pager.cursor !== null) params.set('cursor', pager.cursor);
    if (category !== '') params.set('category', category);
    if (search.trim() !== '') params.set('q', search.trim());
    if (deleted) params.set('deleted', '1');
    setError(null);
    context.api
      .get(`${API}/patients/${patient.id}/documents?${params}`, { signal: controller.signal })
      .then(setPage, (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [patient.id, pager.cursor, category, search, deleted]);

  const act = async (work, done) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      done();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const remove = (document) =>
    act(
      () => context.api.delete(`${API}/documents/${document.id}`),
      () => onChanged(t('list.deleted', { title: document.title })),
    );
  const restore = (document) =>
    act(
      () => context.api.post(`${API}/documents/${document.id}/restore`),
      () => onChanged(t('list.restored', { title: document.title })),
    );

  const which = deleted ? 'deleted' : 'filed';
  if (page === null && error)
    return html`<${ErrorBanner} title=${t('list.unreadable', { which })} error=${error} />`;
  if (page === null) return html`<${Loading} label=${t('list.loading', { which })} />`;
  if (page.items.length === 0 && pager.page === 1)
    return html`<${EmptyState}
      title=${
        deleted
          ? t('list.emptyDeleted')
          : category === '' && search.trim() === ''
            ? t('list.empty')
            : t('list.emptyFilter')
      }
    />`;

  const columns = [
    { key: 'title', label: t('title') },
    { key: 'category', label: t('category'), render: (document) => categoryLabel(document.category) },
    {
      key: 'source',
      label: t('source'),
      render: (document) => (document.source === 'import' ? t('source.import') : t('source.upload')),
    },
    { key: 'date', label: t('date'), render: dateLabel },
    { key: 'fileName', label: t('file') },
    { key: 'size', label: t('size'), render: (document) => sizeLabel(document.size) },
    {
      key: 'actions',
      label: t('actions'),
      render: (document) =>
        deleted
          ? html`<${Button} variant="secondary" disabled=${busy} onClick=${() => restore(document)}
              >${t('restore')}<span class="visually-hidden"> ${document.title}</span><//
            >`
          : html`${
                previewKind(document.contentType) !== null &&
                html`<${Button} variant="secondary" onClick=${() => setPreviewing(document)}
                    >${t('preview')}<span class="visually-hidden"> ${document.title}</span><//
                  >${' '}`
              }<a href=${contentUrl(document)} download=${document.fileName}
                >${t('download')}<span class="visually-hidden"> ${document.title}</span></a
              >${
                canWrite &&
                html`${' '}<${Button} variant="secondary" onClick=${() => setConfirming(document)}
                    >${t('delete')}<span class="visually-hidden"> ${document.title}</span><//
                  >`
              }`,
    },
  ];
  return html`${error && html`<${ErrorBanner} title=${t('list.actionFailed')} error=${error} />`}
    ${
      confirming &&
      html`<${Banner}
        kind="warning"
        title=${t('delete.confirmTitle', { title: confirming.title })}
        action=${html`<${Button} busy=${busy} onClick=${() => remove(confirming)}>${t('delete.confirm')}<//
          >${' '}<${Button} variant="secondary" onClick=${() => setConfirming(null)}>${t('delete.keep')}<//>`}
        ><p>${t('delete.explain')}</p><//
      >`
    }
    <${Table}
      caption=${t('list.caption', { which, patient: patientName(patient) })}
      columns=${columns}
      rows=${page.items}
    />
    <${Pager} label=${t('list.pages', { which })} pager=${pager} nextCursor=${page.nextCursor} />
    ${previewing && html`<${Preview} document=${previewing} onClose=${() => setPreviewing(null)} />`}`;
}

/**
 * The list's filter as the page's address: `/documents?patient=12&category=letter&q=scan&deleted=1`,
 * only what differs from the defaults, so a reload, Back and a bookmark return to the same list.
 */
function documentsAddress(patientId, { category, search, deleted }) {
  const params = new URLSearchParams({ patient: String(patientId) });
  if (category !== '') params.set('category', category);
  if (search.trim() !== '') params.set('q', search.trim());
  if (deleted) params.set('deleted', '1');
  return `/documents?${params}`;
}

/** The `/documents?patient=<id>` page: the patient's documents, filtered as its address says, and the upload form. */
function PatientDocuments({ context, patientId }) {
  const [patient, setPatient] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState(null);
  const [version, setVersion] = useState(0);
  const [category, setCategory] = useState(
    CATEGORIES.some((known) => known.value === context.query.category) ? context.query.category : '',
  );
  const [search, setSearch] = useState(context.query.q ?? '');
  const [showDeleted, setShowDeleted] = useState(context.can(RESTORE) && context.query.deleted === '1');

  // Replaced, not pushed: Back leaves the page, and returns to it as it was left.
  useEffect(() => {
    const address = documentsAddress(patientId, { category, search, deleted: showDeleted });
    if (`${location.pathname}${location.search}` !== address)
      history.replaceState(history.state, '', address);
  }, [patientId, category, search, showDeleted]);

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
    setVersion(version + 1);
  };
  const changed = (message) => {
    setNotice(message);
    setVersion(version + 1);
  };

  return html`<${PageHeader}
      title=${t('documentsOf', { patient: patientName(patient) })}
      description=${t('mrn', { mrn: patient.mrn })}
    />
    ${notice && html`<${Banner} kind="success"><p>${notice}</p><//>`}
    <div class="form-grid" role="search" aria-label=${t('filter.label')}>
      <${Field}
        label=${t('category.filter')}
        name="category-filter"
        value=${category}
        onInput=${setCategory}
        options=${[{ value: '', label: t('category.all') }, ...CATEGORIES]}
      />
      <${Field}
        label=${t('filter.search')}
        hint=${t('filter.searchHint')}
        name="document-search"
        type="search"
        value=${search}
        onInput=${setSearch}
        autocomplete="off"
      />
    </div>
    ${
      context.can(RESTORE) &&
      html`<p class="field">
        <label
          ><input
            type="checkbox"
            name="show-deleted"
            checked=${showDeleted}
            onChange=${(event) => setShowDeleted(event.currentTarget.checked)}
          />
          ${t('filter.showDeleted')}</label
        >
      </p>`
    }
    <${DocumentList}
      key=${`${version}-${category}-${search}`}
      context=${context}
      patient=${patient}
      category=${category}
      search=${search}
      onChanged=${changed}
    />
    ${
      context.can(WRITE) &&
      html`<${UploadForm}
        context=${context}
        patient=${patient}
        onStart=${() => setNotice(null)}
        onUploaded=${uploaded}
      />`
    }
    ${
      showDeleted &&
      html`<section aria-labelledby="deleted-heading">
        <h2 id="deleted-heading">${t('deletedDocuments')}</h2>
        <${DocumentList}
          key=${`${version}-${category}-${search}`}
          context=${context}
          patient=${patient}
          category=${category}
          search=${search}
          deleted
          onChanged=${changed}
        />
      </section>`
    }
    <p>
      <a href=${`/patients/${patient.id}`}>${t('patientRecord')}</a>${SEPARATOR}<a href="/documents"
        >${t('anotherPatient')}</a
      >
    </p>`;
}

/** The patient page's `patient.chart` part: this patient's documents, and where to upload one. */
function ChartDocuments({ context, patient }) {
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState(null);
  const changed = (message) => {
    setNotice(message);
    setVersion(version + 1);
  };
  return html`<section aria-labelledby="chart-documents-title">
    <h2 id="chart-documents-title">${t('documents')}</h2>
    ${notice && html`<${Banner} kind="success"><p>${notice}</p><//>`}
    <${DocumentList} key=${version} context=${context} patient=${patient} onChanged=${changed} />
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
