/**
 * Documents at /api/v1/documents/: upload a file for a patient (the raw request body, streamed to
 * storage), list a patient's documents (by category), read one's metadata, download or preview its
 * content, delete one softly and restore it. Reads need documents.document.read, uploads and
 * deletes documents.document.write, restores (and listing the deleted) documents.document.restore.
 * A deleted document is answered 404 everywhere else; its file stays stored. Loading the routes (backend start)
 * removes the temporary files of uploads a dead backend left behind.
 */
import type { Context, ModuleRoutes } from '../../src/sdk/index.ts';
import type { PatientsApi } from '../patients/api.ts';
import { insertUsingBlob } from './lib/blob-lock.ts';
import { openBlob, putBlob, removeAbandonedUploads, tooLarge } from './lib/blob-store.ts';
import { documentMaxBytes } from './lib/config.ts';
import { asciiFileName, previewable } from './lib/file-name.ts';
import {
  findDocument,
  insertDocument,
  listDocuments,
  restoreDocument,
  softDeleteDocument,
  SORT_KEY,
} from './lib/queries.ts';
import { categoryOf, uploadMeta } from './lib/upload.ts';

const READ = 'documents.document.read';
const WRITE = 'documents.document.write';
const RESTORE = 'documents.document.restore';

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
      summary:
        'Upload a file as the raw body; ?title= or X-Document-Title, ?fileName= or X-File-Name, ?category=, ?documentDate=, Content-Type, X-Content-SHA256',
      handler: async (ctx) => {
        const id = await patientId(ctx);
        const meta = uploadMeta(sdk, ctx);
        // A declared size over the limit is refused before a byte is read or a file opened.
        if ((ctx.request.length ?? 0) > maxBytes) throw tooLarge(sdk, maxBytes);
        const blob = await putBlob(sdk, storageDir, ctx.req, {
          maxBytes,
          expectedSha256: meta.expectedSha256,
        });
        const document = await insertUsingBlob(
          sdk,
          sdk.acting(ctx),
          storageDir,
          blob.sha256,
          async (trx, bound) => {
            const created = await insertDocument(sdk, trx, {
              patientId: id,
              title: meta.title,
              fileName: meta.fileName,
              contentType: meta.contentType,
              category: meta.category,
              documentDate: meta.documentDate,
              sha256: blob.sha256,
              size: blob.size,
            });
            await sdk.audit.record(bound, {
              action: 'record.create',
              kind: 'document',
              recordId: created.id,
              patientId: id,
              detail: { changes: sdk.audit.changes(null, created) },
            });
            return created;
          },
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
      summary:
        "List a patient's documents, newest first; ?category, ?q (in the title or file name), ?deleted=1 (restorers), ?limit, ?cursor or ?offset",
      handler: async (ctx) => {
        const category = categoryOf(sdk, http.queryText(ctx, 'category'));
        const search = http.queryText(ctx, 'q')?.trim();
        if (search !== undefined && [...search].length > 200)
          throw errors.invalidQuery('q', 'is longer than 200 characters');
        const deleted = http.queryText(ctx, 'deleted');
        if (deleted !== undefined && deleted !== '1' && deleted !== '0')
          throw errors.invalidQuery('deleted', 'is neither 1 nor 0');
        if (deleted === '1' && !http.caller(ctx).can(RESTORE))
          throw new errors.ApiError(
            403,
            'permission_denied',
            `permission denied: ${RESTORE}`,
            `only those who may restore documents see the deleted ones; ask an administrator for ${RESTORE}`,
          );
        const patient = await patientId(ctx);
        const page = await listDocuments(sdk, knex, patient, http.pageRequest(ctx, SORT_KEY), {
          ...(category === undefined ? {} : { category }),
          deleted: deleted === '1',
          ...(search === undefined || search === '' ? {} : { search }),
        });
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.list',
          kind: 'document',
          patientId: patient,
          detail: { ids: page.items.map((document) => document.id) },
        });
        ctx.body = page;
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
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.read',
          kind: 'document',
          recordId: id,
          patientId: document.patientId,
        });
        ctx.body = document;
      },
    },
    {
      method: 'GET',
      path: '/documents/:id/content',
      permission: READ,
      summary:
        "Download a document's content, as an attachment named by its file name; ?inline=1 to show a PDF, image or plain text in the page",
      handler: async (ctx) => {
        const inline = http.queryText(ctx, 'inline');
        if (inline !== undefined && inline !== '1' && inline !== '0')
          throw errors.invalidQuery('inline', 'is neither 1 nor 0');
        const id = http.idParam(ctx, 'id', 'document');
        const document = await findDocument(knex, id);
        if (document === null) throw errors.notFound('document', id);
        const blob = await openBlob(storageDir, document.sha256);
        if (blob === null) {
          logger.error({ document: id, sha256: document.sha256 }, 'document content missing from storage');
          throw errors.notFound('stored content of document', id);
        }
        const shown = inline === '1' && previewable(document.contentType);
        await sdk.audit.record(sdk.acting(ctx), {
          action: 'record.download',
          kind: 'document',
          recordId: id,
          patientId: document.patientId,
          detail: { inline: shown },
        });
        // attachment() writes an ASCII filename= and, for a name beyond ASCII, the exact RFC 5987
        // filename*=UTF-8''; it also guesses a type from the extension, which the stored type replaces.
        ctx.attachment(document.fileName, {
          type: shown ? 'inline' : 'attachment',
          fallback: asciiFileName(document.fileName),
        });
        ctx.set('Content-Type', document.contentType);
        // Whatever the type says (text/html, SVG), a browser must not run it on Ward's origin; only
        // Ward's own pages may frame it. A PDF is not sandboxed: Chromium's viewer refuses to run
        // in a sandboxed document, and it runs no script of the PDF on Ward's origin.
        ctx.set(
          'Content-Security-Policy',
          shown && document.contentType.startsWith('application/pdf')
            ? "default-src 'none'; frame-ancestors 'self'"
            : `sandbox; default-src 'none'${shown ? "; frame-ancestors 'self'" : ''}`,
        );
        ctx.body = blob.stream;
        ctx.length = blob.size;
      },
    },
    {
      method: 'DELETE',
      path: '/documents/:id',
      permission: WRITE,
      summary: 'Delete a document softly: hidden from lists and downloads until an admin restores it',
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'document');
        const caller = http.caller(ctx);
        const deleted = await sdk.acting(ctx).transaction(async (trx, bound) => {
          const document = await softDeleteDocument(trx, id, caller.userId);
          if (document === null) return false;
          await sdk.audit.record(bound, {
            action: 'record.delete',
            kind: 'document',
            recordId: id,
            patientId: document.patientId,
            detail: { changes: { deletedAt: [null, document.deletedAt] }, soft: true },
          });
          return true;
        });
        if (!deleted) throw errors.notFound('document', id);
        logger.info({ document: id, user: caller.username }, 'documents: document deleted (soft)');
        ctx.status = 204;
      },
    },
    {
      method: 'POST',
      path: '/documents/:id/restore',
      permission: RESTORE,
      summary: 'Undo the soft delete of a document',
      handler: async (ctx) => {
        const id = http.idParam(ctx, 'id', 'document');
        const document = await sdk.acting(ctx).transaction(async (trx, bound) => {
          const restored = await restoreDocument(trx, id);
          if (restored !== null)
            await sdk.audit.record(bound, {
              action: 'record.update',
              kind: 'document',
              recordId: id,
              patientId: restored.patientId,
              detail: { restored: true },
            });
          return restored;
        });
        if (document === null) throw errors.notFound('deleted document', id);
        logger.info({ document: id, user: http.caller(ctx).username }, 'documents: document restored');
        ctx.body = document;
      },
    },
  ];
};

export default routes;
