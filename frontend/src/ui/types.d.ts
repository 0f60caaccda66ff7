/**
 * The layer contract and the context the shell gives a layer, as types: `@ward/ui` re-exports
 * them for layers to check themselves against (`/** @satisfies {import('@ward/ui').Layer} *\/`).
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-invalid-void-type --
   Layers are JavaScript that reads Ward's JSON answers field by field and passes components of
   any props; a page's render may return nothing, as the contract allows. */
import type { ComponentType } from 'preact';

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sign-in calls: a 401 or 403 of theirs does not sign the user out or reread permissions. */
  signIn?: boolean;
}

export interface UploadOptions {
  headers?: Record<string, string>;
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

/** Ward's JSON API; paths under /api/v1 may omit it. Every call throws ApiRequestError on failure. */
export interface Api {
  request(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<any>;
  get(path: string, options?: RequestOptions): Promise<any>;
  post(path: string, body?: unknown, options?: RequestOptions): Promise<any>;
  put(path: string, body?: unknown, options?: RequestOptions): Promise<any>;
  patch(path: string, body?: unknown, options?: RequestOptions): Promise<any>;
  delete(path: string, options?: RequestOptions): Promise<any>;
  upload(path: string, body: Blob, options?: UploadOptions): Promise<any>;
}

/** One extension contributed to a slot, as `context.extensions(slot)` lists it for a host. */
export interface SlotEntry {
  key: string;
  module: string;
  component: ComponentType<any>;
  /** The contributing layer's own context, at the host's page. */
  context: LayerContext;
}

export interface LayerContext {
  /** The layer's module; null for the shell's own pages. */
  readonly module: string | null;
  readonly api: Api;
  readonly user: { readonly username: string; readonly roles: readonly string[] };
  readonly permissions: ReadonlySet<string>;
  can(permission: string): boolean;
  navigate(path: string, replace?: boolean): void;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly params: Record<string, string>;
  /** The extensions the user may see in slot `name`, in order; what `Slot` draws. */
  extensions(name: string): readonly SlotEntry[];
  /** The layer's `messages` in the language in use (since SDK 1.4.0). */
  readonly t: Translate;
}

/** Draws a page into `element`; may return (or resolve to) a cleanup called when the user leaves. */
export type RouteRender = (
  element: HTMLElement,
  context: LayerContext,
) => void | (() => void) | Promise<void | (() => void)>;

export interface Route {
  /** `/notes`, `/notes/:id`: the first route that matches wins. */
  path: string;
  render: RouteRender;
}

/** A component a layer contributes to another layer's slot; it gets `context` and the slot's props. */
export interface Extension {
  /** The slot's name, such as `patient.chart`. */
  slot: string;
  component: ComponentType<any>;
  /** Drawn only for users who hold it. */
  permission?: string;
  /** Lower first (default 100); then by module name. */
  order?: number;
}

/** A layer's catalogues: ICU MessageFormat messages by key, by language (`{en: {…}, de: {…}}`). */
export type Messages = Record<string, Record<string, string>>;

/** A message of a catalogue in the language in use (else English, else the key), with `values`. */
export type Translate = (key: string, values?: Record<string, any>) => string;

export interface Layer {
  /** The shell SDK versions the layer works with, as an npm range (`^1.3.0`). */
  sdk: string;
  routes: Route[];
  extensions?: Extension[];
  /** The layer's own words, by language; `context.t` reads them (since SDK 1.4.0). */
  messages?: Messages;
}

export interface Patient {
  id: number;
  mrn: string;
  familyName: string;
  givenName: string;
  birthDate?: string | null;
  sex?: string;
  phone?: string | null;
  email?: string | null;
}
