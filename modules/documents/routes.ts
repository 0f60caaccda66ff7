/**
 * Documents at /api/v1/documents/: upload a file for a patient (the raw request body, streamed to
 * storage), list a patient's documents, read one's metadata, download its content. Reads need
 * documents.document.read, uploads documents.document.write. Loading the routes (backend start)
 * removes the temporary files of uploads a dead backend left behind.
 */
import type { Context } from 'koa';
import type { ModuleRoutes } from '../../src/sdk/index.ts';
import type { PatientsApi } from '../patients/api.ts';
import { insertUsingBlob } from './lib/blob-lock.ts';
import { openBlob, putBlob, removeAbandonedUploads, tooLarge } from './lib/blob-store.ts';
import { documentMaxBytes } from './lib/config.ts';
import { findDocument, insertDocument, listDocuments, SORT_KEY } from './lib/queries.ts';
import { uploadMeta } from './lib/upload.ts';

const READ = 'documents.document.read';
const WRITE = 'documents.document.write';

const routes: ModuleRoutes = async ({ knex, storageDir, logger, sdk }) => {
  await removeAbandonedUploads(sdk, storageDir).then(
    (removed) => {
      if (removed.length > 0)
        logger.info(
          { files: removed },
          `documents: removed ${removed.length} upload(s) a stopped backend left unfinished`,
        );
    },
    (error: unknown) => logger.warn({ err: error }, 'documents: could not look for unfinished uploads'),
  );
  const { http, errors } = sdk;
  const maxBytes = documentMaxBytes(sdk);
  const patients = sdk.modules.get<PatientsApi>('patients');
  const patientId = async (ctx: Context) => {
    const id = http.idParam(ctx, 'patientId', 'patient');
    if ((await patients.get(sdk.acting(ctx), id)) === null) throw errors.notFound('patient', id);
    return id;
  };
  return [
    {
      method: 'POST',
      path: '/patients/:patientId/documents',
      permission: WRITE,
      rawBody: true,
      summary: 'Upload a file as the raw body; ?title= or X-Document-Title, Content-Type, X-Content-SHA256',
      handler: async (ctx) => {
        const id = await patientId(ctx);
        const meta = uploadMeta(sdk, ctx);
        // A declared size over the limit is refused before a byte is read or a file opened.
        if ((ctx.request.length ?? 0) > maxBytes) throw tooLarge(sdk, maxBytes);
        const blob = await putBlob(sdk, storageDir, ctx.req, {
          maxBytes,
          expectedSha256: meta.expectedSha256,
        });
        const document = await insertUsingBlob(sdk, sdk.acting(ctx), storageDir, blob.sha256, (trx) =>
          insertDocument(sdk, trx, {
            patientId: id,
            title: meta.title,
            contentType: meta.contentType,
            sha256: blob.sha256,
            size: blob.size,
          }),
        );
        ctx.status = 201;
        ctx.set('Location', `/api/v1/documents/documents/${document.id}`);
        ctx.body = document;
      },
    },
    {
      method: 'GET',
      path: '/patients/:patientId/documents',
      permission: READ,
      summary: "List a patient's documents, newest first; ?limit, ?cursor or ?offset",
      handler: async (ctx) => {
        ctx.body = await listDocuments(sdk, knex, await patientId(ctx), http.pageRequest(ctx, SORT_KEY));
      },
    },
    {
      method: 'GET',
      path: '/documents/:id',
      permission: READ,
      summary: "Read a document's metadata",
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'document');
        const document = await findDocument(knex, id);
        if (document === null) throw errors.notFound('document', id);
        ctx.body = document;
      },
    },
    {
      method: 'GET',
      path: '/documents/:id/content',
      permission: READ,
      summary: "Download a document's content, as an attachment with its content type",
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'document');
        const document = await findDocument(knex, id);
        if (document === null) throw errors.notFound('document', id);
        const blob = await openBlob(storageDir, document.sha256);
        if (blob === null) {
          logger.error({ document: id, sha256: document.sha256 }, 'document content missing from storage');
          throw errors.notFound('stored content of document', id);
        }
        // attachment() also guesses a type from the title's extension; the stored type replaces it.
        ctx.attachment(document.title);
        ctx.set('Content-Type', document.contentType);
        // Whatever the type says (text/html, SVG), a browser must not run it on Ward's origin.
        ctx.set('Content-Security-Policy', "sandbox; default-src 'none'");
        ctx.body = blob.stream;
        ctx.length = blob.size;
      },
    },
  ];
};

export default routes;
